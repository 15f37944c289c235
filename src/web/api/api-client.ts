// JSON calls to the Glassbox server. Same-origin fetch carries the auth cookie, so no token is
// handled here; a 401 becomes an `ApiError` the app turns into its sign-in page.

import type {
  ApprovalDecision,
  ApprovalPreviewAnswer,
  ContextInfo,
  CompactionPayload,
  Cursor,
  Health,
  ModelCallPayloads,
  ModelsInfo,
  PendingApproval,
  ResolveAnswer,
  RunList,
  SessionList,
  SessionPage,
  TraceCall,
  TraceCallPage,
  TraceDetail,
} from './api-types.js';

type ConnectivityListener = (reachable: boolean) => void;
const connectivityListeners = new Set<ConnectivityListener>();

/**
 * Hears whether the server answered the last call: every fetch reports, so the offline banner
 * appears on the first failed request and goes when any request gets through again.
 */
export function onConnectivity(listener: ConnectivityListener): () => void {
  connectivityListeners.add(listener);
  return () => connectivityListeners.delete(listener);
}

export function reportConnectivity(reachable: boolean): void {
  for (const listener of connectivityListeners) listener(reachable);
}

/** fetch that turns a network failure into a readable ApiError (status 0) and reports reachability. */
export async function reachServer(input: string, init: RequestInit): Promise<Response> {
  try {
    const response = await fetch(input, init);
    reportConnectivity(true);
    return response;
  } catch (error) {
    if (init.signal?.aborted) throw error;
    reportConnectivity(false);
    throw new ApiError(0, `cannot reach the Glassbox server (${(error as Error).message}); is glassbox serve still running?`);
  }
}

export class ApiError extends Error {
  readonly status: number;
  readonly fieldErrors: Record<string, string[]>;

  constructor(status: number, message: string, fieldErrors: Record<string, string[]> = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.fieldErrors = fieldErrors;
  }

