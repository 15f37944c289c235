// The HTTP side of the fake provider: writing JSON and SSE answers (with their scripted faults),
// reading bodies, waiting abortably. Nothing here knows a wire; fake-provider.ts decides what to send.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResolvedTurn } from './scripted-turn.js';
import { formatSseFrame, SSE_HEADERS, type SseFrame } from './sse.js';
import { defaultErrorType, wireErrorBody } from './wire-error.js';
import type { WireReply } from './wire-meta.js';

const MAX_BODY_BYTES = 64 * 1024 * 1024;

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

export function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  code: string | null = null,
  param: string | null = null,
): void {
  sendJson(res, status, wireErrorBody(message, defaultErrorType(status), code, param));
}

/** Resolves after `ms`, or early (returning false) when the signal aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Counts the frames of one streamed answer, for `exchangeEnded`. */
export interface FrameProgress {
  written: number;
  total: number;
}

export function waitForAbort(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/** Resolves once the chunk has been handed to the socket, so a following destroy cannot drop it. */
export function writeChunk(res: ServerResponse, chunk: string, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted || res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => resolve(false);
    signal.addEventListener('abort', onAbort, { once: true });
    res.write(chunk, (error) => {
      signal.removeEventListener('abort', onAbort);
      resolve(!error);
    });
  });
}

export function flattenHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

export async function readBody(req: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function streamFrames(
  res: ServerResponse,
  frames: SseFrame[],
  turn: ResolvedTurn,
  signal: AbortSignal,
  progress: FrameProgress,
  /** The `event:` name of the malformed line; the Anthropic SDK skips data without one. */
  malformedEvent?: string,
): Promise<void> {
  const fault = turn.fault;
  progress.total = frames.length;
  res.writeHead(200, SSE_HEADERS);
  res.flushHeaders();
  // A fault after the final frame would go unnoticed (the SDK stops reading at `[DONE]`), so a
  // cut, stall or malformed line always replaces at least the last frame.
  const stopAt =
    fault?.kind === 'cut' || fault?.kind === 'malformed' || fault?.kind === 'stall'
      ? Math.min(fault.afterEvents, frames.length - 1)
      : frames.length;
  for (let i = 0; i < stopAt; i++) {
    if (i > 0 && !(await sleep(turn.chunkDelayMs, signal))) return;
    if (!(await writeChunk(res, formatSseFrame(frames[i]!), signal))) return;
    progress.written++;
  }
  if (fault?.kind === 'stall') {
    // Silence, not an ending: only the client giving up (or `close`) ends this answer.
    await waitForAbort(signal);
    res.destroy();
  } else if (fault?.kind === 'cut') {
    res.socket?.destroy();
  } else if (fault?.kind === 'malformed') {
    if (stopAt > 0 && !(await sleep(turn.chunkDelayMs, signal))) return;
    res.end(`${malformedEvent === undefined ? '' : `event: ${malformedEvent}\n`}data: {"this is not": json\n\n`);
  } else {
    res.end();
  }
}

export async function sendReply(res: ServerResponse, reply: WireReply, turn: ResolvedTurn, signal: AbortSignal): Promise<void> {
  const text = JSON.stringify(reply.body);
  const headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) };
  if (turn.fault?.kind === 'stall') {
    // Promise the whole body, deliver half, then say nothing more.
    res.writeHead(reply.status, headers);
    await writeChunk(res, text.slice(0, Math.floor(text.length / 2)), signal);
    await waitForAbort(signal);
    res.destroy();
    return;
  }
  if (turn.fault?.kind === 'cut') {
    // Promise the whole body, deliver half, then hang up: a connection lost mid-body.
    res.writeHead(reply.status, headers);
    res.write(text.slice(0, Math.floor(text.length / 2)), () => res.socket?.destroy());
    return;
  }
  if (turn.fault?.kind === 'malformed') {
    const broken = `${text.slice(0, Math.floor(text.length / 2))}<<not json`;
    res.writeHead(reply.status, { ...headers, 'content-length': String(Buffer.byteLength(broken)) });
    res.end(broken);
    return;
  }
  res.writeHead(reply.status, headers);
  res.end(text);
}
