// `glassbox compact <sessionId|last>`: summarize a session's history now, so its next turn starts
// small. The work is `compactSession` (shared with the HTTP API); this file is flags and output.
// Heavy modules load only when the command runs.

import { Writable } from 'node:stream';
import type { Command } from 'commander';
import type { HistoryCompactedEvent } from '../compaction/index.js';
import { terminalJson, visibleText } from '../terminal-text/index.js';
import { addModelOptions } from './model-options.js';
import type { ModelOptionValues } from './run-config.js';
import { EXIT } from './usage-error.js';

export interface CompactCliOptions extends ModelOptionValues {
  instructions?: string;
  json?: boolean;
  compactAt?: string;
  contextWindow?: string;
}

export interface CompactCommandDeps {
  /** Defaults to process.stdout / process.stderr; tests capture them instead. */
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
}

function groupDigits(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

export function describeCompaction(sessionId: string, event: HistoryCompactedEvent): string {
  const before = event.itemsRemoved + event.itemsKept;
  return (
    `Compacted session ${sessionId}: ${before} items → ${event.itemsKept + 1} ` +
    `(about ${groupDigits(event.tokensBefore)} → ${groupDigits(event.tokensAfter)} tokens).\n\n${event.summary}\n`
  );
}

export async function compactCommand(reference: string, options: CompactCliOptions, deps: CompactCommandDeps = {}): Promise<number> {
  const out = deps.stdout ?? ((text: string) => void process.stdout.write(text));
  const err = deps.stderr ?? ((text: string) => void process.stderr.write(text));
  const { resolveCommonConfig } = await import('./run-config.js');
  const { openModel } = await import('./open-model.js');
  const { openRunner, compactSession } = await import('../runner/index.js');
  const { modelSettingsOf } = await import('../model/index.js');
  const config = resolveCommonConfig(options);
  const stderr = deps.stderr
    ? new Writable({
        write(chunk: Buffer | string, _encoding, done) {
          err(String(chunk));
          done();
        },
      })
    : process.stderr;
  const model = await openModel(config, { stderr });
  try {
    const runner = await openRunner({
      ...modelSettingsOf(config),
      root: config.root,
      home: config.home,
      gateway: model.gateway,
      compactAt: options.compactAt,
      contextWindow: options.contextWindow,
    });
    const sessionId = await runner.store.resolveId(reference);
    const event = await compactSession({
      runner,
      sessionId,
      instructions: options.instructions,
      onEvent: (runEvent) => {
        // A warning or a provider's error can quote text others chose: shown, never obeyed.
        if (runEvent.type === 'warning') err(`glassbox: warning [${runEvent.code}] ${visibleText(runEvent.message)}\n`);
        else if (runEvent.type === 'model_retry')
          err(`glassbox: retrying the summary request (attempt ${runEvent.attempt}): ${visibleText(runEvent.error.message)}\n`);
      },
    });
    // The summary is the model's text: its control sequences are shown, never obeyed.
    out(options.json ? `${terminalJson(event)}\n` : visibleText(describeCompaction(sessionId, event)));
    return EXIT.ok;
  } finally {
    await model.close();
  }
}

export function registerCompactCommand(program: Command, deps: CompactCommandDeps = {}): void {
  addModelOptions(
    program
      .command('compact')
      .description("summarize a session's history now, so its next turn starts from the summary")
      .argument('<session>', 'session id, unique id prefix, or `last`'),
  )
    .option('--instructions <text>', 'extra instructions for this summary (added to the template, not replacing it)')
    .option('--json', 'print the history_compacted event as JSON')
    .action(async (reference: string, options: CompactCliOptions) => {
      process.exitCode = await compactCommand(reference, options, deps);
    });
}
