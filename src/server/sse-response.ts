// A run's events as a Server-Sent Events response: `id:`/`event:`/`data:` frames, a `: heartbeat`
// comment at an interval so proxies and browsers keep the connection, and the end of the body
// after the terminal event. A client that reads too slowly is disconnected instead of buffering
// without bound; it re-attaches with Last-Event-ID and loses nothing.

import type { RunEvent } from '../agent/index.js';
import type { RunEventSource } from './run-backend.js';

export const DEFAULT_HEARTBEAT_MS = 15_000;
const HIGH_WATER_BYTES = 64 * 1024;
const MAX_QUEUED_BYTES = 8 * 1024 * 1024;

export function formatSseFrame(id: number, event: RunEvent): string {
  // JSON.stringify escapes CR and LF, so the data always fits on one `data:` line.
  return `id: ${id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

export interface SseOptions {
  log: RunEventSource;
  afterId: number;
  heartbeatMs: number;
  headers?: Record<string, string>;
  /** Called when the stream ends for any reason (for bookkeeping of open streams). */
  onClose?: () => void;
}

export function sseResponse(options: SseOptions): Response {
  const encoder = new TextEncoder();
  let closed = false;
  let unsubscribe: (() => void) | null = null;
  let heartbeat: NodeJS.Timeout | null = null;

  const cleanup = (): void => {
    if (closed) return;
    closed = true;
    if (heartbeat !== null) clearInterval(heartbeat);
    unsubscribe?.();
    options.onClose?.();
  };

  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const finish = (): void => {
          if (closed) return;
          cleanup();
          controller.close();
        };
        const push = (text: string): void => {
          if (closed) return;
          controller.enqueue(encoder.encode(text));
          if ((controller.desiredSize ?? 0) < -MAX_QUEUED_BYTES) finish();
        };
        const stop = options.log.subscribe(options.afterId, {
          onEvent: ({ id, event }) => push(formatSseFrame(id, event)),
          onEnd: finish,
        });
        if (closed) {
          stop();
          return;
        }
        unsubscribe = stop;
        heartbeat = setInterval(() => push(': heartbeat\n\n'), options.heartbeatMs);
        heartbeat.unref();
      },
      cancel() {
        cleanup();
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: HIGH_WATER_BYTES }),
  );
  return new Response(body, { status: 200, headers: { ...SSE_HEADERS, ...options.headers } });
}
