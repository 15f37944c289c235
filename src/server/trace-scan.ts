// The trace of a session: every model call with what it was sent and what it answered, in one
// pass over the session's lineage (a fork reads its parent's calls up to the fork point).
// Requests are rebuilt by replay (session files store none); a list page carries them only when
// asked, so a long session's Debug tab fetches each call's payload on demand instead of megabytes
// of JSON up front. Each call also says which tool outputs its request carried for the first
// time, so the workbench can link a tool call to the request that showed the model its output.

import { itemsToModelMessages, type AnyTool, type ResponseItem, type UsageStage } from '../agent/index.js';
import { buildSummaryRequest, summaryInstructions } from '../compaction/index.js';
import type { ModelMessage, ModelToolDefinition, Usage } from '../model/index.js';
import type { SessionStore } from '../sessions/index.js';
import type { CallPricer } from './call-pricing.js';
import { lineageRevision, scanLineage } from './session-lineage.js';
import { RequestReplay, ToolDefinitions } from './session-inspection.js';

const PREVIEW_CHARS = 300;

export interface ReconstructedRequest {
  model: string;
  messages: ModelMessage[];
  tools: ModelToolDefinition[];
}

export interface ResponseSummary {
  /** The assistant text (a compaction call: the summary), cut to a preview in lists. */
  text: string;
  toolCalls: Array<{ callId: string; name: string; arguments: string }>;
  reasoningItems: number;
}

/** One model call as the Debug tab lists it. */
export interface TraceCall {
  /** Position among the model calls of the lineage, from 0: the `:index` of the detail route. */
  index: number;
  turn: number;
  round: number;
  stage: UsageStage;
  usage: Usage | null;
  durationMs: number;
  finishReason: string | null;
  error: { code: string; message: string } | null;
  contextTokens: number | null;
  model: string;
  costUsd: number | null;
  priceKnown: boolean;
  /** The session file the call is recorded in; a fork's inherited calls name its parent. */
  origin: string;
  inherited: boolean;
  /** History items sent; null for compaction calls or past a point replay cannot reach. */
  historyItems: number | null;
  /** Items not sent by the previous turn call / items it sent that this one no longer does (compaction). */
  newItems: number | null;
  droppedItems: number | null;
  /** Tool outputs this request showed the model for the first time. */
  carriedOutputs: Array<{ callId: string; name: string; isError: boolean }>;
  response: ResponseSummary;
  request: ReconstructedRequest | null;
  requestError: string | null;
}

/** `GET /api/sessions/:id/model-calls`: a page of the session's model calls. */
export interface TraceCallPage {
  calls: TraceCall[];
  /** null on the last page. */
  nextCursor: string | null;
  total: number;
}

export interface TraceDetail extends TraceCall {
  /** How `request` was obtained when it is not exactly what was sent (summary calls). */
  requestNote: string | null;
  responseItems: ResponseItem[];
}

export interface TraceOptions {
  offset: number;
  limit: number | null;
  /** Include each call's rebuilt request (the original API's behaviour). */
  payloads: boolean;
  /** Case-insensitive text to find in what a call added to the context or answered. */
  query: string | null;
}

function contextTokensOf(usage: Usage | null): number | null {
  return usage === null ? null : usage.inputTokens + usage.outputTokens;
}

function itemText(item: ResponseItem): string {
  switch (item.type) {
    case 'message':
      return item.content;
    case 'reasoning':
      return item.text;
    case 'function_call':
      return `${item.name} ${item.arguments}`;
    case 'function_call_output':
      return `${item.name} ${item.output}`;
    case 'compaction_summary':
      return item.summary;
    default:
      return '';
  }
}

function preview(text: string): string {
  return text.length <= PREVIEW_CHARS ? text : `${text.slice(0, PREVIEW_CHARS)}…`;
}

interface OpenCall {
  view: TraceDetail;
  /** Text the search looks in: what this call added to the context, and its answer. */
  haystack: string[];
  closed: boolean;
}

