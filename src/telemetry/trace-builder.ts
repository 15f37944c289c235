// The span tree of one run, built from the run's events, whether they arrive live or are read back
// from a session file: one builder for both, so a trace exported after the fact has the same
// shape and names as the live one. Spans go to an abstract sink (OpenTelemetry in production, a
// list in unit tests). Names and attributes follow the OpenTelemetry GenAI semantic conventions:
//
//   invoke_agent glassbox                      (the run: one turn of a session)
//   ├─ compaction                              (before the first round, or within a round)
//   │  └─ chat <model>        glassbox.stage=compaction
//   └─ round <n>
//      ├─ chat <model>        glassbox.stage=turn
//      └─ execute_tool <tool>
//         ├─ hook <event>     (a PreToolUse or PostToolUse hook; a prompt's hooks hang off the run)
//         ├─ approval_wait <tool>
//         └─ exec <tool>      (the tool itself: a sandboxed command, a file edit, an MCP call)

import type { ModelCallRecord, RunEvent } from '../agent/index.js';
import { PLAN_TOOL_NAME } from '../protocol/index.js';
import { planUpdate } from './plan-update.js';
import { providerNameOf, type ModelMessage, type Usage, type WireApi } from '../model/index.js';

export type AttributeValue = string | number | boolean | string[];
export type Attributes = Record<string, AttributeValue>;

export interface SpanHandle {
  set(attributes: Attributes): void;
  event(name: string, atMs: number, attributes?: Attributes): void;
  /** `error` marks the span failed (status ERROR) with that message. */
  end(atMs: number, error?: string): void;
}

export interface SpanSink {
  start(
    name: string,
    options: { parent: SpanHandle | null; startMs: number; kind: 'internal' | 'client'; attributes: Attributes },
  ): SpanHandle;
}

/** What the builder needs of a model call; a live `ModelCallRecord` or a session's `model_call` record. */
export type ModelCallFacts = Pick<ModelCallRecord, 'round' | 'stage' | 'usage' | 'finishReason' | 'error' | 'durationMs'> & {
  request?: ModelCallRecord['request'];
};

export interface TraceBuilderOptions {
  traceContent: boolean;
  /** Applied to every content attribute (prompts, answers, arguments, results). */
  redact: (text: string) => string;
}

/** Content attributes are clipped: collectors refuse or truncate huge attributes anyway. */
const MAX_CONTENT_CHARS = 32_000;
const MAX_FREE_TEXT_CHARS = 2_000;

/** `gen_ai.provider.name`: the wire's provider family (model/dialects.ts); a session's unknown wire counts as OpenAI's. */
export function providerName(wireApi: WireApi | string): string {
  return providerNameOf(wireApi);
}

function usageAttributes(usage: Usage | null | undefined): Attributes {
  if (!usage) return {};
  const attributes: Attributes = { 'gen_ai.usage.input_tokens': usage.inputTokens, 'gen_ai.usage.output_tokens': usage.outputTokens };
  if (usage.cachedInputTokens !== null && usage.cachedInputTokens !== undefined)
    attributes['gen_ai.usage.cache_read.input_tokens'] = usage.cachedInputTokens;
  if (usage.reasoningTokens) attributes['glassbox.usage.reasoning_tokens'] = usage.reasoningTokens;
  return attributes;
}

/** The error code our tools put first in an error output (`Error [CODE]: …`). */
function errorCode(output: string): string {
  return /^Error \[([A-Z0-9_]+)\]/.exec(output)?.[1] ?? 'TOOL_ERROR';
}

interface ToolSpans {
  span: SpanHandle;
  approval: SpanHandle | null;
  exec: SpanHandle | null;
  /** A plan call's arguments, read when it finished (a refused plan changed nothing). */
  plan?: string;
}

export class TraceBuilder {
  private run: SpanHandle | null = null;
  private model = '';
  private provider = 'openai';
  private round: { n: number; span: SpanHandle } | null = null;
  private modelSpan: SpanHandle | null = null;
  private compaction: SpanHandle | null = null;
  private readonly tools = new Map<string, ToolSpans>();
  private answer = '';

  constructor(
    private readonly sink: SpanSink,
    private readonly options: TraceBuilderOptions,
  ) {}

