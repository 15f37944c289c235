// Opens the model the configuration names: a real endpoint (OpenAI-compatible or Anthropic), or the built-in
// offline demo model served on loopback (and said so on stderr, with how to configure a real one).

import { createGateway, dialectOf, type ModelGateway } from '../model/index.js';
import type { ModelConfig } from './run-config.js';

export interface OpenedModel {
  gateway: ModelGateway;
  close(): Promise<void>;
}

export async function openModel(config: ModelConfig, options: { stderr: NodeJS.WritableStream; intro?: boolean }): Promise<OpenedModel> {
  if (!config.demo || config.baseURL !== null) {
    return {
      gateway: createGateway({
        wireApi: config.wireApi,
        baseURL: config.baseURL ?? '',
        apiKey: config.apiKey,
        streamIdleTimeoutMs: config.streamIdleTimeoutMs,
      }),
      close: async () => {},
    };
  }
  const { startDemoProvider } = await import('../demo/index.js');
  const provider = await startDemoProvider();
  const family = dialectOf(config.wireApi).provider;
  options.stderr.write(
    `glassbox: no ${family.keyVariable} or --base-url set, so this run uses the offline demo model (a built-in script, not an AI).\n` +
      `${family.realModelHint}\n`,
  );
  if (options.intro) options.stderr.write('glassbox: `npm start` runs this demo; `glassbox --help` lists every command.\n');
  return {
    gateway: createGateway({
      wireApi: config.wireApi,
      baseURL: provider.baseURL,
      apiKey: config.apiKey,
      streamIdleTimeoutMs: config.streamIdleTimeoutMs,
    }),
    close: () => provider.close(),
  };
}
