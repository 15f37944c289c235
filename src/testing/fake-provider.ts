// A real HTTP server on loopback that answers OpenAI Chat Completions, OpenAI Responses and
// Anthropic Messages requests from a script, one step per request, so tests (and the offline demo model) exercise the real SDK,
// real sockets and real SSE parsing. Every request is captured for assertions.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { AnthropicPromptCache } from './anthropic-prompt-cache.js';
import { estimateRequestTokens } from './estimate-tokens.js';
import {
  flattenHeaders,
  readBody,
  sendError,
  sendJson,
  sendReply,
  sleep,
  streamFrames,
  waitForAbort,
  type FrameProgress,
} from './fake-http.js';
import { fakeWireAt, type FakeWire } from './fake-wires.js';
import {
  IdFactory,
  resolveScriptedTurn,
  validateScriptedTurn,
  type CapturedRequest,
  type ScriptedTurn,
  type ScriptStep,
} from './scripted-turn.js';
import { ReasoningLedger } from './reasoning-ledger.js';
import type { WireMeta } from './wire-meta.js';

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

const FALLBACK_MODEL = 'glassbox-fake';

interface Exchange {
  outcome: Promise<ExchangeOutcome>;
  settle(outcome: ExchangeOutcome): void;
}

function newExchange(): Exchange {
  let settle: (outcome: ExchangeOutcome) => void = () => {};
  const outcome = new Promise<ExchangeOutcome>((resolve) => (settle = resolve));
  return { outcome, settle };
}

function checkStep(step: unknown, label: string): asserts step is ScriptStep {
  if (typeof step === 'function') return;
  try {
    validateScriptedTurn(step);
  } catch (error) {
    throw new Error(`fake provider: invalid ${label}: ${(error as Error).message}`);
  }
}

/** What makes the body unusable on any wire, or null (each wire adds its own shape check, fake-wires.ts). */
function bodyProblem(body: Record<string, unknown>): string | null {
  if (typeof body.model !== 'string' || body.model === '') return "missing required parameter: 'model'";
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

  async function answerModelRequest(req: IncomingMessage, res: ServerResponse, wire: FakeWire, signal: AbortSignal): Promise<void> {
    const receivedAt = Date.now();
    // Errors go out in the envelope of the wire the request came in on.
    const fail = (status: number, message: string, code: string | null = null, param: string | null = null): void =>
      sendJson(
        res,
        status,
        wire.errorBody({ status, message, code, param, requestId: (res.getHeader('x-request-id') as string | undefined) ?? null }),
      );
    const { wireApi } = wire;
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
    if (options.apiKey !== undefined && !wire.authorized(request.headers, options.apiKey)) {
      return fail(401, wire.unauthorized.message, wire.unauthorized.code);
    }
    const problem = bodyProblem(body) ?? wire.shapeProblem(body);
    if (problem !== null) return fail(400, `fake provider: ${problem}`);
    const requestProblem = wire.requestProblem(body, request.headers);
    if (requestProblem !== null) return fail(400, requestProblem);
    const inputTokens = estimateRequestTokens(body, wireApi);
    if (options.contextWindow !== undefined && inputTokens > options.contextWindow) {
      const overflow = wire.contextOverflow(inputTokens, options.contextWindow);
      return fail(400, overflow.message, overflow.code, overflow.param);
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
    if (wire.explicitPromptCache && turn.usage !== null) {
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
      const body = wire.errorBody({ status: fault.status, message, code, type: fault.type, requestId: `req_fake_${request.index}` });
      return sendJson(res, fault.status, body, headers);
    }

    const meta: WireMeta = {
      model: options.model ?? (body.model as string),
      created: Math.floor(Date.now() / 1000),
      ids,
      request,
    };
    if (request.stream) await streamFrames(res, wire.buildFrames(turn, meta), turn, signal, progress, wire.malformedEvent);
    else await sendReply(res, wire.buildReply(turn, meta), turn, signal);
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
    const wire = fakeWireAt(path);
    if (wire !== undefined) {
      if (req.method !== 'POST') return sendError(res, 405, `fake provider: ${req.method} is not allowed on ${path}`);
      return answerModelRequest(req, res, wire, controller.signal);
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
