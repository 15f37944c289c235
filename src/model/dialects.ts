// The registry of wire dialects: the only place that lists them. Everything that depends on which
// dialect a run speaks (its provider's key and endpoint, the gateway, the trace's provider name, the
// catalog's models for `/model`) asks here instead of comparing wire names.
// test/architecture/wire-name-literals.test.ts keeps it that way.

import { anthropicDialect } from './anthropic/index.js';
import { chatCompletionsDialect } from './chat-completions/index.js';
import type { Dialect, ProviderFamily } from './dialect.js';
import { WIRE_APIS, type WireApi } from './ir.js';
import { responsesDialect } from './responses/index.js';

/** One descriptor per wire name; the mapped type makes a `WireApi` without a descriptor a compile error. */
const DIALECTS: { readonly [Name in WireApi]: Dialect<Name> } = {
  chat: chatCompletionsDialect,
  responses: responsesDialect,
  anthropic: anthropicDialect,
};

/** The wire a run speaks when none is named: the most widely implemented one. */
export const DEFAULT_WIRE_API: WireApi = chatCompletionsDialect.name;

/** Every dialect, in `WIRE_APIS` order. */
export const DIALECT_LIST: readonly Dialect[] = WIRE_APIS.map((name) => DIALECTS[name]);

/** The descriptor of a wire the type system already vouches for. */
export function dialectOf(wireApi: WireApi): Dialect {
  return DIALECTS[wireApi];
}

/** The descriptor named (or aliased) by untrusted text (`--wire-api`, a session file); undefined when none is. */
export function findDialect(name: string): Dialect | undefined {
  const normalized = name.trim().toLowerCase();
  return DIALECT_LIST.find((dialect) => dialect.name === normalized || dialect.aliases.includes(normalized));
}

/** True when both wires take the same key and endpoint (OpenAI's Chat Completions and Responses). */
export function sameProvider(a: WireApi, b: WireApi): boolean {
  return DIALECTS[a].provider === DIALECTS[b].provider;
}

/** The provider family's name of a wire (`gen_ai.provider.name`, the catalog's provider); 'openai' for an unknown one. */
export function providerNameOf(wireApi: string): ProviderFamily['name'] {
  return (findDialect(wireApi) ?? chatCompletionsDialect).provider.name;
}

/** "chat, responses or anthropic": the names, for help and error messages. */
export function wireApiChoices(): string {
  const names = DIALECT_LIST.map((dialect) => dialect.name);
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}

export type { Dialect, ProviderFamily };
