/** A problem with how glassbox was invoked or configured: one line, exit code 2, no stack. */
export class UsageError extends Error {
  readonly exitCode = 2;
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Exit codes, documented in the README. */
// 141 = 128 + SIGPIPE: what a shell reports for a writer whose reader went away (`| head -1`).
export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  /** `--output-schema`: the final answer did not match, also after the retry turn. */
  outputSchemaMismatch: 3,
  /** `--max-budget-usd`: stopped before a call that could pass the cap. */
  budgetExceeded: 4,
  cancelled: 130,
  brokenPipe: 141,
  terminated: 143,
} as const;
