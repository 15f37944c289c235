// A real `glassbox serve` on 127.0.0.1 (port 0), backed by the scripted fake provider and a temp
// project + Glassbox home, with small helpers for authenticated requests and SSE reading.

import { mkdir, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { createGateway, type ModelGateway, type WireApi } from '../../src/model/index.js';
import type { SessionStore } from '../../src/sessions/index.js';
import { createServer, type GlassboxServer, type ServerSettings } from '../../src/server/index.js';
import { startFakeProvider, type FakeProvider, type ScriptStep } from '../../src/testing/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';

export const TEST_TOKEN = 'test-token-0123456789abcdef';

export interface Harness {
  server: GlassboxServer;
  provider: FakeProvider;
  origin: string;
  url: string;
  port: number;
  root: string;
  home: string;
  logs: string[];
  /** fetch with the Bearer token (unless `headers.authorization` is given). */
  api(path: string, init?: RequestInit): Promise<Response>;
  /** POST a JSON body with the token. */
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  script?: ScriptStep[];
  whenExhausted?: 'error' | ScriptStep;
  settings?: Partial<ServerSettings>;
  files?: Record<string, string>;
  /** Wrap the gateway runs get (e.g. to capture IR requests). */
  wrapGateway?: (gateway: ModelGateway) => ModelGateway;
  /** Build the store from the sessions directory (e.g. to watch its calls). */
  store?: (directory: string) => SessionStore;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const base = await makeTempDir();
  const root = join(base, 'project');
  const home = join(base, 'home');
  await mkdir(root, { recursive: true });
  for (const [name, text] of Object.entries(options.files ?? { 'README.md': '# Sample\n' })) {
    await mkdir(join(root, name, '..'), { recursive: true });
    await writeFile(join(root, name), text);
  }
  const provider = await startFakeProvider({ script: options.script ?? [], whenExhausted: options.whenExhausted });
  const logs: string[] = [];
  const server = createServer({
    root,
    home,
    model: 'test-model',
    wireApi: 'chat',
    gatewayFor: (wireApi: WireApi) => {
      const gateway = createGateway({ wireApi, baseURL: provider.baseURL, apiKey: 'sk-test', retry: { maxAttempts: 1 } });
      return options.wrapGateway ? options.wrapGateway(gateway) : gateway;
    },
    ...(options.store ? { store: options.store(join(home, 'sessions')) } : {}),
    demo: false,
    caps: { sandbox: 'workspace-write', approvalPolicy: 'on-request' },
    defaults: { sandbox: 'read-only', approvalPolicy: 'on-request' },
    network: false,
    port: 0,
    token: TEST_TOKEN,
    webRoot: join(base, 'web'),
    log: (message) => logs.push(message),
    ...options.settings,
  });
  let address: Awaited<ReturnType<typeof server.listen>>;
  try {
    address = await server.listen();
  } catch (error) {
    await provider.close();
    throw error;
  }
  const { origin, url, port } = address;
  const api = (path: string, init: RequestInit = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    if (!headers.has('authorization')) headers.set('authorization', `Bearer ${TEST_TOKEN}`);
    return fetch(`${origin}${path}`, { ...init, headers });
  };
  return {
    server,
    provider,
    origin,
    url,
    port,
    root,
    home,
    logs,
    api,
    post: (path, body, headers = {}) =>
      api(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }),
    close: async () => {
      await server.close();
      await provider.close();
      await rm(base, { recursive: true, force: true });
    },
  };
}

export interface SseFrame {
  id: number | null;
  event: string | null;
  data: string;
}

/** Read SSE frames from a response body until it ends (or `stopAfter` says stop). Comments are kept as `event: ':'`. */
export async function readFrames(response: Response, stopAfter?: (frame: SseFrame) => boolean): Promise<SseFrame[]> {
  const frames: SseFrame[] = [];
  if (response.body === null) return frames;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let boundary: number;
      while ((boundary = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, boundary);
        buffer = buffer.slice(boundary + 2);
        const frame = parseBlock(block);
        frames.push(frame);
        if (stopAfter?.(frame)) return frames;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return frames;
}

function parseBlock(block: string): SseFrame {
  const frame: SseFrame = { id: null, event: null, data: '' };
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) {
      frame.event = ':';
      data.push(line.slice(1).trim());
    } else if (line.startsWith('id: ')) frame.id = Number(line.slice(4));
    else if (line.startsWith('event: ')) frame.event = line.slice(7);
    else if (line.startsWith('data: ')) data.push(line.slice(6));
  }
  frame.data = data.join('\n');
  return frame;
}

/** The run events of a list of frames (comments dropped). */
export function eventsOf(frames: SseFrame[]): Array<{ id: number; type: string; event: Record<string, unknown> }> {
  return frames
    .filter((frame) => frame.event !== ':')
    .map((frame) => {
      const event = JSON.parse(frame.data) as Record<string, unknown>;
      return { id: frame.id ?? 0, type: String(event.type), event };
    });
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * A request through node:http, for what fetch will not send (a foreign Host header, a body
 * without Content-Length). Socket errors after the answer arrived are ignored: a server may
 * answer 413 and stop reading before the client finished sending.
 */
export function rawRequest(
  port: number,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer; chunked?: boolean },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path, headers: options.headers, agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    if (options.body !== undefined) {
      if (options.chunked) {
        const body = Buffer.from(options.body);
        const step = 64 * 1024;
        for (let offset = 0; offset < body.length; offset += step) request.write(body.subarray(offset, offset + step));
      } else {
        request.write(options.body);
      }
    }
    request.end();
  });
}
