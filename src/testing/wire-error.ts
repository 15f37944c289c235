// The error envelope OpenAI-compatible servers answer with, shared by HTTP errors and the Chat
// in-stream error chunk.

export interface WireErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

export function wireErrorBody(message: string, type: string, code: string | null = null, param: string | null = null): WireErrorBody {
  return { error: { message, type, param, code } };
}

/** The `type` a real provider would put on an HTTP error of this status. */
export function defaultErrorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}
