// A loopback OTLP/HTTP trace receiver for tests: it takes the exporter's real protobuf payloads
// (POST /v1/traces, application/x-protobuf) and decodes them with a reader written from the
// opentelemetry-proto definitions (trace/v1/trace.proto, common/v1/common.proto,
// collector/trace/v1/trace_service.proto), independent of the encoder under test. It can also
// hang (accept and never answer) to play a collector that is down in the worst way.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { gunzipSync } from 'node:zlib';

export type AnyValue = string | number | boolean | null | AnyValue[];

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** 1 internal, 2 server, 3 client. */
  kind: number;
  startMs: number;
  endMs: number;
  attributes: Record<string, AnyValue>;
  events: { name: string; timeMs: number; attributes: Record<string, AnyValue> }[];
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  statusMessage: string;
  resource: Record<string, AnyValue>;
}

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  requests: number;
  /** Resolves once at least `count` spans arrived. */
  waitForSpans(count: number, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

class Reader {
  pos = 0;
  constructor(private readonly buf: Uint8Array) {}
  done(): boolean {
    return this.pos >= this.buf.length;
  }
  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.buf.length) throw new Error('truncated varint');
      const byte = this.buf[this.pos++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  }
  fixed64(): bigint {
    const view = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, 8);
    this.pos += 8;
    return view.getBigUint64(0, true);
  }
  double(): number {
    const view = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, 8);
    this.pos += 8;
    return view.getFloat64(0, true);
  }
  bytes(): Uint8Array {
    const length = Number(this.varint());
    const slice = this.buf.subarray(this.pos, this.pos + length);
    this.pos += length;
    return slice;
  }
  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.pos += 4;
    else throw new Error(`unsupported wire type ${wire}`);
  }
  /** Calls `field` for every field; it returns false for fields it did not read (skipped). */
  fields(field: (number: number, wire: number) => boolean): void {
    while (!this.done()) {
      const tag = Number(this.varint());
      const number = tag >>> 3;
      const wire = tag & 7;
      if (!field(number, wire)) this.skip(wire);
    }
  }
}

const text = new TextDecoder();
const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

function anyValue(buf: Uint8Array): AnyValue {
  const reader = new Reader(buf);
  let value: AnyValue = null;
  reader.fields((number, wire) => {
    if (number === 1 && wire === 2) value = text.decode(reader.bytes());
    else if (number === 2 && wire === 0) value = reader.varint() !== 0n;
    else if (number === 3 && wire === 0) value = Number(BigInt.asIntN(64, reader.varint()));
    else if (number === 4 && wire === 1) value = reader.double();
    else if (number === 5 && wire === 2) {
      const values: AnyValue[] = [];
      const array = new Reader(reader.bytes());
      array.fields((n, w) => (n === 1 && w === 2 ? (values.push(anyValue(array.bytes())), true) : false));
      value = values;
    } else return false;
    return true;
  });
  return value;
}

function keyValue(buf: Uint8Array, into: Record<string, AnyValue>): void {
  const reader = new Reader(buf);
  let key = '';
  let value: AnyValue = null;
  reader.fields((number, wire) => {
    if (number === 1 && wire === 2) key = text.decode(reader.bytes());
    else if (number === 2 && wire === 2) value = anyValue(reader.bytes());
    else return false;
    return true;
  });
  into[key] = value;
}

