// The log-review workload of the context-economy benchmarks: a `read_log` tool whose outputs are
// deterministic text of 1.5–5.5 KB (every 37th a 12 KB one), and the summary the script answers
// every summary request with.

import { z } from 'zod';
import type { Tool } from '../src/agent/index.js';
import type { CapturedRequest } from '../src/testing/index.js';

/** Both summary intros (live and transcript form) start with this. */
export const SUMMARY_MARKER = 'You are compacting the working history';
const WORDS = ['parse', 'token', 'error', 'buffer', 'render', 'cache', 'retry', 'socket', 'module', 'schema', 'index', 'commit'];

/** Deterministic log text of `size` characters: about four characters per token, like real output. */
export function logText(index: number, size: number): string {
  let text = `log ${index}:`;
  for (let n = 0; text.length < size; n += 1) text += ` ${WORDS[(n * 5 + index) % WORDS.length]}=${(n * 31 + index) % 997}`;
  return text.slice(0, size);
}

/** Mostly 1.5–5.5 KB, and every 37th round a 12 KB output that jumps far past the last measurement. */
export function outputSize(round: number): number {
  return round % 37 === 36 ? 12_000 : 1_500 + ((round * 7919) % 9) * 500;
}

/** `read_log` with outputs `scale` times the usual size (a larger window, the same rounds per crossing). */
export function readLogTool(scale = 1): Tool<{ index: number }> {
  return {
    name: 'read_log',
    description: 'Read one log file by index.',
    schema: z.object({ index: z.number().int() }),
    readOnly: true,
    strict: false,
    access: () => ({ kind: 'none' }),
    async execute(args) {
      return { output: logText(args.index, outputSize(args.index) * scale) };
    },
  };
}

export const readLog = readLogTool();

export function isSummaryRequest(request: CapturedRequest): boolean {
  return request.rawBody.includes(SUMMARY_MARKER);
}

export const SUMMARY_TEXT = [
  '## Goal',
  'Review the service logs turn by turn and report anomalies.',
  '## User instructions and constraints',
  '"continue the log review" — one part per turn.',
  '## Files',
  'Logs read so far through read_log; none modified.',
  '## Done',
  'Earlier parts reviewed; recurring retry and socket errors noted with their counts.',
  '## Remaining',
  'Continue with the next part.',
  '## Next step',
  'Read the next log.',
].join('\n');

/**
 * SUMMARY_TEXT made unique by its number, as real summaries are: identical summaries would let the
 * round after a compaction read the one before it from the cache.
 */
export function numberedSummary(n: number): string {
  return SUMMARY_TEXT.replace('## Goal\n', `## Goal\nSummary ${n}. `);
}
