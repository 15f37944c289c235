// What the workbench shows about a session's model calls and context, derived from its records.
// Session files store no requests (they would grow quadratically), so each request is rebuilt by
// replaying the session up to that call: replay is deterministic, which is also what makes resume
// send byte-identical history. Tools are listed as this server defines them under the turn's policy.

import { itemsToModelMessages, toolDefinition, type AnyTool, type ResponseItem } from '../agent/index.js';
import { type SandboxMode } from '../workspace/index.js';
import type { ModelMessage, ModelToolDefinition, Usage } from '../model/index.js';
import { historyCompactedEvent, type HistoryCompactedEvent } from '../compaction/index.js';
import { APPROVAL_POLICIES, isToolVisible, type ApprovalPolicy } from '../permissions/index.js';
import { HistoryReplay, type ModelCallSummaryRecord, type SessionRecord, type SessionStore, type TurnPolicy } from '../sessions/index.js';
import { SANDBOX_ORDER } from './server-settings.js';

export interface ReconstructedRequest {
  model: string;
  messages: ModelMessage[];
  tools: ModelToolDefinition[];
}

/** A `model_call` record as the workbench shows it, with the request it sent rebuilt. */
export interface ModelCallView extends Omit<ModelCallSummaryRecord, 'type' | 'ts'> {
  /** null for compaction calls (their prompt is not the history) or when replay failed. */
  request: ReconstructedRequest | null;
  /** Why `request` is null, when it is. */
  requestError: string | null;
  /** input + output tokens as reported; null when the provider reported no usage. */
  contextTokens: number | null;
}

export interface ContextPoint {
  turn: number;
  round: number;
  tokens: number;
  /** true when the provider reported no usage and the history was counted instead. */
  estimated: boolean;
}

export interface ContextView {
  window: number | null;
  threshold: number | null;
  points: ContextPoint[];
  compactions: CompactionPoint[];
}

/** A `history_compacted` payload, with the turn it was filed under and when. */
export type CompactionPoint = Omit<HistoryCompactedEvent, 'type'> & { turn: number; ts: string };

export interface ContextLimits {
  window: number | null;
  threshold: number | null;
}

/** Replays a session one record at a time and says, at any point, what the model was sent. */
class RequestReplay {
  private readonly replay = new HistoryReplay();
  private failure: string | null = null;
  private policy: TurnPolicy | null = null;
  private model: string;

  constructor(initialModel: string) {
    this.model = initialModel;
  }

  add(record: SessionRecord): void {
    if (record.type === 'turn_started') {
      this.policy = record.policy;
      this.model = record.model;
    }
    if (this.failure !== null) return;
    try {
      this.replay.add(record);
    } catch (error) {
      this.failure = `the session cannot be replayed past this point: ${(error as Error).message}`;
    }
  }

  history(): ResponseItem[] | string {
    if (this.failure !== null) return this.failure;
    return this.replay.finish().history;
  }

  get currentModel(): string {
    return this.model;
  }

  get currentPolicy(): TurnPolicy | null {
    return this.policy;
  }
}

function contextTokensOf(usage: Usage | null): number | null {
  return usage === null ? null : usage.inputTokens + usage.outputTokens;
}

function isSandboxMode(value: string): value is SandboxMode {
  return (SANDBOX_ORDER as readonly string[]).includes(value);
}

function isApprovalPolicy(value: string): value is ApprovalPolicy {
  return (APPROVAL_POLICIES as readonly string[]).includes(value);
}

/** Tool definitions per recorded policy, computed once per distinct policy. */
class ToolDefinitions {
  private readonly cache = new Map<string, ModelToolDefinition[]>();

  constructor(private readonly tools: readonly AnyTool[]) {}

