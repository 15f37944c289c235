// What the workbench shows about a session's model calls and context, derived from its records.
// Session files store no requests (they would grow quadratically), so each request is rebuilt by
// replaying the session up to that call: replay is deterministic, which is also what makes resume
// send byte-identical history. Tools are listed as this server defines them under the turn's policy.

import { toolDefinition, type AnyTool, type ResponseItem } from '../agent/index.js';
import type { SandboxMode } from '../workspace/index.js';
import type { ModelToolDefinition, Usage } from '../model/index.js';
import { historyCompactedEvent } from '../compaction/index.js';
import { APPROVAL_POLICIES, isToolVisible, type ApprovalPolicy } from '../permissions/index.js';
import { HistoryReplay, type SessionRecord, type SessionStore, type TurnPolicy } from '../sessions/index.js';
import { SANDBOX_ORDER } from './server-settings.js';
import { scanLineage } from './session-lineage.js';
import { skillContextCost, toolsOffered } from '../runner/index.js';
import type { CompactionPoint, ContextPoint, ContextView } from '../protocol/index.js';

// The chart's shape is protocol/'s (`GET /api/sessions/:id/context`); working it out is done here.
export type { CompactionPoint, ContextPoint, ContextView } from '../protocol/index.js';

export interface ContextLimits {
  window: number | null;
  threshold: number | null;
}

/** Replays a session one record at a time and says, at any point, what the model was sent. */
export class RequestReplay {
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
export class ToolDefinitions {
  private readonly cache = new Map<string, ModelToolDefinition[]>();

  constructor(private readonly tools: readonly AnyTool[]) {}

  /** `history`: the request's items, which decide whether the skill tool was offered. */
  for(policy: TurnPolicy | null, history: readonly ResponseItem[]): ModelToolDefinition[] {
    const offered = toolsOffered(this.tools, history);
    const key = `${policy === null ? '' : `${policy.sandbox}\u0000${policy.approvalPolicy}`}\u0000${offered.length}`;
    let definitions = this.cache.get(key);
    if (definitions === undefined) {
      const visible =
        policy !== null && isSandboxMode(policy.sandbox) && isApprovalPolicy(policy.approvalPolicy)
          ? offered.filter((tool) =>
              isToolVisible(tool, { sandbox: policy.sandbox as SandboxMode, approvalPolicy: policy.approvalPolicy as ApprovalPolicy }),
            )
          : offered;
      definitions = visible.map(toolDefinition);
      this.cache.set(key, definitions);
    }
    return definitions;
  }
}

/**
 * The context chart: tokens in context at each turn-stage model call, and every compaction.
 * The window and threshold are those the latest turn recorded; `limitsFor` gives them for the
 * session's latest model where it did not (a file from before they were); `estimate` counts
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
  let callIndex = -1;
  // The limits the session's latest turn recorded; older files did not record them.
  let recorded: ContextLimits | null = null;
  // A fork's chart starts with its parent's calls up to the fork point (see session-lineage.ts).
  await scanLineage(store, sessionId, ({ record }) => {
    if (record.type === 'session_meta') {
      replay ??= new RequestReplay(record.model);
      return;
    }
    if (replay === null) return;
    if (record.type === 'turn_started')
      recorded = record.compaction ? { window: record.compaction.inputWindow, threshold: record.compaction.threshold } : null;
    if (record.type === 'model_call') callIndex += 1;
    if (record.type === 'model_call' && record.stage === 'turn') {
      const tokens = contextTokensOf(record.usage);
      if (tokens !== null) {
        points.push({ turn: record.turn, round: record.round, callIndex, tokens, estimated: false });
      } else {
        const history = replay.history();
        if (typeof history !== 'string')
          points.push({ turn: record.turn, round: record.round, callIndex, tokens: estimate(history), estimated: true });
      }
    }
    if (record.type === 'compaction') {
      const { type: _type, ...payload } = historyCompactedEvent(record);
      compactions.push({ ...payload, turn: record.turn, ts: record.ts });
    }
    replay.add(record);
  });
  const model = (replay as RequestReplay | null)?.currentModel ?? null;
  // What the session ran with; for a file that did not record it, what the server would use now.
  const limits = (recorded as ContextLimits | null) ?? (model === null ? { window: null, threshold: null } : await limitsFor(model));
  const history = (replay as RequestReplay | null)?.history() ?? null;
  const skills = history === null || typeof history === 'string' ? null : skillContextCost(history);
  return { window: limits.window, threshold: limits.threshold, points, compactions, skills };
}