  /** The message plus any per-field problems, for showing to a person. */
  describe(): string {
    const fields = Object.entries(this.fieldErrors).map(([field, messages]) => `${field}: ${messages.join(', ')}`);
    return fields.length > 0 ? `${this.message} (${fields.join('; ')})` : this.message;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Turns a failed response into an ApiError, using the server's `{error, fieldErrors}` body when it has one. */
export async function errorFromResponse(response: Response): Promise<ApiError> {
  let message = `${response.status} ${response.statusText || 'request failed'}`;
  let fieldErrors: Record<string, string[]> = {};
  try {
    const body: unknown = await response.json();
    if (isRecord(body)) {
      if (typeof body.error === 'string' && body.error !== '') message = body.error;
      if (isRecord(body.fieldErrors)) {
        fieldErrors = Object.fromEntries(
          Object.entries(body.fieldErrors).map(([field, value]) => [field, Array.isArray(value) ? value.map(String) : [String(value)]]),
        );
      }
    }
  } catch {
    // Not JSON (a proxy page, a dropped body): the status line is all there is.
  }
  return new ApiError(response.status, message, fieldErrors);
}

export function describeError(error: unknown): string {
  if (error instanceof ApiError) return error.describe();
  if (error instanceof Error) return error.message;
  return String(error);
}

async function call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const init: RequestInit = { method, credentials: 'same-origin', headers: { accept: 'application/json' } };
  if (body !== undefined) {
    init.headers = { accept: 'application/json', 'content-type': 'application/json' };
    init.body = JSON.stringify(body);
  }
  const response = await reachServer(path, init);
  if (!response.ok) throw await errorFromResponse(response);
  const data: unknown = await response.json();
  if (!isRecord(data)) throw new ApiError(response.status, `unexpected answer from ${method} ${path}: not a JSON object`);
  return data as T;
}

function query(params: Record<string, string | number | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

const segment = encodeURIComponent;

export const api = {
  health: () => call<Health>('GET', '/api/health'),
  models: () => call<ModelsInfo>('GET', '/api/models'),
  runs: () => call<RunList>('GET', '/api/runs'),
  cancelRun: (runId: string) => call<{ cancelled: boolean }>('POST', `/api/runs/${segment(runId)}/cancel`, {}),
  approvals: (runId?: string) => call<{ approvals: PendingApproval[] }>('GET', `/api/approvals${query({ runId })}`),
  /** With `saveRule` ("Always allow"): the rule the page showed, saved by the server before it approves. */
  resolveApproval: (runId: string, callId: string, decision: ApprovalDecision, message?: string, saveRule?: string) =>
    call<ResolveAnswer>('POST', `/api/approvals/${segment(runId)}/${segment(callId)}`, {
      decision,
      ...(message !== undefined && message.trim() !== '' ? { message: message.trim() } : {}),
      ...(saveRule === undefined ? {} : { saveRule }),
    }),
  approvalPreview: (runId: string, callId: string) =>
    call<ApprovalPreviewAnswer>('GET', `/api/approvals/${segment(runId)}/${segment(callId)}/preview`),
  sessions: (params: { query?: string; cursor?: Cursor | null; limit?: number }) =>
    call<SessionList>('GET', `/api/sessions${query(params)}`),
  session: (sessionId: string, params: { cursor?: Cursor | null; limit?: number } = {}) =>
    call<SessionPage>('GET', `/api/sessions/${segment(sessionId)}${query(params)}`),
  modelCalls: (sessionId: string, params: { cursor?: Cursor | null; limit?: number; payloads?: ModelCallPayloads; query?: string } = {}) =>
    call<TraceCallPage>('GET', `/api/sessions/${segment(sessionId)}/model-calls${query(params)}`),
  modelCall: (sessionId: string, index: number) =>
    call<{ call: TraceDetail }>('GET', `/api/sessions/${segment(sessionId)}/model-calls/${index}`),
  deleteSession: (sessionId: string) => call<{ deleted: boolean }>('DELETE', `/api/sessions/${segment(sessionId)}`),
  exportUrl: (sessionId: string, format?: 'html' | 'md') =>
    `/api/sessions/${segment(sessionId)}/export${format === undefined ? '' : `?format=${format}`}`,
  context: (sessionId: string) => call<ContextInfo>('GET', `/api/sessions/${segment(sessionId)}/context`),
  fork: (sessionId: string, atTurn?: number) =>
    call<{ sessionId: string }>('POST', `/api/sessions/${segment(sessionId)}/fork`, atTurn === undefined ? {} : { atTurn }),
  compact: (sessionId: string, instructions?: string) =>
    call<{ compaction: CompactionPayload }>('POST', `/api/sessions/${segment(sessionId)}/compact`, {
      ...(instructions !== undefined && instructions.trim() !== '' ? { instructions: instructions.trim() } : {}),
    }),
};

/** Every model call of a session without payloads (fetched per call on demand), following the cursor. */
export async function loadAllModelCalls(sessionId: string, signal?: AbortSignal, search = ''): Promise<TraceCall[]> {
  const calls: TraceCall[] = [];
  let cursor: Cursor | null = null;
  const seen = new Set<string>();
  do {
    const page: TraceCallPage = await api.modelCalls(sessionId, { cursor, limit: 1000, payloads: 'none', query: search });
    calls.push(...page.calls);
    cursor = page.nextCursor ?? null;
    if (cursor !== null) {
      if (seen.has(String(cursor))) break;
      seen.add(String(cursor));
    }
  } while (cursor !== null && !signal?.aborted);
  return calls;
}

/** Every record of a session, following the cursor: the transcript and audit need the whole file. */
export async function loadAllRecords(sessionId: string, signal?: AbortSignal): Promise<SessionPage> {
  // The server's largest page: a long session takes fewer round trips.
  let page = await api.session(sessionId, { limit: 1000 });
  const records = [...page.records];
  const problems = [...page.problems];
  const seen = new Set<string>();
  while (page.nextCursor !== null && page.nextCursor !== undefined) {
    if (signal?.aborted) break;
    const key = String(page.nextCursor);
    // A cursor that repeats would loop forever; the server promised progress, so stop instead.
    if (seen.has(key)) break;
    seen.add(key);
    page = await api.session(sessionId, { cursor: page.nextCursor, limit: 1000 });
    records.push(...page.records);
    problems.push(...page.problems);
  }
  return { ...page, records, problems, nextCursor: null };
}