  private content(text: string): string {
    const clean = this.options.redact(text);
    return clean.length > MAX_CONTENT_CHARS ? `${clean.slice(0, MAX_CONTENT_CHARS)}… [clipped]` : clean;
  }

  /**
   * Free text that is not a message's content but can carry some (a warning quoting an MCP
   * server's stderr, a provider's error): always redacted, always short.
   */
  private freeText(text: string): string {
    const clean = this.options.redact(text);
    return clean.length > MAX_FREE_TEXT_CHARS ? `${clean.slice(0, MAX_FREE_TEXT_CHARS)}… [clipped]` : clean;
  }

  /**
   * A permission or approval reason is content: it quotes what it judges (the command's words,
   * `MYSQL_PWD=…` included; the paths; an escalation's justification in the model's words), and a
   * secret of no known shape passes redaction. Without --trace-content the rule and the decision
   * say why; the reason is left out.
   */
  private reason(key: string, text: string): Attributes {
    return this.options.traceContent ? { [key]: this.freeText(text) } : {};
  }

  private parent(): SpanHandle | null {
    return this.round?.span ?? this.run;
  }

  event(event: RunEvent, atMs: number): void {
    switch (event.type) {
      case 'run_started':
        this.model = event.model;
        this.provider = providerName(event.wireApi);
        this.run = this.sink.start('invoke_agent glassbox', {
          parent: null,
          startMs: atMs,
          kind: 'internal',
          attributes: {
            'gen_ai.operation.name': 'invoke_agent',
            'gen_ai.agent.name': 'glassbox',
            'gen_ai.conversation.id': event.sessionId,
            'gen_ai.request.model': event.model,
            'gen_ai.provider.name': this.provider,
            'glassbox.run_id': event.runId,
            'glassbox.wire_api': event.wireApi,
            'glassbox.resumed': event.resumed,
          },
        });
        return;
      case 'model_requested':
        this.modelRequested(event.round, event.stage, atMs);
        return;
      case 'model_retry':
        this.modelSpan?.event('retry', atMs, {
          'glassbox.retry.attempt': event.attempt,
          'glassbox.retry.delay_ms': event.delayMs,
          'error.type': event.error.code,
        });
        return;
      case 'stream_retry':
        this.modelSpan?.event('stream_retry', atMs, {
          'glassbox.retry.attempt': event.attempt,
          'glassbox.retry.delay_ms': event.delayMs,
          'glassbox.retry.discarded_chars': event.discardedChars,
          'error.type': event.error.code,
        });
        this.answer = '';
        return;
      case 'assistant_delta':
        this.answer += event.delta;
        return;
      case 'tool_requested': {
        const attributes: Attributes = {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': event.name,
          'gen_ai.tool.call.id': event.callId,
          'gen_ai.tool.type': event.name.startsWith('mcp__') ? 'extension' : 'function',
          'glassbox.round': event.round,
        };
        if (this.options.traceContent) attributes['gen_ai.tool.call.arguments'] = this.content(event.arguments);
        const span = this.sink.start(`execute_tool ${event.name}`, { parent: this.parent(), startMs: atMs, kind: 'internal', attributes });
        this.tools.set(event.callId, {
          span,
          approval: null,
          exec: null,
          ...(event.name === PLAN_TOOL_NAME ? { plan: event.arguments } : {}),
        });
        return;
      }
      case 'tool_permission_decided':
        this.tools.get(event.callId)?.span.set({
          'glassbox.permission.decision': event.decision,
          'glassbox.permission.rule': event.rule,
          ...this.reason('glassbox.permission.reason', event.reason),
        });
        return;
      case 'approval_requested': {
        const tool = this.tools.get(event.callId);
        if (!tool) return;
        const attributes: Attributes = { ...this.reason('glassbox.approval.reason', event.reason) };
        if (this.options.traceContent) attributes['glassbox.approval.summary'] = this.content(event.summary);
        tool.approval = this.sink.start(`approval_wait ${event.name}`, { parent: tool.span, startMs: atMs, kind: 'internal', attributes });
        return;
      }
      case 'approval_resolved': {
        const tool = this.tools.get(event.callId);
        if (!tool?.approval) return;
        tool.approval.set({ 'glassbox.approval.decision': event.decision, 'glassbox.approval.by': event.by });
        tool.span.set({ 'glassbox.approval.decision': event.decision });
        tool.approval.end(atMs);
        tool.approval = null;
        return;
      }
      case 'tool_started': {
        const tool = this.tools.get(event.callId);
        if (tool)
          tool.exec = this.sink.start(`exec ${event.name}`, {
            parent: tool.span,
            startMs: atMs,
            kind: 'internal',
            attributes: { 'gen_ai.tool.name': event.name },
          });
        return;
      }
      case 'tool_finished': {
        const tool = this.tools.get(event.callId);
        if (!tool) return;
        const error = event.isError ? errorCode(event.output) : undefined;
        const attributes: Attributes = { 'glassbox.tool.is_error': event.isError, 'glassbox.tool.duration_ms': event.durationMs };
        if (error) attributes['error.type'] = error;
        if (this.options.traceContent) attributes['gen_ai.tool.call.result'] = this.content(event.output);
        tool.span.set(attributes);
        if (tool.plan !== undefined && !event.isError)
          planUpdate(tool.span, tool.plan, atMs, this.options.traceContent ? (text) => this.content(text) : null);
        tool.approval?.end(atMs);
        tool.exec?.end(atMs, error);
        tool.span.end(atMs, error);
        this.tools.delete(event.callId);
        return;
      }
      case 'history_compacted': {
        const attributes: Attributes = {
          'glassbox.compaction.id': event.compactionId,
          'glassbox.compaction.trigger': event.trigger,
          'glassbox.compaction.phase': event.phase,
          'glassbox.compaction.kind': event.kind,
          'glassbox.compaction.tokens_before': event.tokensBefore,
          'glassbox.compaction.tokens_after': event.tokensAfter,
          'glassbox.compaction.items_removed': event.itemsRemoved,
          'glassbox.compaction.items_kept': event.itemsKept,
          'glassbox.compaction.estimated': event.estimated,
        };
        if (this.options.traceContent) attributes['glassbox.compaction.summary'] = this.content(event.summary);
        // A prune calls no model: its span is the instant it happened.
        const span =
          this.compaction ?? this.sink.start('compaction', { parent: this.parent(), startMs: atMs, kind: 'internal', attributes: {} });
        span.set(attributes);
        span.end(atMs);
        this.compaction = null;
        return;
      }
      case 'hook_ran': {
        // Reported once it ended: the span runs from its start (end minus its duration) to now.
        const attributes: Attributes = {
          'glassbox.hook.event': event.event,
          'glassbox.hook.source': event.source,
          'glassbox.hook.file': event.file,
          'glassbox.hook.entry': event.entry,
          'glassbox.hook.outcome': event.outcome,
          'glassbox.hook.timed_out': event.timedOut,
          'glassbox.hook.sandboxed': event.sandboxed,
          ...(event.exitCode === null ? {} : { 'glassbox.hook.exit_code': event.exitCode }),
          ...(event.reason === null ? {} : this.reason('glassbox.hook.reason', event.reason)),
        };
        if (this.options.traceContent) {
          attributes['glassbox.hook.command'] = this.content(event.command);
          attributes['glassbox.hook.input'] = this.content(event.input);
          attributes['glassbox.hook.stdout'] = this.content(event.stdout);
          attributes['glassbox.hook.stderr'] = this.content(event.stderr);
        }
        const parent = (event.callId === undefined ? undefined : this.tools.get(event.callId)?.span) ?? this.parent();
        const span = this.sink.start(`hook ${event.event}`, { parent, startMs: atMs - event.durationMs, kind: 'internal', attributes });
        span.end(atMs, event.outcome === 'failed' ? (event.reason ?? 'the hook failed') : undefined);
        return;
      }
      case 'warning':
        this.run?.event('warning', atMs, { 'glassbox.warning.code': event.code, 'glassbox.warning.message': this.freeText(event.message) });
        return;
      case 'run_succeeded':
      case 'run_failed':
      case 'run_cancelled': {
        this.closeOpen(atMs, event.type === 'run_cancelled' ? 'cancelled' : 'the run ended first');
        const attributes: Attributes = {
          ...usageAttributes(event.usage.total),
          'glassbox.rounds': event.rounds,
          'glassbox.model_calls': event.usage.calls,
          'glassbox.outcome': event.type.slice(4),
        };
        if (event.type === 'run_failed') attributes['error.type'] = event.error.code;
        if (event.type === 'run_cancelled') attributes['glassbox.cancel_reason'] = event.reason;
        if (event.type === 'run_succeeded' && this.options.traceContent) attributes['glassbox.answer'] = this.content(event.answer);
        this.run?.set(attributes);
        this.run?.end(atMs, event.type === 'run_failed' ? this.freeText(`${event.error.code}: ${event.error.message}`) : undefined);
        this.run = null;
        return;
      }
      default:
        return;
    }
  }

