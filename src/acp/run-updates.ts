// A running turn's events as ACP `session/update`s: text and reasoning as chunks, each tool call
// as `tool_call` then `tool_call_update`s (with the diff of the files it wrote, read from the disk
// before and after it ran, and its output), usage after each model call, compaction as it
// happens. Updates go out in event order: the work some of them need (reading a file) is chained.

import type { SessionUpdate, ToolCallContent } from '@agentclientprotocol/sdk';
import type { RunEvent, UsageStage } from '../agent/index.js';
import { estimateCost, type ModelEntry, type Usage } from '../model/index.js';
import { readProjectFile } from '../workspace/index.js';
import { planTracker, type Checklist } from '../views/index.js';
import { outputContent, toolCallFields, writtenFiles } from './tool-call-fields.js';

/** A plan call's plan as ACP's `plan` update: the whole list, each step as an entry. */
export function planUpdate(plan: Checklist): SessionUpdate {
  return {
    sessionUpdate: 'plan',
    entries: plan.steps.map((step) => ({ content: step.step, priority: 'medium', status: step.status })),
  };
}

export interface UsageLimits {
  /** What a request may hold (compaction's `inputWindow`). */
  window: number;
  entry: Pick<ModelEntry, 'pricing'> | null;
}

/** The session's context fullness and cost so far, as `usage_update` reports them. */
export class UsageMeter {
  private used = 0;
  private cost: number | null = null;

  constructor(readonly limits: UsageLimits | null) {}

  /** One model call; only a turn call says how full the context is. */
  add(usage: Usage | null, stage: UsageStage): void {
    if (usage === null) return;
    if (stage === 'turn') this.used = usage.inputTokens + usage.outputTokens;
    const cost = this.limits?.entry ? estimateCost(usage, this.limits.entry) : null;
    if (cost !== null) this.cost = (this.cost ?? 0) + cost.total;
  }

  compacted(tokensAfter: number): void {
    this.used = tokensAfter;
  }

  /** Null without a known window: `size` is required and a guess would mislead. */
  update(): SessionUpdate | null {
    if (this.limits === null) return null;
    return {
      sessionUpdate: 'usage_update',
      used: this.used,
      size: this.limits.window,
      ...(this.cost === null ? {} : { cost: { amount: Number(this.cost.toFixed(6)), currency: 'USD' } }),
    };
  }
}

export interface RunUpdatesOptions {
  root: string;
  meter: UsageMeter;
  /** The client said it shows compaction (`clientCapabilities.session.compaction`). */
  compaction: boolean;
  send: (update: SessionUpdate) => Promise<void>;
  log: (line: string) => void;
}

/** A file's text for a diff, or null when it is missing, too big, binary-ish, a secret or outside the root. */
async function diffText(path: string, root: string): Promise<string | null> {
  try {
    const text = await readProjectFile(path, { root });
    return text !== null && !text.includes('\u0000') ? text : null;
  } catch {
    return null;
  }
}

export class RunUpdates {
  private chain: Promise<void> = Promise.resolve();
  /** Per call: the written files' text before it ran (null: none, or not shown). */
  private readonly plan = planTracker();
  private readonly before = new Map<string, { name: string; files: Array<{ path: string; text: string | null }> }>();

  constructor(private readonly options: RunUpdatesOptions) {}

  /** Sends an update of the caller's after those of the events handled so far. */
  send(update: SessionUpdate): Promise<void> {
    this.chain = this.chain.then(() => this.options.send(update));
    return this.chain;
  }

  handle(event: RunEvent): void {
    this.chain = this.chain
      .then(() => this.translate(event))
      .catch((error: unknown) => this.options.log(`acp: update not sent: ${String(error)}`));
  }

  /** Every update of the events handled so far has been sent. */
  flush(): Promise<void> {
    return this.chain;
  }

  private async translate(event: RunEvent): Promise<void> {
    const { send, root, meter } = this.options;
    switch (event.type) {
      case 'assistant_delta':
        if (event.delta !== '') await send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: event.delta } });
        return;
      case 'reasoning_delta':
        if (event.delta !== '') await send({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: event.delta } });
        return;
      case 'tool_requested': {
        this.plan.observe(event);
        const files = writtenFiles(event.name, event.arguments, root);
        this.before.set(event.callId, {
          name: event.name,
          files: await Promise.all(files.map(async (path) => ({ path, text: await diffText(path, root) }))),
        });
        const fields = toolCallFields(event.name, event.arguments, root, false);
        await send({ sessionUpdate: 'tool_call', toolCallId: event.callId, status: 'pending', ...fields });
        return;
      }
      case 'tool_started':
        await send({ sessionUpdate: 'tool_call_update', toolCallId: event.callId, status: 'in_progress' });
        return;
      case 'tool_finished': {
        const content: ToolCallContent[] = [];
        const before = this.before.get(event.callId);
        this.before.delete(event.callId);
        if (!event.isError && before !== undefined) {
          for (const file of before.files) {
            const after = await diffText(file.path, root);
            // A secret or unreadable file shows no text either side; its location still says which.
            if (after === null && file.text === null) continue;
            if (after === file.text) continue;
            content.push({ type: 'diff', path: file.path, oldText: file.text, newText: after ?? '' });
          }
        }
        content.push(...outputContent(event.output));
        await send({
          sessionUpdate: 'tool_call_update',
          toolCallId: event.callId,
          status: event.isError ? 'failed' : 'completed',
          content,
          rawOutput: { output: event.output, isError: event.isError },
        });
        const plan = this.plan.observe(event);
        if (plan !== null) await send(planUpdate(plan));
        return;
      }
      case 'model_completed': {
        meter.add(event.usage, event.stage);
        const update = meter.update();
        if (update !== null) await send(update);
        return;
      }
      case 'history_compacted': {
        meter.compacted(event.tokensAfter);
        if (this.options.compaction) {
          await send({ sessionUpdate: 'compaction_update', compactionId: event.compactionId, status: 'completed' });
        }
        const update = meter.update();
        if (update !== null) await send(update);
        return;
      }
      case 'warning':
        this.options.log(`glassbox: warning [${event.code}]: ${event.message}`);
        return;
      default:
        return;
    }
  }
}
