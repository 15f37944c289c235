// Every refusal the API gives is an `HttpError`: a status, a message a person can act on and,
// for validation, the offending fields. Anything else that escapes a handler is a bug and is
// answered with a generic 500 (details go to the server's log only).

import { CompactionConfigError } from '../compaction/index.js';
import { isSessionError, type SessionError } from '../sessions/index.js';

import type { ErrorAnswer } from '../protocol/index.js';

export type FieldErrors = Record<string, string[]>;

/** What every refusal answers (protocol/'s `ErrorAnswer`). */
export type ErrorBody = ErrorAnswer;

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 500;

export class HttpError extends Error {
  readonly status: ErrorStatus;
  readonly fieldErrors: FieldErrors | null;

  constructor(status: ErrorStatus, message: string, fieldErrors: FieldErrors | null = null) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.fieldErrors = fieldErrors;
  }

  body(): ErrorBody {
    return this.fieldErrors === null ? { error: this.message } : { error: this.message, fieldErrors: this.fieldErrors };
  }
}

/** How a store error reads over HTTP: the caller's mistake, a conflict, or (otherwise) null. */
export function httpErrorFromSessionError(error: SessionError): HttpError | null {
  switch (error.code) {
    case 'SESSION_NOT_FOUND':
      return new HttpError(404, error.message);
    case 'SESSION_AMBIGUOUS':
    case 'SESSION_INVALID_ARGUMENT':
      return new HttpError(400, error.message);
    case 'SESSION_LOCKED':
      return new HttpError(409, error.message);
    case 'SESSION_CORRUPT':
    case 'SESSION_UNSUPPORTED':
    case 'SESSION_INVALID_RECORD':
      // The file, not the request, is the problem; the request itself was fine.
      return new HttpError(409, error.message);
    default:
      return null;
  }
}

/** Map a thrown value to the HttpError it stands for, or null for an unexpected failure. */
export function toHttpError(error: unknown): HttpError | null {
  if (error instanceof HttpError) return error;
  if (isSessionError(error)) return httpErrorFromSessionError(error);
  // `<home>/config.json` turned invalid while the server runs: the operator's to fix, so say what.
  if (error instanceof CompactionConfigError) return new HttpError(409, `the server's compaction settings are invalid: ${error.message}`);
  return null;
}
