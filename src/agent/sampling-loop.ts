// The sampling loop: stream a round, decide at commit what it meant, run its tools, repeat.
//
// Commit semantics (the contract everything else relies on):
// - Text deltas are shown live but nothing of a round is committed until its stream completed.
//   A round whose model call fails or is cancelled commits nothing. A round whose stream broke
//   after it started is asked again (bounded, `stream_retry` event: UIs drop what it streamed).
// - A completed round with no tool calls commits one assistant message (`final_response`) and
//   the run succeeds with it.
// - A completed round with tool calls commits its assistant text (`working_message`, if any) and
//   its calls first — so a crash mid-tool leaves evidence that the call was in flight — then runs
//   the tools and commits exactly one output per call, in call order. Cancellation during the tools
//   gives unfinished calls a `CANCELLED` output, so a cleanly ended run never leaves an orphan.
// - Every run ends with exactly one terminal event.
// - A call's id is unique in the history: a provider id that is empty or already taken (providers
//   that say `call_1` every time) is replaced at commit, the original kept as `providerCallId`, and
//   the tools, events, output and every later request use the replacement.
// - A takeover may hand the loop the cut-off last round of the run it continues (`openBatch`): its
//   calls that never started run first, and the round's outputs are committed, in call order,
//   before the first model call.
// Persistence, compaction and UIs hang off `observer` and `compaction`; the model call is injected.

import { createHash } from 'node:crypto';
import {
  DEFAULT_RETRY_POLICY,
  ModelError,
  backoffDelay,
  contentParts,
  isModelError,
  requestSettings,
  resolveRetryPolicy,
  sleepAbortable,
  type ModelGateway,
  type ModelSettings,
  type ModelRequest,
  type ModelToolCall,
  type ModelResponse,
  type ModelToolDefinition,
  type ResponseFormat,
  type RetryPolicy,
  type Sleep,
  type Usage,
} from '../model/index.js';
import { itemsToModelMessages } from './items-to-messages.js';
import { loopingNotice, RepetitionGuard } from './repetition-guard.js';
import {
  CallIdAllocator,
  type FunctionCallItem,
  type FunctionCallOutputItem,
  functionCallItem,
  reasoningItem,
  type ResponseItem,
  type RuntimeRole,
  userMessage,
} from './response-items.js';
import type { RunErrorInfo, RunEvent, TerminalRunEvent, UsageStage } from './run-events.js';
import { containedEmit, type ModelCallRecord, type RunObserver } from './run-observer.js';
import { FatalToolError } from './tool.js';
import { FatalBatchError, type ToolCallOutcome, type ToolRuntime } from './tool-runtime.js';
import { UsageTracker } from './usage-tracker.js';

/** Mutable state the compaction hooks may read and replace (history in place, usage reset). */
export interface LoopState {
  readonly history: ResponseItem[];
  /** Usage reported by the last completed round, and the history length it measured. */
  lastUsage: Usage | null;
  lastUsageHistoryLength: number;
  round: number;
  readonly signal: AbortSignal;
  emit(event: RunEvent): void;
  /** Count a model call made outside the loop (e.g. a summary request) in the run's totals. */
  recordUsage(stage: UsageStage, usage: Usage | null): void;
  commit(items: readonly ResponseItem[]): Promise<void>;
  /**
   * The request the next round would send from the history as it is now: the live summary request
   * is built on it, so it shares the rounds' cached prefix. Absent outside a sampling loop.
   */
  nextRequest?(): ModelRequest;
}

/** Context management hooks; the loop calls them only at safe boundaries. */
export interface CompactionHooks {
  /** After the turn's user message is committed, before the first model call. */
  beforeTurn?(state: LoopState): Promise<void>;
  /** After a round fully committed (calls and outputs), when the loop will continue. */
  afterRound?(state: LoopState): Promise<void>;
  /** The provider rejected the request as too long. Return true if history was compacted. */
  onContextOverflow?(state: LoopState, error: ModelError): Promise<boolean>;
  /**
   * The model answered without a tool call and the answer is committed. Text returned here is
   * committed as a user message and the turn goes on with another round (a `Stop` hook that
   * blocks); null ends the turn with that answer.
   */
  afterAnswer?(state: LoopState, answer: string): Promise<string | null>;
}

