// The stream replay corpus (test/fixtures/providers/streams): SSE answers recorded from real
// providers, and a loopback server that replays them byte for byte to the real SDK, one recorded
// round per accepted request, while checking every request against the provider's documented
// requirements. A request that breaks one is answered with that provider's real error (status and
// body as the provider sends it), so a test fails the way the real provider would make it fail.
//
// A profile names its wire API; the server routes and frames accordingly (`chat`:
// POST …/chat/completions with `data:` frames; `responses`: POST …/responses, `event:` + `data:`;
// `anthropic`: POST …/v1/messages, `event:` + `data:`), so a profile for another dialect is one
// more file in the same format.

import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { WireApi } from '../../src/model/index.js';

/** One SSE frame: a data payload sent verbatim (`"[DONE]"` included), or an explicit event + data. */
export type ReplayFrame = string | { event?: string; data: string };

export interface ReplayRound {
  /** Write `event: <payload.type>` before each data line, as the Responses and Messages APIs do. */
  eventLines?: boolean;
  frames: ReplayFrame[];
}

/**
 * A rule the provider enforces on requests. `target` selects values in the JSON body with a small
 * path language: `a.b`, `a[2]`, `a[*]`, `a[key=value]` (keep array elements whose `key` equals
 * `value`), chained (`messages[role=assistant][0].tool_calls[*]`). Exactly one check applies to
 * every selected value; a target that selects nothing breaks the rule, except for `absent` and
 * `onlyKeys` (nothing has no keys) and `count: 0`. An empty target is the body itself.
 */
export interface Requirement {
  id: string;
  /** The accepted request (1-based) the rule applies to; omitted: every request. */
  request?: number;
  target: string;
  /** The value contains this (objects: listed keys deep-contain; everything else: equal). */
  match?: unknown;
  /** The value equals this exactly. */
  equals?: unknown;
  /** The (object) value has none of these keys. */
  absent?: string[];
  /** The (object) value has no key outside these. */
  onlyKeys?: string[];
  /** The (string) value matches this regular expression. */
  regex?: string;
  /** The (array) value contains an element equal to this. */
  includes?: unknown;
  /** The (array) value holds elements containing these, in this order (others may come between). */
  subsequence?: unknown[];
  /** The target selects exactly this many values. */
  count?: number;
  /** Why the provider needs it, in one sentence. */
  why: string;
  /** Where the rule (and its error) is documented or was reported. */
  source: string | string[];
  /** The provider's answer to a request that breaks the rule; omitted: a 400 naming the rule. */
  error?: { status: number; body: unknown; headers?: Record<string, string> };
}

export interface ExpectedUsage {
  inputTokens: number;
  cachedInputTokens: number | null;
  outputTokens: number;
  reasoningTokens: number;
  totalTokens: number;
}

export interface ExpectedRound {
  /** The assistant text of the round (a tool round's working message, or the final answer). */
  text: string;
  /** Readable reasoning the round committed, joined; omitted: none expected. */
  reasoningText?: string;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  usage: ExpectedUsage | null;
}

export interface ReplayProfile {
  /** File name without `.json`. */
  name: string;
  provider: string;
  wireApi: WireApi;
  model: string;
  source: string[];
  notes: string;
  /** User prompts, one per turn (default: one turn). */
  turns?: string[];
  /** The tool the recorded conversation calls and what it answers. */
  tool: { name: string; output: string };
  rounds: ReplayRound[];
  requirements: Requirement[];
  expect: {
    rounds: ExpectedRound[];
    /** Requirement ids Glassbox is expected to break once and then recover from (learned fallbacks). */
    rejections?: string[];
  };
}

const STREAM_DIR = new URL('../fixtures/providers/streams/', import.meta.url);

export function loadReplayProfiles(dir: URL = STREAM_DIR): ReplayProfile[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({
      ...(JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as Omit<ReplayProfile, 'name'>),
      name: file.replace(/\.json$/, ''),
    }));
}

// ---- path selection -------------------------------------------------------------------------

