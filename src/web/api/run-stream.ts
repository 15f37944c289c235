// Follows one run's events: starts it with POST /api/runs (an SSE answer), and when the connection
// drops before the terminal event, re-attaches with GET /api/runs/:runId/events and Last-Event-ID so
// no event is lost or shown twice. Closing it stops listening, never the run.

import { TERMINAL_EVENT_TYPES, type RunEvent, type StartRunRequest } from './api-types.js';
import { ApiError, errorFromResponse, reachServer } from './api-client.js';
import { readSseFrames } from './sse-parser.js';

export interface RunStreamHandlers {
  onRunId(runId: string): void;
  /** Called once per event id, in order, without gaps. */
  onEvent(event: RunEvent, id: number): void;
  onConnection(state: 'connected' | 'reconnecting'): void;
}

export interface RunStreamOptions {
  /** How often to try re-attaching before giving up (default 6). */
  maxReconnects?: number;
  /** First back-off delay; doubles per failed attempt (default 250 ms). */
  reconnectDelayMs?: number;
  /** The fetch to use (default: the page's, same-origin with the auth cookie). */
  fetch?: typeof fetch;
}

const TERMINAL: ReadonlySet<string> = new Set(TERMINAL_EVENT_TYPES);

class StreamGap extends Error {}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

function parseEvent(data: string): RunEvent {
  const value: unknown = JSON.parse(data);
  if (typeof value !== 'object' || value === null || typeof (value as { type?: unknown }).type !== 'string') {
    throw new Error('run event without a type');
  }
  return value as RunEvent;
}

export class RunStream {
  private readonly controller = new AbortController();
  private runId: string | null = null;
  private lastId = 0;
  private finished = false;

  constructor(
    private readonly handlers: RunStreamHandlers,
    private readonly options: RunStreamOptions = {},
  ) {}

  private get fetch(): typeof fetch {
    return this.options.fetch ?? ((input, init) => reachServer(String(input), init ?? {}));
  }

  get currentRunId(): string | null {
    return this.runId;
  }

  /** Stop listening (the run goes on on the server). */
  close(): void {
    this.controller.abort();
  }

  /** Starts a run and follows it to its terminal event. Rejects with ApiError when the server refuses the run. */
  async start(request: StartRunRequest): Promise<void> {
    const response = await this.fetch('/api/runs', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(request),
      signal: this.controller.signal,
    });
    if (!response.ok) throw await errorFromResponse(response);
    const headerId = response.headers.get('x-run-id');
    if (headerId) this.setRunId(headerId);
    await this.follow(response);
  }

  /** Follows a run that is already going (after a page reload, or from the runs list). */
  async attach(runId: string, afterId = 0): Promise<void> {
    this.setRunId(runId);
    this.lastId = afterId;
    await this.follow(null);
  }

  private setRunId(runId: string): void {
    if (this.runId === runId) return;
    this.runId = runId;
    this.handlers.onRunId(runId);
  }

  private async follow(first: Response | null): Promise<void> {
    const signal = this.controller.signal;
    const maxReconnects = this.options.maxReconnects ?? 6;
    let delay = this.options.reconnectDelayMs ?? 250;
    let failures = 0;
    let response = first;
    let lastError: unknown = null;
    while (!this.finished && !signal.aborted) {
      try {
        if (response === null) response = await this.reattach();
        this.handlers.onConnection('connected');
        const progressBefore = this.lastId;
        await this.consume(response);
        if (this.lastId > progressBefore) {
          failures = 0;
          delay = this.options.reconnectDelayMs ?? 250;
        }
      } catch (error) {
        if (signal.aborted) return;
        // The server knows nothing of this run, or refuses us: retrying cannot help.
        if (error instanceof ApiError && error.status >= 400 && error.status < 500) throw error;
        lastError = error;
      }
      response = null;
      if (this.finished || signal.aborted) return;
      if (this.runId === null) throw new Error('the run stream ended before the server named the run');
      failures += 1;
      if (failures > maxReconnects) {
        throw new Error(`lost the connection to run ${this.runId}${lastError ? `: ${(lastError as Error).message}` : ''}`);
      }
      this.handlers.onConnection('reconnecting');
      await sleep(delay, signal);
      delay = Math.min(delay * 2, 4000);
    }
  }

  private async reattach(): Promise<Response> {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (this.lastId > 0) headers['last-event-id'] = String(this.lastId);
    const response = await this.fetch(`/api/runs/${encodeURIComponent(this.runId ?? '')}/events`, {
      credentials: 'same-origin',
      headers,
      signal: this.controller.signal,
    });
    if (!response.ok) throw await errorFromResponse(response);
    return response;
  }

  private async consume(response: Response): Promise<void> {
    if (response.body === null) throw new Error('the run stream has no body');
    for await (const frame of readSseFrames(response.body, this.controller.signal)) {
      if (frame.data === '') continue;
      const id = frame.id === null ? this.lastId + 1 : Number(frame.id);
      if (!Number.isInteger(id)) continue;
      // A replay after re-attaching may repeat what we have; a jump means frames were lost.
      if (id <= this.lastId) continue;
      if (id > this.lastId + 1) throw new StreamGap(`events ${this.lastId + 1}…${id - 1} are missing`);
      const event = parseEvent(frame.data);
      this.lastId = id;
      if (event.type === 'run_started') this.setRunId(event.runId);
      this.handlers.onEvent(event, id);
      if (TERMINAL.has(event.type)) {
        this.finished = true;
        return;
      }
    }
  }
}

/** Every event of a finished run the server still remembers (its stream replays and ends). */
export async function readRunEvents(runId: string, signal?: AbortSignal): Promise<RunEvent[]> {
  const response = await reachServer(`/api/runs/${encodeURIComponent(runId)}/events`, {
    credentials: 'same-origin',
    headers: { accept: 'text/event-stream' },
    signal,
  });
  if (!response.ok) throw await errorFromResponse(response);
  if (response.body === null) return [];
  const events: RunEvent[] = [];
  for await (const frame of readSseFrames(response.body, signal)) {
    if (frame.data === '') continue;
    const event = parseEvent(frame.data);
    events.push(event);
    if (TERMINAL.has(event.type)) break;
  }
  return events;
}