/** A call of a round a takeover continues (`SamplingLoopOptions.openBatch`): its output, or null to run it now. */
export interface OpenBatchCall {
  call: FunctionCallItem;
  output: FunctionCallOutputItem | null;
}

/** The model settings (model, wire, effort, output cap, temperature) go into every round's request as they are. */
export interface SamplingLoopOptions extends ModelSettings {
  gateway: Pick<ModelGateway, 'streamResponse'>;
  sessionId: string;
  runId: string;
  resumed: boolean;
  /** History so far (mutated in place as the run commits). */
  history: ResponseItem[];
  /** Items this turn starts with (the system message of a new session, the user prompt). */
  newItems: readonly ResponseItem[];
  tools: ToolRuntime;
  signal: AbortSignal;
  observer?: RunObserver;
  compaction?: CompactionHooks;
  maxRounds?: number;
  /** Stop cleanly once the run's total tokens reach this budget. */
  tokenBudget?: number;
  /** Retries of a round whose stream broke after it started (see `StreamRetryOptions`). */
  streamRetry?: StreamRetryOptions;
  /**
   * The schema the final answer must match (`exec --output-schema`), sent with each round's request.
   * Only the rounds': a compaction's summary request, built on `nextRequest`, must stay free text.
   */
  responseFormat?: ResponseFormat;
  /**
   * The last round of the run this turn continues, whose calls are at the end of `history` with no
   * outputs yet (sessions/'s resume with `unstartedCalls`): the calls without an output run (they
   * were announced by the run before, so no `tool_requested` again), then every output is committed.
   */
  openBatch?: readonly OpenBatchCall[];
}

/**
 * A stream cut after it started (STREAM_INTERRUPTED) fails the gateway call, which never retries
 * once events have reached the caller. Nothing of the round was committed, so the loop asks the
 * round again, as Codex does with its stream retries: at most `maxRetries` times per round (default
 * 3), after a full-jitter backoff (the gateway's default policy unless `policy` says otherwise).
 */
export interface StreamRetryOptions {
  maxRetries?: number;
  policy?: Partial<RetryPolicy>;
  /** Injected by tests; must reject with an ABORTED ModelError when the signal aborts. */
  sleep?: Sleep;
}

export const DEFAULT_STREAM_RETRIES = 3;

class RunStop extends Error {
  constructor(readonly info: RunErrorInfo) {
    super(info.message);
  }
}

