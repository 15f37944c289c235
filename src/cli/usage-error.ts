/** A problem with how glassbox was invoked or configured: one line, exit code 2, no stack. */
export class UsageError extends Error {
  readonly exitCode = 2;
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Exit codes, documented in the README. */
export const EXIT = { ok: 0, failed: 1, usage: 2, cancelled: 130, terminated: 143 } as const;
