// The Anthropic SDK, loaded on the first anthropic call rather than whenever the model layer is
// imported: it takes about half a second to load (three times the OpenAI SDK), which every
// `glassbox exec` on another wire API would otherwise pay for nothing.

import type * as AnthropicSdk from '@anthropic-ai/sdk';

export type AnthropicModule = typeof AnthropicSdk;

let loaded: AnthropicModule | null = null;
let loading: Promise<AnthropicModule> | null = null;

export function loadAnthropicSdk(): Promise<AnthropicModule> {
  loading ??= import('@anthropic-ai/sdk').then((module) => {
    loaded = module;
    return module;
  });
  return loading;
}

/** The SDK if a call has loaded it; an error can only have come from it once it is. */
export function loadedAnthropicSdk(): AnthropicModule | null {
  return loaded;
}