type Step =
  | { kind: 'key'; key: string }
  | { kind: 'index'; index: number }
  | { kind: 'all' }
  | { kind: 'filter'; key: string; value: string };

function parsePath(path: string): Step[] {
  const steps: Step[] = [];
  for (const segment of path.split('.')) {
    const match = /^([^[\]]*)((?:\[[^\]]*\])*)$/.exec(segment);
    if (!match) throw new Error(`bad target segment ${JSON.stringify(segment)} in ${path}`);
    if (match[1] !== '') steps.push({ kind: 'key', key: match[1]! });
    for (const [, inner = ''] of match[2]!.matchAll(/\[([^\]]*)\]/g)) {
      if (inner === '*') steps.push({ kind: 'all' });
      else if (/^\d+$/.test(inner)) steps.push({ kind: 'index', index: Number(inner) });
      else if (inner.includes('=')) {
        const at = inner.indexOf('=');
        steps.push({ kind: 'filter', key: inner.slice(0, at), value: inner.slice(at + 1) });
      } else throw new Error(`bad selector [${inner}] in ${path}`);
    }
  }
  return steps;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every value the path selects in `root`. */
export function selectAll(root: unknown, path: string): unknown[] {
  let current: unknown[] = [root];
  for (const step of parsePath(path)) {
    const next: unknown[] = [];
    for (const value of current) {
      if (step.kind === 'key') {
        if (isRecord(value) && step.key in value) next.push(value[step.key]);
      } else if (!Array.isArray(value)) {
      } else if (step.kind === 'index') {
        if (step.index < value.length) next.push(value[step.index]);
      } else if (step.kind === 'all') {
        next.push(...value);
      } else {
        // A filter keeps the array (so `[0]` can follow) of the elements whose key holds the value.
        next.push(value.filter((element) => isRecord(element) && String(element[step.key]) === step.value));
      }
    }
    current = next;
  }
  return current;
}

function contains(value: unknown, pattern: unknown): boolean {
  if (isRecord(pattern)) {
    return isRecord(value) && Object.entries(pattern).every(([key, inner]) => key in value && contains(value[key], inner));
  }
  if (Array.isArray(pattern)) {
    return Array.isArray(value) && value.length === pattern.length && pattern.every((inner, i) => contains(value[i], inner));
  }
  return Object.is(value, pattern);
}

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (isRecord(value))
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical(value[key])]),
    );
  return value;
}

const short = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
};

/** Why `body` breaks the rule, or null when it keeps it. */
export function checkRequirement(requirement: Requirement, body: unknown): string | null {
  const values = selectAll(body, requirement.target);
  if (requirement.count !== undefined) {
    if (values.length !== requirement.count) return `${requirement.target} selects ${values.length} values, expected ${requirement.count}`;
    if (requirement.count === 0) return null;
  }
  // "Has none of" and "has nothing but" hold for nothing at all; every other check needs a value.
  const onlyShapeChecks = [requirement.match, requirement.equals, requirement.regex, requirement.includes, requirement.subsequence].every(
    (check) => check === undefined,
  );
  if (values.length === 0) return onlyShapeChecks ? null : `${requirement.target} is missing`;
  for (const value of values) {
    if (requirement.match !== undefined && !contains(value, requirement.match)) {
      return `${requirement.target} is ${short(value)}, expected it to contain ${short(requirement.match)}`;
    }
    if (requirement.equals !== undefined && !deepEqual(value, requirement.equals)) {
      return `${requirement.target} is ${short(value)}, expected ${short(requirement.equals)}`;
    }
    if (requirement.absent !== undefined) {
      const present = requirement.absent.filter((key) => isRecord(value) && key in value);
      if (present.length > 0) return `${requirement.target} has ${present.join(', ')}`;
    }
    if (requirement.onlyKeys !== undefined) {
      const extra = isRecord(value) ? Object.keys(value).filter((key) => !requirement.onlyKeys!.includes(key)) : ['(not an object)'];
      if (extra.length > 0) return `${requirement.target} has ${extra.join(', ')}, which is not allowed`;
    }
    if (requirement.regex !== undefined && !(typeof value === 'string' && new RegExp(requirement.regex).test(value))) {
      return `${requirement.target} is ${short(value)}, which does not match /${requirement.regex}/`;
    }
    if (
      requirement.includes !== undefined &&
      !(Array.isArray(value) && value.some((element) => deepEqual(element, requirement.includes)))
    ) {
      return `${requirement.target} is ${short(value)}, expected it to include ${short(requirement.includes)}`;
    }
    if (requirement.subsequence !== undefined) {
      if (!Array.isArray(value)) return `${requirement.target} is not an array`;
      let at = 0;
      for (const pattern of requirement.subsequence) {
        while (at < value.length && !contains(value[at], pattern)) at += 1;
        if (at === value.length) return `${requirement.target} lacks ${short(pattern)} in order`;
        at += 1;
      }
    }
  }
  return null;
}