export async function runSamplingLoop(options: SamplingLoopOptions): Promise<TerminalRunEvent> {
  const { observer, signal, history } = options;
  const usage = new UsageTracker();
  const guard = new RepetitionGuard();
  // Seeded from the history and never reset: ids stay unique across the run even when a
  // compaction drops the calls that held them.
  const callIds = new CallIdAllocator(history);
  // A throwing observer (a UI, a log) must not end the run; it is reported as a warning instead.
  const emit = containedEmit((event: RunEvent): void => observer?.onEvent?.(event));
  const commit = async (items: readonly ResponseItem[]): Promise<void> => {
    if (items.length === 0) return;
    history.push(...items);
    await observer?.onCommit?.(items);
  };
  const state: LoopState = {
    history,
    lastUsage: null,
    lastUsageHistoryLength: 0,
    round: 0,
    signal,
    emit,
    recordUsage: (stage, value) => usage.add(stage, value),
    commit,
    nextRequest: () => roundRequest(options, history),
  };
  const finish = (event: TerminalRunEvent): TerminalRunEvent => {
    emit(event);
    return event;
  };
  const cancelled = (): TerminalRunEvent =>
    finish({ type: 'run_cancelled', reason: abortReason(signal), usage: usage.snapshot(), rounds: state.round });

  emit({
    type: 'run_started',
    sessionId: options.sessionId,
    runId: options.runId,
    model: options.model,
    wireApi: options.wireApi,
    resumed: options.resumed,
  });

  try {
    // The turn's opening items (the session's system message on a new session) are committed even
    // when the run is already cancelled: a session must never lack its system message.
    await commit(options.newItems);
    if (options.openBatch !== undefined && options.openBatch.length > 0) {
      await finishOpenBatch(options, options.openBatch, commit, emit);
    }
    if (signal.aborted) return cancelled();
    await options.compaction?.beforeTurn?.(state);

    for (;;) {
      if (signal.aborted) return cancelled();
      if (options.maxRounds !== undefined && state.round >= options.maxRounds) {
        throw new RunStop({
          code: 'MAX_ROUNDS_REACHED',
          message: `Stopped after ${options.maxRounds} rounds (--max-rounds). The session can be resumed to continue.`,
        });
      }
      state.round += 1;
      const response = await sampleRound(options, state, usage, emit);
      if (response === null) return cancelled();

      if (response.toolCalls.length === 0) {
        if (response.text.trim() === '') {
          throw new RunStop({ code: 'EMPTY_RESPONSE', message: 'The model returned neither text nor tool calls.' });
        }
        await commit(roundItems(response, [], 'final_response'));
        const goOn = signal.aborted ? null : ((await options.compaction?.afterAnswer?.(state, response.text)) ?? null);
        const limit =
          options.maxRounds !== undefined && state.round >= options.maxRounds
            ? `its ${options.maxRounds} rounds (--max-rounds) are used`
            : options.tokenBudget !== undefined && usage.totalTokens >= options.tokenBudget
              ? `it has used ${usage.totalTokens} tokens of its budget of ${options.tokenBudget}`
              : null;
        if (goOn !== null && limit !== null && !signal.aborted)
          emit({
            type: 'warning',
            code: 'STOP_HOOK_IGNORED',
            message: `A Stop hook asked the turn to go on, but ${limit}; it ends with this answer. The hook said: ${goOn}`,
          });
        if (goOn === null || limit !== null || signal.aborted)
          return finish({ type: 'run_succeeded', answer: response.text, usage: usage.snapshot(), rounds: state.round });
        await commit([userMessage(goOn)]);
        await options.compaction?.afterRound?.(state);
        continue;
      }

      const calls = response.toolCalls.map((call) => ({ ...call, id: callIds.claim(call.id) }));
      await commit(roundItems(response, calls, 'working_message'));

      let outcomes: ToolCallOutcome[];
      try {
        outcomes = await options.tools.executeBatch(calls, { runId: options.runId, round: state.round, signal, emit });
      } catch (error) {
        if (!(error instanceof FatalBatchError)) throw error;
        // Every committed call still gets its output before the run fails.
        await commit(
          error.outcomes.map((o, index) => ({
            type: 'function_call_output',
            callId: calls[index]!.id,
            name: o.name,
            output: o.output,
            isError: o.isError,
          })),
        );
        throw error.fatal;
      }
      let looping: RunErrorInfo | null = null;
      const outputs: ResponseItem[] = outcomes.map((outcome, index) => {
        const verdict = guard.record(outcome.name, response.toolCalls[index]!.arguments, outcome.output);
        let output = outcome.output;
        if (verdict.kind !== 'ok') output += loopingNotice(verdict.count);
        if (verdict.kind === 'fail' && !looping) {
          looping = {
            code: 'REPEATED_TOOL_CALL',
            message: `The model made the same ${outcome.name} call ${verdict.count} times with identical results; stopped to avoid a loop.`,
          };
        }
        // Paired by position: outcomes come in call order, one per call, even when ids repeat.
        return { type: 'function_call_output', callId: calls[index]!.id, name: outcome.name, output, isError: outcome.isError };
      });
      await commit(outputs);

      if (signal.aborted) return cancelled();
      if (looping) throw new RunStop(looping);
      if (options.tokenBudget !== undefined && usage.totalTokens >= options.tokenBudget) {
        throw new RunStop({
          code: 'TOKEN_BUDGET_EXHAUSTED',
          message: `Stopped after using ${usage.totalTokens} tokens (budget ${options.tokenBudget}). The session can be resumed to continue.`,
        });
      }
      await options.compaction?.afterRound?.(state);
    }
  } catch (error) {
    if (signal.aborted || (isModelError(error) && error.code === 'ABORTED')) return cancelled();
    return finish({ type: 'run_failed', error: describeError(error), usage: usage.snapshot(), rounds: state.round });
  }
}