  private modelRequested(round: number, stage: ModelCallFacts['stage'], atMs: number): void {
    if (stage === 'turn') {
      // A compaction that never reported (its summary failed) ends where the next round begins.
      this.compaction?.end(atMs, 'the compaction did not complete');
      this.compaction = null;
      if (this.round?.n !== round) {
        this.round?.span.end(atMs);
        this.round = {
          n: round,
          span: this.sink.start(`round ${round}`, {
            parent: this.run,
            startMs: atMs,
            kind: 'internal',
            attributes: { 'glassbox.round': round },
          }),
        };
      }
    } else {
      this.compaction ??= this.sink.start('compaction', { parent: this.parent(), startMs: atMs, kind: 'internal', attributes: {} });
    }
    this.answer = '';
    this.modelSpan?.end(atMs, 'superseded');
    this.modelSpan = this.sink.start(`chat ${this.model}`, {
      parent: stage === 'turn' ? this.parent() : this.compaction,
      startMs: atMs,
      kind: 'client',
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': this.model,
        'gen_ai.provider.name': this.provider,
        'glassbox.stage': stage,
        'glassbox.round': round,
      },
    });
  }

  /** A model call finished (or failed); opens its span first when no `model_requested` was seen. */
  modelCall(call: ModelCallFacts, atMs: number): void {
    if (!this.modelSpan) this.modelRequested(call.round, call.stage, atMs - call.durationMs);
    const span = this.modelSpan!;
    const attributes: Attributes = { ...usageAttributes(call.usage), 'glassbox.duration_ms': call.durationMs };
    if (call.finishReason) attributes['gen_ai.response.finish_reasons'] = [call.finishReason];
    if (call.error) attributes['error.type'] = call.error.code;
    if (this.options.traceContent && call.request) {
      attributes['gen_ai.input.messages'] = this.content(JSON.stringify(call.request.messages.map(semconvMessage)));
      if (!call.error && this.answer !== '') {
        attributes['gen_ai.output.messages'] = this.content(
          JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: this.answer }] }]),
        );
      }
    }
    span.set(attributes);
    span.end(atMs, call.error ? this.freeText(`${call.error.code}: ${call.error.message}`) : undefined);
    this.modelSpan = null;
  }

  private closeOpen(atMs: number, why: string): void {
    for (const tool of this.tools.values()) {
      tool.approval?.end(atMs, why);
      tool.exec?.end(atMs, why);
      tool.span.end(atMs, why);
    }
    this.tools.clear();
    this.modelSpan?.end(atMs, why);
    this.modelSpan = null;
    this.compaction?.end(atMs, why);
    this.compaction = null;
    this.round?.span.end(atMs);
    this.round = null;
  }

  /** Ends whatever is still open (a run that stopped without a terminal event). */
  close(atMs: number): void {
    this.closeOpen(atMs, 'the run stopped without ending');
    this.run?.end(atMs, 'the run stopped without ending');
    this.run = null;
  }
}

/** An IR message in the GenAI conventions' message shape (`role` + `parts`). */
function semconvMessage(message: ModelMessage): Record<string, unknown> {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, parts: [{ type: 'text', content: message.content }] };
    case 'assistant':
      return {
        role: 'assistant',
        parts: [
          ...(message.content ? [{ type: 'text', content: message.content }] : []),
          ...message.toolCalls.map((call) => ({ type: 'tool_call', id: call.id, name: call.name, arguments: call.arguments })),
        ],
      };
    case 'tool':
      return { role: 'tool', parts: [{ type: 'tool_call_response', id: message.toolCallId, response: message.content }] };
  }
}
