// Server-sent-event framing as the OpenAI SDK's decoder reads it: optional `event:` line, one
// `data:` line, blank line. Payloads are single-line JSON, so one `data:` line always suffices.

/** One SSE message, already serialized into its `data` payload. */
export interface SseFrame {
  event?: string;
  data: string;
}

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
};

export function jsonFrame(data: unknown, event?: string): SseFrame {
  return event === undefined ? { data: JSON.stringify(data) } : { event, data: JSON.stringify(data) };
}

export function formatSseFrame(frame: SseFrame): string {
  if (frame.data.includes('\n')) throw new Error('fake provider: SSE data must be a single line');
  const eventLine = frame.event === undefined ? '' : `event: ${frame.event}\n`;
  return `${eventLine}data: ${frame.data}\n\n`;
}