/** Run the open round's unstarted calls and commit all its outputs, in call order (see `openBatch`). */
async function finishOpenBatch(
  options: SamplingLoopOptions,
  batch: readonly OpenBatchCall[],
  commit: (items: readonly ResponseItem[]) => Promise<void>,
  emit: (event: RunEvent) => void,
): Promise<void> {
  const pending = batch
    .filter((entry) => entry.output === null)
    .map(({ call }) => ({ id: call.callId, name: call.name, arguments: call.arguments }));
  let outcomes: ToolCallOutcome[];
  let fatal: unknown = null;
  try {
    outcomes = await options.tools.executeBatch(pending, { runId: options.runId, round: 0, signal: options.signal, emit, announced: true });
  } catch (error) {
    if (!(error instanceof FatalBatchError)) throw error;
    // Every call still gets its output before the run fails.
    outcomes = error.outcomes;
    fatal = error.fatal;
  }
  let next = 0;
  await commit(
    batch.map((entry): FunctionCallOutputItem => {
      if (entry.output !== null) return entry.output;
      const outcome = outcomes[next]!;
      next += 1;
      return {
        type: 'function_call_output',
        callId: entry.call.callId,
        name: outcome.name,
        output: outcome.output,
        isError: outcome.isError,
      };
    }),
  );
  if (fatal !== null) throw fatal;
}

/**
 * OpenAI's `prompt_cache_key` for a session: a digest, so the session id itself never leaves the
 * machine, short enough for the field's limit, the same on every round and after a resume.
 */
export function promptCacheKey(sessionId: string): string {
  // Asked for every round of a session: the digest of the last session asked is kept.
  if (lastCacheKey?.sessionId !== sessionId)
    lastCacheKey = { sessionId, key: `gb-${createHash('sha256').update(sessionId).digest('hex').slice(0, 32)}` };
  return lastCacheKey.key;
}
let lastCacheKey: { sessionId: string; key: string } | null = null;

function roundRequest(options: SamplingLoopOptions, history: readonly ResponseItem[]): ModelRequest & { tools: ModelToolDefinition[] } {
  return {
    ...requestSettings(options),
    messages: itemsToModelMessages(history),
    tools: options.tools.definitions(),
    promptCacheKey: promptCacheKey(options.sessionId),
  };
}

/**
 * Stream one round. Returns the completed response, or null when cancelled. On a context
 * overflow it lets the compaction hook shrink history and retries the round once.
 */
