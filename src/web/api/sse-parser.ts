// An incremental parser for `text/event-stream`: fed text as it arrives, it hands back complete
// frames. Written by hand because EventSource cannot POST, and the run stream starts with a POST.

export interface SseFrame {
  id: string | null;
  event: string;
  data: string;
}

export class SseParser {
  private buffer = '';
  private id: string | null = null;
  private event = '';
  private data: string[] = [];
  private sawField = false;

  /** Feed a chunk of decoded text; returns the frames it completed. */
  push(text: string): SseFrame[] {
    this.buffer += text;
    const frames: SseFrame[] = [];
    let start = 0;
    for (;;) {
      const newline = this.buffer.indexOf('\n', start);
      if (newline === -1) break;
      let line = this.buffer.slice(start, newline);
      if (line.endsWith('\r')) line = line.slice(0, -1);
      start = newline + 1;
      const frame = this.line(line);
      if (frame !== null) frames.push(frame);
    }
    this.buffer = this.buffer.slice(start);
    return frames;
  }

  private line(line: string): SseFrame | null {
    if (line === '') return this.dispatch();
    // A comment (the server's heartbeat): keeps the connection alive, carries nothing.
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    this.sawField = true;
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id') this.id = value;
    return null;
  }

  private dispatch(): SseFrame | null {
    if (!this.sawField) return null;
    const frame: SseFrame = { id: this.id, event: this.event || 'message', data: this.data.join('\n') };
    this.event = '';
    this.data = [];
    this.id = null;
    this.sawField = false;
    return frame;
  }
}

/** Reads a response body as SSE frames until it ends. */
export async function* readSseFrames(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<SseFrame> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  const cancel = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
    yield* parser.push(decoder.decode());
  } finally {
    signal?.removeEventListener('abort', cancel);
    reader.releaseLock();
  }
}
