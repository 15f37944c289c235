// Human-readable progress on stderr while a run goes on; stdout stays reserved for the answer.

import type { RunEvent } from '../agent/index.js';
import { escapeControls, visibleText } from '../terminal-text/index.js';
import { envValue } from './cli-env.js';
import type { RunTotals } from './run-tally.js';
import { hookRunStopped, hookRunText, shellEnding, shellFailed, shellOutcome, shellOutputTail } from '../views/index.js';

const MAX_ARGS_SHOWN = 120;

export class ProgressPrinter {
  private roundText = '';
  private readonly color: boolean;

  constructor(private readonly out: NodeJS.WritableStream & { isTTY?: boolean } = process.stderr) {
    // https://no-color.org: NO_COLOR turns colour off when it is set to a non-empty value.
    this.color = Boolean(out.isTTY) && envValue('NO_COLOR') === undefined;
  }

  /**
   * Every line is made visible whole: names, error messages and warnings carry text a model, a
   * provider or a repository chose (a tool name, an MCP server's command), and an escape sequence
   * in any of them could rewrite the screen or the clipboard.
   */
  private write(line: string, style: 'plain' | 'dim' | 'error' = 'plain'): void {
    const visible = visibleText(line);
    const styled =
      !this.color || style === 'plain' ? visible : style === 'dim' ? `\x1b[2m${visible}\x1b[22m` : `\x1b[31m${visible}\x1b[39m`;
    this.out.write(`${styled}\n`);
  }

  /** `totals` come with the terminal event: what the whole run cost and took. */
  handle(event: RunEvent, totals?: RunTotals): void {
    switch (event.type) {
      case 'run_started':
        this.write(`glassbox ${event.resumed ? 'resumed' : 'session'} ${event.sessionId} · ${event.model} (${event.wireApi})`, 'dim');
        break;
      case 'model_requested':
        this.roundText = '';
        break;
      case 'assistant_delta':
        this.roundText += event.delta;
        break;
      case 'model_retry':
        this.write(`  retrying in ${(event.delayMs / 1000).toFixed(1)}s (attempt ${event.attempt + 1}): ${event.error.message}`);
        break;
      case 'stream_retry':
        this.roundText = '';
        this.write(
          `  retrying (stream interrupted) ${event.attempt}/${event.maxAttempts} in ${(event.delayMs / 1000).toFixed(1)}s; discarded what it had streamed: ${event.error.message}`,
        );
        break;
      case 'tool_requested':
        if (this.roundText.trim()) this.write(`› ${this.roundText.trim().replace(/\s+/g, ' ')}`);
        this.roundText = '';
        this.write(`  ⚙ ${event.name} ${clip(event.arguments)}`, 'dim');
        break;
      case 'tool_permission_decided':
        if (event.decision !== 'allow') this.write(`  ${event.decision === 'deny' ? '✗ denied' : '? needs approval'}: ${event.reason}`);
        break;
      case 'approval_resolved':
        this.write(`  approval: ${event.decision} (${event.by})${event.message ? ` — ${event.message}` : ''}`);
        break;
      case 'tool_finished': {
        // A command that exited non-zero is a normal result for the model, and a failure to a person.
        const shell = shellOutcome(event.name, event.output);
        if (shell !== null && shellFailed(shell)) {
          this.write(`  ✗ ${event.name} ${shellEnding(shell)} (${event.durationMs} ms)`, 'error');
          for (const line of shellOutputTail(shell)) this.write(`    │ ${clip(line)}`, 'error');
          break;
        }
        this.write(
          `  ${event.isError ? '✗' : '✓'} ${event.name} (${event.durationMs} ms)${event.isError ? ` ${clip(event.output)}` : ''}`,
          'dim',
        );
        break;
      }
      case 'hook_ran':
        // A hook that stopped something or went wrong is shown plainly; one that went on, dimmed.
        this.write(`  ↪ ${hookRunText(event)}`, hookRunStopped(event) ? 'error' : 'dim');
        break;
      case 'history_compacted':
        this.write(`  ⇣ context compacted (${event.kind}, ${event.trigger}): ${event.tokensBefore} → ${event.tokensAfter} tokens`);
        break;
      case 'warning':
        this.write(`warning: ${event.message}`);
        break;
      case 'run_succeeded':
        this.write(
          `done in ${event.rounds} round(s) · ${groupDigits(event.usage.total.totalTokens)} tokens${totals ? totalsText(totals) : ''}`,
          'dim',
        );
        break;
      case 'run_failed':
        this.write(`glassbox: run failed [${event.error.code}]: ${event.error.message}`);
        break;
      case 'run_cancelled':
        this.write(`glassbox: run cancelled: ${event.reason}`);
        break;
      default:
        break;
    }
  }
}

/** `30,143,211`: a long count is read at a glance. */
function groupDigits(value: number): string {
  return value.toLocaleString('en-US');
}

/** ` · $0.0123 · 4.2 s`; the cost is left out when the model has no known price. */
function totalsText(totals: RunTotals): string {
  const cost =
    totals.totalCostUsd === null
      ? ''
      : ` · $${totals.totalCostUsd < 0.01 ? totals.totalCostUsd.toFixed(4) : totals.totalCostUsd.toFixed(2)}`;
  return `${cost} · ${(totals.durationMs / 1000).toFixed(1)} s`;
}

function clip(text: string): string {
  const oneLine = escapeControls(text.replace(/\s+/g, ' '));
  return oneLine.length > MAX_ARGS_SHOWN ? `${oneLine.slice(0, MAX_ARGS_SHOWN)}…` : oneLine;
}