async function sampleRound(
  options: SamplingLoopOptions,
  state: LoopState,
  usage: UsageTracker,
  emit: (event: RunEvent) => void,
): Promise<ModelResponse | null> {
  let overflowRetried = false;
  let streamRetries = 0;
  const maxStreamRetries = options.streamRetry?.maxRetries ?? DEFAULT_STREAM_RETRIES;
  const retryPolicy = resolveRetryPolicy({ ...DEFAULT_RETRY_POLICY, ...options.streamRetry?.policy });
  for (;;) {
    const request = {
      ...roundRequest(options, state.history),
      ...(options.responseFormat ? { responseFormat: options.responseFormat } : {}),
    };
    emit({
      type: 'model_requested',
      round: state.round,
      stage: 'turn',
      messageCount: request.messages.length,
      toolCount: request.tools.length,
    });
    const started = performance.now();
    const record = (response: ModelResponse | null, error: ModelCallRecord['error']): Promise<void> | void =>
      options.observer?.onModelCall?.({
        round: state.round,
        stage: 'turn',
        request,
        usage: response?.usage ?? null,
        finishReason: response?.finishReason ?? null,
        durationMs: Math.round(performance.now() - started),
        error,
      });
    let response: ModelResponse | null = null;
    // What this attempt showed (text and reasoning): void if its stream breaks.
    let streamedChars = 0;
    try {
      const stream = options.gateway.streamResponse(request, {
        signal: options.signal,
        onRetry: (notice) =>
          emit({ type: 'model_retry', round: state.round, attempt: notice.attempt, delayMs: notice.delayMs, error: notice.error }),
        onWarning: (warning) => emit({ type: 'warning', ...warning }),
      });
      for await (const event of stream) {
        if (options.signal.aborted) break;
        if (event.type === 'text-delta') {
          streamedChars += event.delta.length;
          emit({ type: 'assistant_delta', round: state.round, delta: event.delta });
        } else if (event.type === 'reasoning-delta') {
          streamedChars += event.delta.length;
          emit({ type: 'reasoning_delta', round: state.round, delta: event.delta });
        } else if (event.type === 'completed') response = event.response;
      }
    } catch (error) {
      usage.add('turn', null);
      await record(null, { code: isModelError(error) ? error.code : 'INTERNAL', message: (error as Error).message });
      if (options.signal.aborted) return null;
      if (
        isModelError(error) &&
        error.code === 'CONTEXT_OVERFLOW' &&
        !overflowRetried &&
        options.compaction?.onContextOverflow &&
        (await options.compaction.onContextOverflow(state, error))
      ) {
        overflowRetried = true;
        continue;
      }
      if (isModelError(error) && error.code === 'STREAM_INTERRUPTED' && streamRetries < maxStreamRetries) {
        streamRetries += 1;
        const delayMs = backoffDelay(streamRetries, retryPolicy);
        emit({
          type: 'stream_retry',
          round: state.round,
          attempt: streamRetries,
          maxAttempts: maxStreamRetries,
          delayMs,
          discardedChars: streamedChars,
          error: { code: error.code, message: error.message },
        });
        // A cancel during the wait rejects with ABORTED: the run ends cancelled, nothing committed.
        await (options.streamRetry?.sleep ?? sleepAbortable)(delayMs, options.signal);
        continue;
      }
      throw error;
    }
    if (options.signal.aborted) {
      // Still a model call the provider may bill: counted and recorded, its partial output dropped.
      usage.add('turn', null);
      await record(null, { code: 'ABORTED', message: 'Cancelled while the response was streaming.' });
      return null;
    }
    if (!response) throw new ModelError('STREAM_INTERRUPTED', 'The model stream ended without a completed response.');
    usage.add('turn', response.usage);
    await record(response, null);
    emit({
      type: 'model_completed',
      round: state.round,
      stage: 'turn',
      usage: response.usage,
      finishReason: response.finishReason,
      durationMs: Math.round(performance.now() - started),
    });
    state.lastUsage = response.usage;
    // The usage measured the request, i.e. history before this round's items are committed.
    state.lastUsageHistoryLength = state.history.length;
    return response;
  }
}

/**
 * A completed round's items in the order the provider produced them (reasoning, text and calls may
 * interleave: Anthropic's interleaved thinking must go back as received). `calls` are the round's
 * calls under their history ids, in call order. In a final round only the last text is the
 * `final_response`; earlier texts are working messages.
 */
function roundItems(response: ModelResponse, calls: readonly ModelToolCall[], textRole: RuntimeRole): ResponseItem[] {
  const parts = contentParts(response);
  const lastText = parts.findLastIndex((part) => part.type === 'text');
  const items: ResponseItem[] = [];
  let callIndex = 0;
  for (const [index, part] of parts.entries()) {
    if (part.type === 'reasoning') {
      items.push(reasoningItem(part.reasoning));
    } else if (part.type === 'text') {
      if (part.text === '') continue;
      items.push({
        type: 'message',
        role: 'assistant',
        content: part.text,
        runtimeRole: textRole === 'final_response' && index !== lastText ? 'working_message' : textRole,
        ...(part.providerFields === undefined ? {} : { providerFields: part.providerFields }),
      });
    } else {
      const call = calls[callIndex];
      const provided = response.toolCalls[callIndex];
      callIndex += 1;
      if (call !== undefined && provided !== undefined) items.push(functionCallItem(call, provided.id));
    }
  }
  return items;
}

function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (typeof reason === 'string') return reason;
  if (reason instanceof Error && reason.name !== 'AbortError') return reason.message;
  return 'Cancelled by the user.';
}

export function describeError(error: unknown): RunErrorInfo {
  if (error instanceof RunStop) return error.info;
  if (isModelError(error)) return { code: error.code, message: error.message };
  if (error instanceof FatalToolError) return { code: error.code, message: error.message };
  const code = (error as { code?: unknown })?.code;
  return {
    code: typeof code === 'string' && /^[A-Z_]+$/.test(code) ? code : 'INTERNAL_ERROR',
    message: (error as Error)?.message ?? String(error),
  };
}