/** Walks the lineage once and builds every call; `keep` decides which get their request kept. */
async function walk(
  store: SessionStore,
  sessionId: string,
  tools: readonly AnyTool[],
  onCall: (call: OpenCall, history: ResponseItem[] | string, replay: RequestReplay, definitions: ToolDefinitions) => void,
): Promise<OpenCall[]> {
  const definitions = new ToolDefinitions(tools);
  const calls: OpenCall[] = [];
  let replay: RequestReplay | null = null;
  let previous = new Set<ResponseItem>();
  let previousCount = 0;
  const carried = new Set<string>();
  let open: OpenCall | null = null;

  const closeOpen = () => {
    if (open !== null) open.closed = true;
    open = null;
  };

  await scanLineage(store, sessionId, ({ record, origin, inherited }) => {
    if (record.type === 'session_meta') {
      replay ??= new RequestReplay(record.model);
      return;
    }
    if (replay === null) return;
    if (record.type === 'model_call') {
      closeOpen();
      const model = replay.currentModel;
      const view: TraceDetail = {
        index: calls.length,
        turn: record.turn,
        round: record.round,
        stage: record.stage,
        usage: record.usage,
        durationMs: record.durationMs,
        finishReason: record.finishReason,
        error: record.error,
        contextTokens: contextTokensOf(record.usage),
        model,
        // Priced when served (priced()): prices come from the config, which may change while a
        // walk is cached.
        costUsd: null,
        priceKnown: false,
        origin,
        inherited,
        historyItems: null,
        newItems: null,
        droppedItems: null,
        carriedOutputs: [],
        response: { text: '', toolCalls: [], reasoningItems: 0 },
        request: null,
        requestError: null,
        requestNote: null,
        responseItems: [],
      };
      const call: OpenCall = { view, haystack: [], closed: false };
      const history = replay.history();
      if (typeof history === 'string') {
        view.requestError = history;
      } else if (record.stage === 'turn') {
        // Items are the replay's own objects, so "already sent" is a cheap identity check.
        const current = new Set(history);
        let kept = 0;
        for (const item of history) {
          if (previous.has(item)) {
            kept += 1;
            continue;
          }
          call.haystack.push(itemText(item));
          if (item.type === 'function_call_output' && !carried.has(item.callId)) {
            carried.add(item.callId);
            view.carriedOutputs.push({ callId: item.callId, name: item.name, isError: item.isError });
          }
        }
        view.historyItems = history.length;
        view.newItems = history.length - kept;
        view.droppedItems = previousCount - kept;
        previous = current;
        previousCount = history.length;
      }
      onCall(call, history, replay, definitions);
      calls.push(call);
      open = call;
    } else if (open !== null && !open.closed) {
      const view: TraceDetail = (open as OpenCall).view;
      if (record.type === 'response_item' && view.stage === 'turn') {
        const item = record.item;
        if (item.type === 'message' && item.role === 'assistant') {
          view.response.text = view.response.text === '' ? item.content : `${view.response.text}\n\n${item.content}`;
          view.responseItems.push(item);
          (open as OpenCall).haystack.push(item.content);
        } else if (item.type === 'reasoning') {
          view.response.reasoningItems += 1;
          view.responseItems.push(item);
          (open as OpenCall).haystack.push(item.text);
        } else if (item.type === 'function_call') {
          view.response.toolCalls.push({ callId: item.callId, name: item.name, arguments: item.arguments });
          view.responseItems.push(item);
          (open as OpenCall).haystack.push(`${item.name} ${item.arguments}`);
        } else {
          closeOpen();
        }
      } else if (record.type === 'compaction' && view.stage === 'compaction') {
        view.response.text = record.kind === 'summary' ? (record.summary ?? '') : '';
        (open as OpenCall).haystack.push(view.response.text);
        closeOpen();
      } else if (record.type !== 'audit' && record.type !== 'warning') {
        closeOpen();
      }
    }
    replay.add(record);
  });
  // Searched case-insensitively, possibly many times over one cached walk: lowered once here.
  for (const call of calls) call.haystack = call.haystack.map((text) => text.toLowerCase());
  return calls;
}

function matches(call: OpenCall, needle: string): boolean {
  if (call.view.error !== null && `${call.view.error.code} ${call.view.error.message}`.toLowerCase().includes(needle)) return true;
  return call.haystack.some((text) => text.includes(needle));
}

function priced<T extends TraceCall>(view: T, pricer: CallPricer): T {
  const cost = pricer(view.model, view.usage);
  return { ...view, costUsd: cost.costUsd, priceKnown: cost.priceKnown };
}

function listView(call: OpenCall, payloads: boolean, pricer: CallPricer): TraceCall {
  const { requestNote: _note, responseItems: _items, ...view } = call.view;
  return priced(
    {
      ...view,
      request: payloads ? view.request : null,
      response: {
        text: payloads ? view.response.text : preview(view.response.text),
        reasoningItems: view.response.reasoningItems,
        toolCalls: view.response.toolCalls.map((tool) => ({ ...tool, arguments: payloads ? tool.arguments : preview(tool.arguments) })),
      },
    },
    pricer,
  );
}

/**
 * What the cached walks may hold in all, in characters: each call keeps its searchable text
 * (lowered copies) and the items it answered with, so a walk is counted as twice its text.
 */
