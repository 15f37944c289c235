// One error type for everything that can go wrong talking to a model, with a stable code so the
// loop, the CLI and tests can branch on the cause instead of parsing messages.

export type ModelErrorCode =
  | 'AUTH_FAILED' // 401/403
  | 'BAD_REQUEST' // 400 and other 4xx that retrying cannot fix
  | 'NOT_FOUND' // 404: wrong base URL or model
  | 'RATE_LIMITED' // 429 after retries
  | 'QUOTA_EXCEEDED' // out of credit or over a spend/quota limit (402, insufficient_quota): waiting does not help
  | 'SERVER_ERROR' // 5xx after retries
  | 'PROVIDER_MISCONFIGURED' // the server is not set up for this request (llama.cpp without --jinja): fix the server
  | 'CONNECTION_FAILED' // refused, reset, DNS, timeout before a response
  | 'CONTEXT_OVERFLOW' // the request does not fit the model's window
  | 'STREAM_INTERRUPTED' // the stream broke, or went silent past the idle timeout, after it started
  | 'MALFORMED_STREAM' // the provider sent something that is not valid SSE/JSON
  | 'RESPONSE_FAILED' // response.failed / error stream event
  | 'OUTPUT_TRUNCATED' // finish_reason length / incomplete max_output_tokens
  | 'CONTENT_FILTERED' // finish_reason content_filter
  | 'MODEL_REFUSED' // refusal content
  | 'RESPONSE_TOO_LARGE' // the answer passed a size limit (text, one call's arguments, total, one event)
  | 'BUDGET_EXCEEDED' // the next call could take the run past its spending cap (`--max-budget-usd`): not sent
  | 'ABORTED'; // caller cancelled

export interface ModelErrorOptions {
  status?: number | null;
  retryable?: boolean;
  retryAfterMs?: number | null;
  cause?: unknown;
}

export class ModelError extends Error {
  readonly code: ModelErrorCode;
  readonly status: number | null;
  readonly retryable: boolean;
  readonly retryAfterMs: number | null;

  constructor(code: ModelErrorCode, message: string, options: ModelErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ModelError';
    this.code = code;
    this.status = options.status ?? null;
    this.retryable = options.retryable ?? false;
    this.retryAfterMs = options.retryAfterMs ?? null;
  }
}

export function isModelError(error: unknown): error is ModelError {
  return error instanceof ModelError;
}
