// A real HTTP server on loopback that answers OpenAI Chat Completions, OpenAI Responses and
// Anthropic Messages requests from a script, one step per request, so tests (and the offline demo model) exercise the real SDK,
// real sockets and real SSE parsing. Every request is captured for assertions.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { WireApi } from '../model/index.js';
import { anthropicRequestProblem } from './anthropic-checks.js';
import { AnthropicPromptCache } from './anthropic-prompt-cache.js';
import { anthropicErrorBody, anthropicErrorType, buildAnthropicFrames, buildAnthropicMessage } from './anthropic-wire.js';
import { buildChatCompletion, buildChatCompletionFrames } from './chat-completions-wire.js';
import { estimateRequestTokens } from './estimate-tokens.js';
import { buildResponse, buildResponseFrames } from './responses-wire.js';
import {
  IdFactory,
  resolveScriptedTurn,
  validateScriptedTurn,
  type CapturedRequest,
  type ResolvedTurn,
  type ScriptedTurn,
  type ScriptStep,
} from './scripted-turn.js';
import { ReasoningLedger } from './reasoning-ledger.js';
import { formatSseFrame, SSE_HEADERS, type SseFrame } from './sse.js';
import { defaultErrorType, wireErrorBody } from './wire-error.js';
import type { WireMeta, WireReply } from './wire-meta.js';

export interface FakeProviderOptions {
  script?: ScriptStep[];
  /**
   * When the script is exhausted: 'error' (default) answers 500 "fake provider: script exhausted
   * (request #n)" and records the request in `unexpectedRequests`; a step is used for every
   * further request.
   */
  whenExhausted?: 'error' | ScriptStep;
  /**
   * Requests whose estimated input tokens exceed this get 400 `context_length_exceeded` (anthropic:
   * "prompt is too long: N tokens > M maximum"); no step is consumed.
   */
  contextWindow?: number;
  /** Require `Authorization: Bearer <apiKey>` (anthropic: or `x-api-key`); otherwise 401 and no step is consumed. */
  apiKey?: string;
  host?: string;
  port?: number;
  /** Echoed as `model`; default: the request's model. */
  model?: string;
  /**
   * Answer as DeepSeek, Gemini and OpenAI do when reasoning state they handed out does not come
   * back on later rounds (see reasoning-ledger.ts); no step is consumed. Default false.
   */
  requireReasoningBack?: boolean;
  /** Answer any request with `include: ['reasoning.encrypted_content']` as OpenAI does for a model that does not reason. */
  rejectEncryptedReasoning?: boolean;
}

/** How the answer to one request ended, as the provider saw it. */
export interface ExchangeOutcome {
  /** The whole answer was written and ended; false when the client (or `close`) cut it short. */
  finished: boolean;
  /** SSE frames handed to the socket, and how many the answer had; both 0 without streaming. */
  framesWritten: number;
  framesTotal: number;
}

export interface FakeProvider {
  readonly baseURL: string;
  readonly requests: CapturedRequest[];
  readonly unexpectedRequests: CapturedRequest[];
  /**
   * Resolves once the answer to request #`index` is over, finished or not, so a test can check
   * that a client hung up early without sleeping. May be called before the request arrives.
   */
  exchangeEnded(index: number): Promise<ExchangeOutcome>;
  push(...steps: ScriptStep[]): void;
  remaining(): number;
  close(): Promise<void>;
}

const ROUTES: Readonly<Record<string, WireApi>> = {
  '/v1/chat/completions': 'chat',
  '/v1/responses': 'responses',
  // The Anthropic SDK's path under its base URL (`baseURL` + '/v1/messages').
  '/v1/messages': 'anthropic',
};
const MAX_BODY_BYTES = 64 * 1024 * 1024;
const FALLBACK_MODEL = 'glassbox-fake';