const MAX_CACHED_CHARS = 64 * 2 ** 20;
const MAX_CACHED_SESSIONS = 4;

/**
 * The last few sessions' walks without payloads, keyed by their lineage revision: listing a long
 * session's calls replays it whole (~0.2 s for 1,000 calls), and the Debug tab lists them again
 * on every search and every refresh while nothing was written. A session that changed is walked
 * again; requests (payloads) are rebuilt per call and never kept.
 */
export class TraceCache {
  private readonly entries = new Map<string, { revision: string; calls: Promise<OpenCall[]>; chars: number }>();

  async calls(store: SessionStore, sessionId: string, tools: readonly AnyTool[]): Promise<OpenCall[]> {
    const revision = await lineageRevision(store, sessionId);
    const cached = this.entries.get(sessionId);
    if (cached !== undefined && cached.revision === revision) {
      // Most recently used last, so the oldest is the one to evict.
      this.entries.delete(sessionId);
      this.entries.set(sessionId, cached);
      return cached.calls;
    }
    const calls = walk(store, sessionId, tools, () => undefined);
    const entry = { revision, calls, chars: 0 };
    this.entries.delete(sessionId);
    this.entries.set(sessionId, entry);
    if (this.entries.size > MAX_CACHED_SESSIONS) this.entries.delete(this.entries.keys().next().value as string);
    const forget = () => {
      if (this.entries.get(sessionId) === entry) this.entries.delete(sessionId);
    };
    calls.then((walked) => {
      entry.chars = 2 * walked.reduce((sum, call) => sum + call.haystack.reduce((size, text) => size + text.length, 0), 0);
      if (entry.chars > MAX_CACHED_CHARS) return forget();
      // The least recently used go first until all that is kept fits.
      let total = 0;
      for (const kept of this.entries.values()) total += kept.chars;
      for (const [id, kept] of this.entries) {
        if (total <= MAX_CACHED_CHARS || kept === entry) break;
        this.entries.delete(id);
        total -= kept.chars;
      }
    }, forget);
    return calls;
  }
}

/** A page of the session's model calls, optionally filtered by text, with or without requests. */
export async function traceCalls(
  store: SessionStore,
  sessionId: string,
  tools: readonly AnyTool[],
  pricer: CallPricer,
  options: TraceOptions,
  cache: TraceCache | null = null,
): Promise<TraceCallPage> {
  const all =
    !options.payloads && cache !== null
      ? await cache.calls(store, sessionId, tools)
      : await walk(store, sessionId, tools, (call, history, replay, definitions) => {
          if (!options.payloads || typeof history === 'string') return;
          if (call.view.stage !== 'turn') {
            call.view.requestError = 'compaction calls send a summarisation prompt, not the history; open the call to see it rebuilt';
            return;
          }
          call.view.request = {
            model: replay.currentModel,
            messages: itemsToModelMessages(history),
            tools: definitions.for(replay.currentPolicy, history),
          };
        });
  const needle = options.query?.trim().toLowerCase() ?? '';
  const selected = needle === '' ? all : all.filter((call) => matches(call, needle));
  const end = options.limit === null ? selected.length : Math.min(selected.length, options.offset + options.limit);
  const page = selected.slice(options.offset, end).map((call) => listView(call, options.payloads, pricer));
  return { calls: page, nextCursor: end < selected.length ? String(end) : null, total: selected.length };
}

/** One call with everything: the request as sent (a summary call's rebuilt), and its whole answer. */
export async function traceCallDetail(
  store: SessionStore,
  sessionId: string,
  tools: readonly AnyTool[],
  pricer: CallPricer,
  index: number,
): Promise<TraceDetail | null> {
  const all = await walk(store, sessionId, tools, (call, history, replay, definitions) => {
    if (call.view.index !== index || typeof history === 'string') return;
    if (call.view.stage === 'turn') {
      call.view.request = {
        model: replay.currentModel,
        messages: itemsToModelMessages(history),
        tools: definitions.for(replay.currentPolicy, history),
      };
      return;
    }
    // The summary prompt is not recorded; rebuild it from the history it summarised. The live call
    // may have clipped old outputs to fit, and a manual compaction's extra instructions are not kept.
    const summary = buildSummaryRequest({ model: replay.currentModel, history, instructions: summaryInstructions() });
    call.view.request = { model: summary.request.model, messages: summary.request.messages, tools: [] };
    call.view.requestNote =
      'Rebuilt from the history it summarised. Not recorded byte for byte: clipping to fit the window and any instructions given with "Compact now" are not in the session file.';
  });
  const found = all[index];
  return found === undefined ? null : priced(found.view, pricer);
}
