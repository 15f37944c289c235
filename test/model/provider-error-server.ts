// The corpus of real provider error bodies (test/fixtures/providers/errors) and a loopback proxy
// that answers chosen requests with one of them, exactly as the provider sent it, and passes every
// other request on to an upstream (the scripted fake provider). Shared by the error tests.

import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { ModelErrorCode } from '../../src/model/index.js';

export interface ErrorFixture {
  /** Where this exact shape and message is documented or reported. */
  source: string;
  status: number;
  headers?: Record<string, string>;
  /** A string is sent byte for byte; anything else as its JSON. */
  body: unknown;
  note?: string;
  expect: { code: ModelErrorCode; retryable: boolean; messageIncludes: string; retryAfterMs?: number };
}

const FIXTURE_DIR = new URL('../fixtures/providers/errors/', import.meta.url);

export function loadErrorFixtures(): Array<{ name: string; fixture: ErrorFixture }> {
  return readdirSync(FIXTURE_DIR)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({
      name: file.replace(/\.json$/, ''),
      fixture: JSON.parse(readFileSync(new URL(file, FIXTURE_DIR), 'utf8')) as ErrorFixture,
    }));
}

export function fixtureNamed(name: string): ErrorFixture {
  const found = loadErrorFixtures().find((entry) => entry.name === name);
  if (!found) throw new Error(`no error fixture ${name}`);
  return found.fixture;
}

/** The body as the provider sent it on the wire. */
export function fixtureBodyText(fixture: ErrorFixture): string {
  return typeof fixture.body === 'string' ? fixture.body : JSON.stringify(fixture.body);
}

export interface SeenRequest {
  index: number;
  path: string;
  body: string;
}

export interface ErrorProxy {
  readonly baseURL: string;
  /** Every request that reached the proxy, answered by a fixture or passed on. */
  readonly requests: SeenRequest[];
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendFixture(res: ServerResponse, fixture: ErrorFixture): void {
  const text = fixtureBodyText(fixture);
  const contentType = typeof fixture.body === 'string' ? 'text/plain; charset=utf-8' : 'application/json';
  res.writeHead(fixture.status, { 'content-type': contentType, 'content-length': String(Buffer.byteLength(text)), ...fixture.headers });
  res.end(text);
}

async function forward(req: IncomingMessage, res: ServerResponse, body: string, upstream: string | null): Promise<void> {
  if (upstream === null) {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'error proxy: no upstream for this request' } }));
    return;
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string' && !['host', 'content-length', 'connection'].includes(name)) headers[name] = value;
  }
  const answer = await fetch(`${upstream}${req.url ?? ''}`, { method: req.method, headers, body: req.method === 'GET' ? undefined : body });
  const outHeaders: Record<string, string> = {};
  answer.headers.forEach((value, name) => {
    if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(name)) outHeaders[name] = value;
  });
  res.writeHead(answer.status, outHeaders);
  if (answer.body === null) {
    res.end();
    return;
  }
  Readable.fromWeb(answer.body as import('node:stream/web').ReadableStream).pipe(res);
}

/**
 * Start the proxy. `pick` sees each request (its index counts from 0) and returns the fixture to
 * answer it with, or null to pass it on to `upstream` (the fake provider's origin, without /v1).
 */
export async function startErrorProxy(
  pick: (request: SeenRequest) => ErrorFixture | null,
  upstream: string | null = null,
): Promise<ErrorProxy> {
  const requests: SeenRequest[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const seen = { index: requests.length, path: req.url ?? '', body };
      requests.push(seen);
      const fixture = pick(seen);
      if (fixture) sendFixture(res, fixture);
      else await forward(req, res, body, upstream);
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(502);
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The origin of a `/v1` base URL, for passing requests on with their own path. */
export function originOf(baseURL: string): string {
  return baseURL.replace(/\/v1\/?$/, '');
}