  for(policy: TurnPolicy | null): ModelToolDefinition[] {
    const key = policy === null ? '' : `${policy.sandbox}\u0000${policy.approvalPolicy}`;
    let definitions = this.cache.get(key);
    if (definitions === undefined) {
      const visible =
        policy !== null && isSandboxMode(policy.sandbox) && isApprovalPolicy(policy.approvalPolicy)
          ? this.tools.filter((tool) => isToolVisible(tool, { sandbox: policy.sandbox as SandboxMode, approvalPolicy: policy.approvalPolicy as ApprovalPolicy }))
          : [...this.tools];
      definitions = visible.map(toolDefinition);
      this.cache.set(key, definitions);
    }
    return definitions;
  }
}

export interface ModelCallPage {
  calls: ModelCallView[];
  nextCursor: string | null;
}

/**
 * Every model call of a session with its rebuilt request, in file order. `offset`/`limit` page
 * through the calls (a long session's requests add up to a lot of JSON).
 */
export async function listModelCalls(
  store: SessionStore,
  sessionId: string,
  tools: readonly AnyTool[],
  page: { offset: number; limit: number | null },
): Promise<ModelCallPage> {
  const definitions = new ToolDefinitions(tools);
  const calls: ModelCallView[] = [];
  let replay: RequestReplay | null = null;
  let seen = 0;
  let more = false;
  await store.scan(sessionId, (record) => {
    if (record.type === 'session_meta') {
      replay = new RequestReplay(record.model);
      return;
    }
    if (replay === null) return;
    if (record.type === 'model_call') {
      const index = seen;
      seen += 1;
      if (index >= page.offset) {
        if (page.limit === null || calls.length < page.limit) calls.push(modelCallView(record, replay, definitions));
        else more = true;
      }
    }
    replay.add(record);
  });
  return { calls, nextCursor: more ? String(page.offset + calls.length) : null };
}

function modelCallView(
  record: Extract<SessionRecord, { type: 'model_call' }>,
  replay: RequestReplay,
  definitions: ToolDefinitions,
): ModelCallView {
  let request: ReconstructedRequest | null = null;
  let requestError: string | null = null;
  if (record.stage !== 'turn') {
    requestError = 'compaction calls send a summarisation prompt, not the history; it is not recorded';
  } else {
    const history = replay.history();
    if (typeof history === 'string') requestError = history;
    else request = { model: replay.currentModel, messages: itemsToModelMessages(history), tools: definitions.for(replay.currentPolicy) };
  }
  return {
    turn: record.turn,
    round: record.round,
    stage: record.stage,
    usage: record.usage,
    durationMs: record.durationMs,
    finishReason: record.finishReason,
    error: record.error,
    request,
    requestError,
    contextTokens: contextTokensOf(record.usage),
  };
}

/**
 * The context chart: tokens in context at each turn-stage model call, and every compaction.
 * `limitsFor` gives the window and threshold for the session's latest model; `estimate` counts
 * history items when a call reported no usage.
 */
export async function contextChart(
  store: SessionStore,
  sessionId: string,
  limitsFor: (model: string) => Promise<ContextLimits>,
  estimate: (items: readonly ResponseItem[]) => number,
): Promise<ContextView> {
  const points: ContextPoint[] = [];
  const compactions: CompactionPoint[] = [];
  let replay: RequestReplay | null = null;
  await store.scan(sessionId, (record) => {
    if (record.type === 'session_meta') {
      replay = new RequestReplay(record.model);
      return;
    }
    if (replay === null) return;
    if (record.type === 'model_call' && record.stage === 'turn') {
      const tokens = contextTokensOf(record.usage);
      if (tokens !== null) {
        points.push({ turn: record.turn, round: record.round, tokens, estimated: false });
      } else {
        const history = replay.history();
        if (typeof history !== 'string') points.push({ turn: record.turn, round: record.round, tokens: estimate(history), estimated: true });
      }
    }
    if (record.type === 'compaction') {
      const { type: _type, ...payload } = historyCompactedEvent(record);
      compactions.push({ ...payload, turn: record.turn, ts: record.ts });
    }
    replay.add(record);
  });
  const model = (replay as RequestReplay | null)?.currentModel ?? null;
  const limits = model === null ? { window: null, threshold: null } : await limitsFor(model);
  return { window: limits.window, threshold: limits.threshold, points, compactions };
}
