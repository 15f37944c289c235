// Errors carry a stable code so the CLI and the loop can branch on the cause, and an `exitCode`
// the CLI's main honours: 2 for "you asked for something that does not exist or makes no sense".

export type SessionErrorCode =
  | 'SESSION_NOT_FOUND'
  | 'SESSION_AMBIGUOUS'
  | 'SESSION_LOCKED'
  | 'SESSION_CORRUPT'
  | 'SESSION_INVALID_ARGUMENT'
  | 'SESSION_INVALID_RECORD'
  | 'SESSION_UNSUPPORTED'
  | 'SESSION_WRITE_FAILED'
  | 'SESSION_CLOSED';

export class SessionError extends Error {
  readonly code: SessionErrorCode;
  readonly exitCode: number;

  constructor(code: SessionErrorCode, message: string, options: { exitCode?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SessionError';
    this.code = code;
    this.exitCode = options.exitCode ?? 1;
  }
}

export class SessionNotFoundError extends SessionError {
  readonly reference: string;

  /** `location` is where the store looked, e.g. `/home/me/.glassbox/sessions`. */
  constructor(reference: string, location: string) {
    super('SESSION_NOT_FOUND', `no session ${reference} in ${location}`, { exitCode: 2 });
    this.name = 'SessionNotFoundError';
    this.reference = reference;
  }
}

/** Who holds a session's lock, as written in its `.lock` file. */
export interface LockOwner {
  pid: number;
  host: string;
  startedAt: string;
}

export class SessionLockedError extends SessionError {
  readonly sessionId: string;
  /** null when the lock file exists but could not be read (it is being written right now). */
  readonly owner: LockOwner | null;

  constructor(sessionId: string, owner: LockOwner | null) {
    const holder = owner
      ? `pid ${owner.pid} on host ${owner.host} (since ${owner.startedAt})`
      : 'another process that is still writing its lock file';
    super('SESSION_LOCKED', `session ${sessionId} is in use by ${holder}; only one glassbox may write to a session at a time`);
    this.name = 'SessionLockedError';
    this.sessionId = sessionId;
    this.owner = owner;
  }
}

export function isSessionError(error: unknown): error is SessionError {
  return error instanceof SessionError;
}
