// How a `shell` call turned out, read from the result the model got. The tool reports a non-zero
// exit as a normal result (the model reads the output and decides), so the call is not an error;
// a person looking at the transcript still needs to see at once that the command failed, with
// the exit code and the end of what it printed.

export interface ShellOutcome {
  /** null: the process did not exit by itself (killed by a signal, timed out, cancelled). */
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  cancelled: boolean;
  /** What the command printed (stdout and stderr as one stream, as the tool captures it). */
  output: string;
}

/** Between the fields of the header line `tools/shell/shell.ts` writes first (ASCII: it reaches the model). */
export const SHELL_FIELD_SEPARATOR = ', ';

// The header line: `exit_code: 1, duration: 0.1s, sandbox: read-only (network off)`.
const HEADER = /^exit_code: (\d+|none)((?:, [^\n]*)?)\n/;

/** The outcome of a `shell` call from its output; null for another tool, or an error before the command ran. */
export function shellOutcome(toolName: string, output: string): ShellOutcome | null {
  if (toolName !== 'shell') return null;
  const match = HEADER.exec(output);
  if (match === null) return null;
  const fields = (match[2] ?? '').split(SHELL_FIELD_SEPARATOR).map((field) => field.trim());
  const signal = fields.find((field) => field.startsWith('signal: '))?.slice('signal: '.length) ?? null;
  const body = output.slice(match[0].length);
  return {
    exitCode: match[1] === 'none' ? null : Number(match[1]),
    signal,
    timedOut: fields.some((field) => field.startsWith('timed out')),
    cancelled: fields.includes('cancelled'),
    output: body === '(no output)' || body.startsWith('(no output)\n') ? '' : body,
  };
}

/** True when the command did not exit 0. */
export function shellFailed(outcome: ShellOutcome): boolean {
  return outcome.exitCode !== 0 || outcome.signal !== null || outcome.timedOut || outcome.cancelled;
}

/** `exit 1`, `timed out`, `killed by SIGKILL`, `cancelled`: how the command ended, in two words. */
export function shellEnding(outcome: ShellOutcome): string {
  if (outcome.timedOut) return 'timed out';
  if (outcome.cancelled) return 'cancelled';
  if (outcome.signal !== null) return `killed by ${outcome.signal}`;
  return outcome.exitCode === null ? 'no exit code' : `exit ${outcome.exitCode}`;
}

/** The last `count` non-blank lines of the command's output: where a failing command says why. */
export function shellOutputTail(outcome: ShellOutcome, count = 3): string[] {
  const lines = outcome.output.split('\n').filter((line) => line.trim() !== '');
  return lines.slice(-count);
}