function checkStep(step: unknown, label: string): asserts step is ScriptStep {
  if (typeof step === 'function') return;
  try {
    validateScriptedTurn(step);
  } catch (error) {
    throw new Error(`fake provider: invalid ${label}: ${(error as Error).message}`);
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

function sendError(res: ServerResponse, status: number, message: string, code: string | null = null, param: string | null = null): void {
  sendJson(res, status, wireErrorBody(message, defaultErrorType(status), code, param));
}

/** Resolves after `ms`, or early (returning false) when the signal aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
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

interface Exchange {
  outcome: Promise<ExchangeOutcome>;
  settle(outcome: ExchangeOutcome): void;
}

function newExchange(): Exchange {
  let settle: (outcome: ExchangeOutcome) => void = () => {};
  const outcome = new Promise<ExchangeOutcome>((resolve) => (settle = resolve));
  return { outcome, settle };
}

/** Counts the frames of one streamed answer, for `exchangeEnded`. */
interface FrameProgress {
  written: number;
  total: number;
}

function waitForAbort(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/** Resolves once the chunk has been handed to the socket, so a following destroy cannot drop it. */
function writeChunk(res: ServerResponse, chunk: string, signal: AbortSignal): Promise<boolean> {
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

function flattenHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

async function readBody(req: IncomingMessage): Promise<string | null> {
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

/** The key check: `Authorization: Bearer`, or on the anthropic wire `x-api-key` (which wins when both are sent, as on the real API). */
function authorized(headers: Record<string, string>, apiKey: string, wireApi: WireApi): boolean {
  if (wireApi === 'anthropic' && headers['x-api-key'] !== undefined) return headers['x-api-key'] === apiKey;
  return headers.authorization === `Bearer ${apiKey}`;
}

/** Returns a message describing what makes the body unusable, or null when it is acceptable. */
function bodyProblem(body: Record<string, unknown>, wireApi: WireApi): string | null {
  if (typeof body.model !== 'string' || body.model === '') return "missing required parameter: 'model'";
  if ((wireApi === 'chat' || wireApi === 'anthropic') && !Array.isArray(body.messages)) return "'messages' must be an array";
  if (wireApi === 'responses' && typeof body.input !== 'string' && !Array.isArray(body.input)) {
    return "'input' must be a string or an array";
  }
  if (body.stream !== undefined && typeof body.stream !== 'boolean') return "'stream' must be a boolean";
  return null;
}

export async function startFakeProvider(options: FakeProviderOptions = {}): Promise<FakeProvider> {
  const script: ScriptStep[] = [];
  for (const [i, step] of (options.script ?? []).entries()) checkStep(step, `script step ${i}`);
  script.push(...(options.script ?? []));
  const whenExhausted = options.whenExhausted ?? 'error';
  if (whenExhausted !== 'error') checkStep(whenExhausted, 'whenExhausted step');
  if (options.contextWindow !== undefined && !(Number.isInteger(options.contextWindow) && options.contextWindow > 0)) {
    throw new Error(`fake provider: contextWindow must be a positive integer, got ${options.contextWindow}`);
  }

  const requests: CapturedRequest[] = [];
  const unexpectedRequests: CapturedRequest[] = [];
  const ids = new IdFactory();
  const ledger = new ReasoningLedger();
  const promptCache = new AnthropicPromptCache();
  const sockets = new Set<Socket>();
  const inFlight = new Set<AbortController>();
  const exchanges = new Map<number, Exchange>();

  function exchangeFor(index: number): Exchange {
    let exchange = exchanges.get(index);
    if (exchange === undefined) {
      exchange = newExchange();
      exchanges.set(index, exchange);
    }
    return exchange;
  }

  /** Settles the request's exchange when its response closes, however that happens. */
  function trackExchange(index: number, res: ServerResponse): FrameProgress {
    const progress: FrameProgress = { written: 0, total: 0 };
    const settle = () =>
      exchangeFor(index).settle({ finished: res.writableFinished, framesWritten: progress.written, framesTotal: progress.total });
    if (res.closed) settle();
    else res.once('close', settle);
    return progress;
  }

  async function nextTurn(request: CapturedRequest): Promise<ScriptedTurn | 'exhausted'> {
    let step: ScriptStep;
    if (script.length > 0) {
      step = script.shift() as ScriptStep;
    } else if (whenExhausted === 'error') {
      return 'exhausted';
    } else {
      step = whenExhausted;
    }
    if (typeof step !== 'function') return step;
    const turn: unknown = await step(request);
    try {
      validateScriptedTurn(turn);
    } catch (error) {
      throw new Error(`invalid turn returned for request #${request.index}: ${(error as Error).message}`);
    }
    return turn;
  }

  async function streamFrames(
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

  async function sendReply(res: ServerResponse, reply: WireReply, turn: ResolvedTurn, signal: AbortSignal): Promise<void> {
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

  async function answerModelRequest(req: IncomingMessage, res: ServerResponse, wireApi: WireApi, signal: AbortSignal): Promise<void> {
    const receivedAt = Date.now();
    // Errors go out in the envelope of the wire the request came in on.
    const fail = (status: number, message: string, code: string | null = null, param: string | null = null): void =>
      wireApi === 'anthropic'
        ? sendJson(
            res,
            status,
            anthropicErrorBody(anthropicErrorType(status), message, (res.getHeader('x-request-id') as string | undefined) ?? null),
          )
        : sendError(res, status, message, code, param);
    const rawBody = await readBody(req);
    if (rawBody === null) return fail(413, 'fake provider: request body too large');
    let parsed: unknown;
    let parseError: string | null = null;
    try {
      parsed = JSON.parse(rawBody);
    } catch (error) {
      parseError = (error as Error).message;
    }
    const body = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
    const request: CapturedRequest = {
      index: requests.length,
      method: req.method ?? 'POST',
      path: req.url ?? '',
      wireApi,
      headers: flattenHeaders(req),
      body,
      stream: body.stream === true,
      rawBody,
      receivedAt,
    };
    requests.push(request);
    const progress = trackExchange(request.index, res);
    res.setHeader('x-request-id', `req_fake_${request.index}`);

    if (parseError !== null) {
      return fail(400, `We could not parse the JSON body of your request. (${parseError})`);
    }
    if (parsed !== body) return fail(400, 'The request body must be a JSON object.');
    if (options.apiKey !== undefined && !authorized(request.headers, options.apiKey, wireApi)) {
      return wireApi === 'anthropic' ? fail(401, 'invalid x-api-key') : fail(401, 'Incorrect API key provided.', 'invalid_api_key');
    }
    const problem = bodyProblem(body, wireApi);
    if (problem !== null) return fail(400, `fake provider: ${problem}`);
    const anthropicProblem = wireApi === 'anthropic' ? anthropicRequestProblem(body, request.headers) : null;
    if (anthropicProblem !== null) return fail(400, anthropicProblem);
    const inputTokens = estimateRequestTokens(body, wireApi);
    if (options.contextWindow !== undefined && inputTokens > options.contextWindow) {
      if (wireApi === 'anthropic') return fail(400, `prompt is too long: ${inputTokens} tokens > ${options.contextWindow} maximum`);
      return fail(
        400,
        `This model's maximum context length is ${options.contextWindow} tokens. However, your messages resulted in ${inputTokens} tokens. Please reduce the length of the messages.`,
        'context_length_exceeded',
        wireApi === 'chat' ? 'messages' : 'input',
      );
    }

    if (options.requireReasoningBack === true) {
      const rejection = ledger.check(request);
      if (rejection !== null) return sendJson(res, rejection.status, rejection.body);
    }
    if (options.rejectEncryptedReasoning === true && Array.isArray(body.include) && body.include.includes('reasoning.encrypted_content')) {
      return sendJson(res, 400, {
        error: {
          message: 'Encrypted content is not supported with this model.',
          type: 'invalid_request_error',
          param: 'include',
          code: null,
        },
      });
    }

    let scripted: ScriptedTurn | 'exhausted';
    try {
      scripted = await nextTurn(request);
    } catch (error) {
      return fail(500, `fake provider: ${(error as Error).message}`);
    }
    if (scripted === 'exhausted') {
      unexpectedRequests.push(request);
      return fail(500, `fake provider: script exhausted (request #${request.index})`, 'script_exhausted');
    }
    const turn = resolveScriptedTurn(scripted, request, ids);
    ledger.record(turn, wireApi);
    if (wireApi === 'anthropic' && turn.usage !== null) {
      // Derived usage reports the prompt cache as the breakpoints would use it; scripted usage stands.
      const cachedUsage = promptCache.apply(body, turn.usage);
      if (scripted.usage === undefined) turn.usage = cachedUsage;
    }
    if (!(await sleep(turn.delayMs, signal))) return;

    const fault = turn.fault;
    if (fault?.kind === 'drop') {
      res.socket?.destroy();
      return;
    }
    if (fault?.kind === 'hang') {
      await waitForAbort(signal);
      res.destroy();
      return;
    }
    if (fault?.kind === 'status') {
      const headers: Record<string, string> = fault.retryAfter === undefined ? {} : { 'retry-after': fault.retryAfter };
      const message = fault.message ?? `fake provider: scripted HTTP ${fault.status}`;
      const code = fault.code ?? (fault.status === 429 ? 'rate_limit_exceeded' : null);
      if (wireApi === 'anthropic') {
        const body = anthropicErrorBody(fault.type ?? anthropicErrorType(fault.status), message, `req_fake_${request.index}`);
        return sendJson(res, fault.status, body, headers);
      }
      const type = fault.type ?? defaultErrorType(fault.status);
      return sendJson(res, fault.status, wireErrorBody(message, type, code), headers);
    }

    const meta: WireMeta = {
      model: options.model ?? (body.model as string),
      created: Math.floor(Date.now() / 1000),
      ids,
      request,
    };
    if (request.stream) {
      const build = wireApi === 'chat' ? buildChatCompletionFrames : wireApi === 'responses' ? buildResponseFrames : buildAnthropicFrames;
      await streamFrames(res, build(turn, meta), turn, signal, progress, wireApi === 'anthropic' ? 'content_block_delta' : undefined);
    } else {
      const build = wireApi === 'chat' ? buildChatCompletion : wireApi === 'responses' ? buildResponse : buildAnthropicMessage;
      await sendReply(res, build(turn, meta), turn, signal);
    }
  }

  function answerModels(req: IncomingMessage, res: ServerResponse): void {
    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      sendError(res, 401, 'Incorrect API key provided.', 'invalid_api_key');
      return;
    }
    const id = options.model ?? FALLBACK_MODEL;
    sendJson(res, 200, { object: 'list', data: [{ id, object: 'model', created: 0, owned_by: 'glassbox' }] });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const controller = new AbortController();
    inFlight.add(controller);
    // 'close' after a finished response is normal; before it, the client went away.
    res.on('close', () => {
      if (!res.writableFinished) controller.abort();
      inFlight.delete(controller);
    });
    const path = (req.url ?? '').split('?')[0]!;
    const wireApi = ROUTES[path];
    if (wireApi !== undefined) {
      if (req.method !== 'POST') return sendError(res, 405, `fake provider: ${req.method} is not allowed on ${path}`);
      return answerModelRequest(req, res, wireApi, controller.signal);
    }
    if (path === '/v1/models' && req.method === 'GET') return answerModels(req, res);
    sendError(res, 404, `fake provider: unknown path ${req.method} ${path}`, 'unknown_url');
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // Never let one bad exchange take the server down; tell the client if it can still hear.
      if (!res.headersSent) sendError(res, 500, `fake provider: internal error: ${(error as Error).message}`);
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('clientError', (_error, socket) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | null = null;

  return {
    baseURL: `http://${host}:${address.port}/v1`,
    requests,
    unexpectedRequests,
    exchangeEnded(index: number): Promise<ExchangeOutcome> {
      return exchangeFor(index).outcome;
    },
    push(...steps: ScriptStep[]): void {
      for (const [i, step] of steps.entries()) checkStep(step, `pushed step ${i}`);
      script.push(...steps);
    },
    remaining(): number {
      return script.length;
    },
    close(): Promise<void> {
      if (closing === null) {
        closing = new Promise<void>((resolve) => {
          server.close(() => resolve());
          for (const controller of inFlight) controller.abort();
          for (const socket of sockets) socket.destroy();
        });
      }
      return closing;
    },
  };
}