// ---- the server -----------------------------------------------------------------------------

export interface ReplayRequest {
  path: string;
  body: unknown;
  /** The 1-based index of the accepted request it became, or null when it was rejected. */
  accepted: number | null;
}

export interface ReplayRejection {
  requirement: string;
  detail: string;
}

export interface ReplayServer {
  readonly baseURL: string;
  readonly requests: ReplayRequest[];
  readonly rejections: ReplayRejection[];
  /** The bodies of the accepted requests, in order. */
  accepted(): unknown[];
  close(): Promise<void>;
}

const ENDPOINTS: Record<WireApi, RegExp> = {
  chat: /\/chat\/completions$/,
  responses: /\/responses$/,
  anthropic: /\/messages$/,
};

function frameText(frame: ReplayFrame, eventLines: boolean): string {
  if (typeof frame !== 'string') return `${frame.event ? `event: ${frame.event}\n` : ''}data: ${frame.data}\n\n`;
  if (eventLines && frame !== '[DONE]') {
    const type = (JSON.parse(frame) as { type?: unknown }).type;
    if (typeof type === 'string') return `event: ${type}\ndata: ${frame}\n\n`;
  }
  return `data: ${frame}\n\n`;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

export async function startReplayServer(profile: ReplayProfile): Promise<ReplayServer> {
  const requests: ReplayRequest[] = [];
  const rejections: ReplayRejection[] = [];
  let acceptedCount = 0;
  const sockets = new Set<Socket>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '').split('?')[0]!;
    const raw = await readBody(req);
    if (req.method !== 'POST' || !ENDPOINTS[profile.wireApi].test(path)) {
      sendJson(res, 404, { error: { message: `replay: no ${profile.wireApi} endpoint at ${req.method} ${path}` } });
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      sendJson(res, 400, { error: { message: 'replay: the request body is not JSON' } });
      return;
    }
    const number = acceptedCount + 1;
    for (const requirement of profile.requirements) {
      if (requirement.request !== undefined && requirement.request !== number) continue;
      const detail = checkRequirement(requirement, body);
      if (detail === null) continue;
      requests.push({ path, body, accepted: null });
      rejections.push({ requirement: requirement.id, detail });
      const error = requirement.error ?? {
        status: 400,
        body: { error: { message: `replay: requirement ${requirement.id} not met: ${detail}`, type: 'invalid_request_error' } },
      };
      sendJson(res, error.status, error.body, error.headers);
      return;
    }
    acceptedCount = number;
    requests.push({ path, body, accepted: number });
    const round = profile.rounds[number - 1];
    if (!round) {
      sendJson(res, 500, { error: { message: `replay: no recorded round for request #${number}` } });
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.end(round.frames.map((frame) => frameText(frame, round.eventLines === true)).join(''));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: `replay: ${String(error)}` } });
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}${profile.wireApi === 'anthropic' ? '' : '/v1'}`,
    requests,
    rejections,
    accepted: () => requests.filter((request) => request.accepted !== null).map((request) => request.body),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