function span(buf: Uint8Array, resource: Record<string, AnyValue>): ReceivedSpan {
  const result: ReceivedSpan = {
    traceId: '',
    spanId: '',
    parentSpanId: '',
    name: '',
    kind: 0,
    startMs: 0,
    endMs: 0,
    attributes: {},
    events: [],
    statusCode: 0,
    statusMessage: '',
    resource,
  };
  const reader = new Reader(buf);
  reader.fields((number, wire) => {
    if (number === 1 && wire === 2) result.traceId = hex(reader.bytes());
    else if (number === 2 && wire === 2) result.spanId = hex(reader.bytes());
    else if (number === 4 && wire === 2) result.parentSpanId = hex(reader.bytes());
    else if (number === 5 && wire === 2) result.name = text.decode(reader.bytes());
    else if (number === 6 && wire === 0) result.kind = Number(reader.varint());
    else if (number === 7 && wire === 1) result.startMs = Number(reader.fixed64() / 1_000_000n);
    else if (number === 8 && wire === 1) result.endMs = Number(reader.fixed64() / 1_000_000n);
    else if (number === 9 && wire === 2) keyValue(reader.bytes(), result.attributes);
    else if (number === 11 && wire === 2) {
      const event = { name: '', timeMs: 0, attributes: {} as Record<string, AnyValue> };
      const inner = new Reader(reader.bytes());
      inner.fields((n, w) => {
        if (n === 1 && w === 1) event.timeMs = Number(inner.fixed64() / 1_000_000n);
        else if (n === 2 && w === 2) event.name = text.decode(inner.bytes());
        else if (n === 3 && w === 2) keyValue(inner.bytes(), event.attributes);
        else return false;
        return true;
      });
      result.events.push(event);
    } else if (number === 15 && wire === 2) {
      const status = new Reader(reader.bytes());
      status.fields((n, w) => {
        if (n === 2 && w === 2) result.statusMessage = text.decode(status.bytes());
        else if (n === 3 && w === 0) result.statusCode = Number(status.varint());
        else return false;
        return true;
      });
    } else return false;
    return true;
  });
  return result;
}

/** Decodes an `ExportTraceServiceRequest`. */
export function decodeTraceRequest(buf: Uint8Array): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  const request = new Reader(buf);
  request.fields((number, wire) => {
    if (number !== 1 || wire !== 2) return false;
    const resourceSpans = new Reader(request.bytes());
    const resource: Record<string, AnyValue> = {};
    const scopes: Uint8Array[] = [];
    resourceSpans.fields((n, w) => {
      if (n === 1 && w === 2) {
        const res = new Reader(resourceSpans.bytes());
        res.fields((rn, rw) => (rn === 1 && rw === 2 ? (keyValue(res.bytes(), resource), true) : false));
      } else if (n === 2 && w === 2) scopes.push(resourceSpans.bytes());
      else return false;
      return true;
    });
    for (const scope of scopes) {
      const scopeReader = new Reader(scope);
      scopeReader.fields((n, w) => (n === 2 && w === 2 ? (spans.push(span(scopeReader.bytes(), resource)), true) : false));
    }
    return true;
  });
  return spans;
}

export async function startOtlpReceiver(options: { hang?: boolean } = {}): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const waiters: (() => void)[] = [];
  const hanging: ServerResponse[] = [];
  const state = { requests: 0 };
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      state.requests += 1;
      if (options.hang) {
        hanging.push(response);
        return;
      }
      if (
        request.method !== 'POST' ||
        request.url !== '/v1/traces' ||
        !String(request.headers['content-type']).startsWith('application/x-protobuf')
      ) {
        response.writeHead(404).end();
        return;
      }
      let body = Buffer.concat(chunks);
      if (request.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      spans.push(...decodeTraceRequest(body));
      response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      for (const wake of waiters.splice(0)) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    get requests() {
      return state.requests;
    },
    async waitForSpans(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (spans.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} spans, got ${spans.length}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      return spans;
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The spans as a tree of names, children in start order: easy to assert and to read in a diff. */
export function spanTree(spans: readonly ReceivedSpan[]): string[] {
  const byParent = new Map<string, ReceivedSpan[]>();
  for (const s of spans) byParent.set(s.parentSpanId, [...(byParent.get(s.parentSpanId) ?? []), s]);
  const lines: string[] = [];
  const walk = (parent: string, depth: number): void => {
    const children = (byParent.get(parent) ?? []).sort((a, b) => a.startMs - b.startMs || a.name.localeCompare(b.name));
    for (const child of children) {
      lines.push(`${'  '.repeat(depth)}${child.name}`);
      walk(child.spanId, depth + 1);
    }
  };
  walk('', 0);
  return lines;
}
