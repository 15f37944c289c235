// `glassbox acp`: serve the Agent Client Protocol on stdin/stdout for an editor (Zed, JetBrains,
// Neovim, Emacs) that starts Glassbox as its agent. Takes `exec`'s options (model, wire API,
// sandbox, approvals, config); the sandbox and approval policy are the sessions' initial mode.
// Stdout carries protocol messages only: notices, warnings and errors go to stderr.
// Registering the command loads nothing heavy: the SDK, model and runner load when it runs.

import { Readable, Writable } from 'node:stream';
import type { Command } from 'commander';
import { addModelOptions } from './model-options.js';
import type { TurnOptionValues } from './run-config.js';
import { EXIT } from './usage-error.js';

export interface AcpCliOptions extends TurnOptionValues {
  otlpEndpoint?: string;
  traceContent?: boolean;
}

export function registerAcpCommand(program: Command): Command {
  return addModelOptions(
    program.command('acp').description('serve the Agent Client Protocol on stdio, for editors (Zed, JetBrains, Neovim…); see docs/acp.md'),
  )
    .option('--sandbox <mode>', 'initial mode: read-only | workspace-write | danger-full-access (default read-only)')
    .option('--approval-policy <policy>', 'untrusted | on-request | never (default on-request)')
    .option('--network', 'allow network access inside the sandbox')
    .option('--max-rounds <n>', 'stop each turn after N model rounds')
    .option('--token-budget <n>', 'stop each turn once it has used N tokens')
    .option('--otlp-endpoint <url>', 'export an OpenTelemetry trace of every turn over OTLP/HTTP (default: OTEL_EXPORTER_OTLP_ENDPOINT)')
    .option('--trace-content', 'attach prompts, answers, tool arguments and results to the traces')
    .action(async (options: AcpCliOptions) => {
      process.exitCode = await acpCommand(options);
    });
}

export async function acpCommand(options: AcpCliOptions): Promise<number> {
  // Stdout is the protocol channel: a stray console.log (ours or a dependency's) would be a line
  // the editor cannot parse, so console output goes to stderr for as long as this process serves.
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  const { resolveTurnConfig, turnRunnerSettings } = await import('./run-config.js');
  const config = resolveTurnConfig(options);
  const { resolveTelemetrySettings } = await import('../telemetry/index.js');
  const telemetry = resolveTelemetrySettings({ otlpEndpoint: options.otlpEndpoint, traceContent: options.traceContent });
  const { openModel } = await import('./open-model.js');
  const { sandboxNotice, sandboxState } = await import('./sandbox-notice.js');
  const model = await openModel(config, { stderr: process.stderr });
  const notice = sandboxNotice(await sandboxState(config.sandbox));
  if (notice !== null) process.stderr.write(`glassbox: ${notice}\n`);
  const [{ ndJsonStream }, { serveAcp }] = await Promise.all([import('@agentclientprotocol/sdk'), import('../acp/index.js')]);
  const { root: _root, ...settings } = turnRunnerSettings(config, model.gateway, telemetry);
  const stream = ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as unknown as ReadableStream<Uint8Array>,
  );
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const server = serveAcp(stream, { settings, log });
  // The editor stops its agent with a signal as often as by closing stdin: both end the same way.
  const stop = (): void => void process.stdin.destroy();
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  try {
    await server.closed;
    return EXIT.ok;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await model.close();
  }
}
