// `glassbox trace <session>`: export a recorded session as OpenTelemetry traces (one per turn),
// derived from the file with the same span tree a live run exports, so sessions recorded before
// tracing was set up can be examined in Jaeger, Tempo, Phoenix or any OTLP backend.

import { join } from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { visibleText } from '../terminal-text/index.js';
import { resolveHome } from './glassbox-home.js';
import { UsageError } from './usage-error.js';

export interface TraceOptions {
  home?: string;
  otlpEndpoint?: string;
  traceContent?: boolean;
  turn?: number;
}

function parseTurn(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('expected a turn number (1 or more)');
  return Number(value);
}

export function registerTraceCommand(program: Command, version: string): void {
  program
    .command('trace')
    .description('export a recorded session as OpenTelemetry traces over OTLP/HTTP (one trace per turn)')
    .argument('<session>', 'a session id, a unique prefix, or "last"')
    .option('--otlp-endpoint <url>', 'OTLP/HTTP endpoint, e.g. http://localhost:4318 (default: OTEL_EXPORTER_OTLP_ENDPOINT)')
    .option('--trace-content', 'attach prompts, answers, tool arguments and results (secrets of known shapes redacted)')
    .option('--turn <n>', 'export only this turn', parseTurn)
    .addOption(new Option('--home <dir>', 'Glassbox home (default ~/.glassbox)').env('GLASSBOX_HOME'))
    .action(async (reference: string, options: TraceOptions) => {
      process.exitCode = await traceCommand(reference, options, version);
    });
}

export interface TraceCommandOutput {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

const PROCESS_OUTPUT: TraceCommandOutput = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
};

export async function traceCommand(
  reference: string,
  options: TraceOptions,
  version: string,
  io: TraceCommandOutput = PROCESS_OUTPUT,
): Promise<number> {
  const { resolveTelemetrySettings, exportSessionTrace } = await import('../telemetry/index.js');
  const settings = resolveTelemetrySettings({ otlpEndpoint: options.otlpEndpoint, traceContent: options.traceContent });
  if (settings === null) throw new UsageError('no trace endpoint: pass --otlp-endpoint or set OTEL_EXPORTER_OTLP_ENDPOINT');
  const { JsonlSessionStore } = await import('../sessions/index.js');
  const store = new JsonlSessionStore(join(resolveHome(options.home), 'sessions'));
  const sessionId = await store.resolveId(reference);
  const { records } = await store.read(sessionId);
  const { turns, report } = await exportSessionTrace(records, settings, version, { turn: options.turn });
  if (turns === 0) {
    io.stderr(`glassbox: session ${sessionId} has no ${options.turn === undefined ? 'turns' : `turn ${options.turn}`} to export\n`);
    return 1;
  }
  if (report.failed > 0 || report.exported === 0) {
    // The exporter's error carries the collector's words (its HTTP reason phrase): shown, never obeyed.
    io.stderr(
      visibleText(`glassbox: the export to ${settings.endpoint} failed: ${report.error ?? 'the collector did not answer in time'}\n`),
    );
    return 1;
  }
  io.stdout(`Exported ${report.exported} spans of ${turns} turn${turns > 1 ? 's' : ''} of session ${sessionId} to ${settings.endpoint}\n`);
  return 0;
}
