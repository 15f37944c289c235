// Runs the sampling loop with real compaction hooks against the scripted fake provider, through
// the real SDK and gateway, and records what happened. Shared by the compaction tests.

import { z } from 'zod';
import type { CompactionHooks, ModelCallRecord, ResponseItem, RunEvent, TerminalRunEvent, Tool } from '../../src/agent/index.js';
import {
  createCompactionHooks,
  type CompactionController,
  type CompactionEntry,
  type CompactionSettings,
} from '../../src/compaction/index.js';
import type { ModelGateway, WireApi } from '../../src/model/index.js';
import type { CapturedRequest, FakeProvider, FakeProviderOptions, ScriptedTurn } from '../../src/testing/index.js';
import { sentTranscript } from '../helpers/sent-requests.js';
import { runLoop } from '../helpers/loop-harness.js';

export const SUMMARY_MARKER = 'You are compacting the working history';

/** A request the compactor made (no tools, the summary template), in either wire format. */
export function isSummaryRequest(request: CapturedRequest): boolean {
  return request.rawBody.includes(SUMMARY_MARKER);
}

export function turnRequests(provider: FakeProvider): CapturedRequest[] {
  return provider.requests.filter((request) => !isSummaryRequest(request));
}

export function summaryRequests(provider: FakeProvider): CapturedRequest[] {
  return provider.requests.filter(isSummaryRequest);
}

/**
 * The conversation items of a captured request, normalized across the wire APIs. Consecutive user
 * texts are one entry, joined by a blank line: the Chat dialect sends them so (strict chat templates
 * refuse two user messages in a row), and Anthropic's turn holds them as one user turn.
 */
export function sentMessages(request: CapturedRequest): Array<{ kind: string; text: string }> {
  const out: Array<{ kind: string; text: string }> = [];
  for (const entry of wireEntries(request)) {
    const last = out[out.length - 1];
    if (entry.kind === 'user' && last?.kind === 'user') last.text = `${last.text}\n\n${entry.text}`;
    else out.push({ ...entry });
  }
  return out;
}

function wireEntries(request: CapturedRequest): Array<{ kind: string; text: string }> {
  return sentTranscript(request).map((entry) => {
    if (entry.kind === 'call') return { kind: 'function_call', text: entry.arguments };
    if (entry.kind === 'output') return { kind: 'function_call_output', text: entry.text };
    return { kind: entry.role, text: entry.text };
  });
}

/** Prose-like text of exactly `size` characters: about four characters per token, like real output. */
export function filler(head: string, size: number): string {
  const words = ['lorem', 'ipsum', 'dolor', 'sit', 'amet', 'consectetur', 'adipiscing', 'elit', 'sed', 'eiusmod'];
  let text = head;
  for (let index = 0; text.length < size; index += 1) text += ` ${words[(index * 7) % words.length]}${index}`;
  return text.slice(0, size);
}

/** A read-only tool whose output is `size` characters (the argument `label` leads it). */
export function bigOutputTool(size: number): Tool<{ label: string }> {
  return {
    name: 'read_big',
    description: 'Returns a large blob.',
    schema: z.object({ label: z.string() }),
    readOnly: true,
    strict: false,
    access: () => ({ kind: 'none' }),
    async execute(args) {
      return { output: filler(`${args.label}:`, size) };
    },
  };
}

/** A step answering summary requests with `summary` and every other request from `turns`, in order. */
export function scriptedWithSummaries(
  turns: ScriptedTurn[],
  summary: (request: CapturedRequest, index: number) => ScriptedTurn,
): (request: CapturedRequest) => ScriptedTurn {
  let turn = 0;
  let summaries = 0;
  return (request) => {
    if (isSummaryRequest(request)) return summary(request, summaries++);
    const next = turns[turn++];
    if (next === undefined) return { text: 'Out of script.' };
    return next;
  };
}

export const FAST_RETRY = { baseDelayMs: 1, maxDelayMs: 2, maxAttempts: 1, random: () => 0.5 };

export function testSettings(overrides: Partial<CompactionSettings> = {}): CompactionSettings {
  return {
    mode: 'full',
    userBudgetTokens: 20_000,
    clipChars: 2_000,
    maxConsecutiveFailures: 3,
    summaryAttempts: 2,
    retryBaseDelayMs: 1,
    pruneMinimumTokens: null,
    pruneProtectTokens: null,
    overheadTokens: 0,
    liveSummary: true,
    model: 'test-model',
    contextWindow: 100_000,
    maxOutputTokens: 8_000,
    threshold: 5_000,
    instructions: null,
    pricing: null,
    promptCaching: null,
    warnings: [],
    ...overrides,
  };
}

export interface CompactionRun {
  terminal: TerminalRunEvent;
  events: RunEvent[];
  history: ResponseItem[];
  entries: CompactionEntry[];
  modelCalls: ModelCallRecord[];
  provider: FakeProvider;
  hooks: CompactionController | null;
}

export interface CompactionRunOptions extends FakeProviderOptions {
  wireApi: WireApi;
  settings?: CompactionSettings;
  /** Use these hooks instead of building them from `settings`. */
  hooks?: (gateway: ModelGateway, entries: CompactionEntry[], modelCalls: ModelCallRecord[]) => CompactionHooks;
  history?: ResponseItem[];
  prompt?: string;
  tools?: Tool<{ label: string }>[];
  resumed?: boolean;
}

export async function runWithCompaction(options: CompactionRunOptions): Promise<CompactionRun> {
  const { settings, hooks, tools, resumed, ...rest } = options;
  const entries: CompactionEntry[] = [];
  const modelCalls: ModelCallRecord[] = [];
  let controller: CompactionController | null = null;
  let ids = 0;
  const run = await runLoop({
    ...rest,
    tools: tools ?? [bigOutputTool(8_000)],
    retry: FAST_RETRY,
    onModelCall: (call) => {
      modelCalls.push(call);
    },
    compaction: (gateway) => {
      if (hooks) return hooks(gateway, entries, modelCalls);
      controller = createCompactionHooks(settings ?? testSettings(), {
        gateway,
        persist: async (entry) => {
          entries.push(entry);
        },
        onModelCall: (call) => {
          modelCalls.push(call);
        },
        newCompactionId: () => `cmp-${++ids}`,
        sleep: async () => {},
      });
      return controller;
    },
    loop: { resumed: resumed ?? false },
  });
  const { terminal, events, history, provider } = run;
  return { terminal, events, history, entries, modelCalls, provider, hooks: controller };
}

export function compactedEvents(events: RunEvent[]): Array<Extract<RunEvent, { type: 'history_compacted' }>> {
  return events.filter((event): event is Extract<RunEvent, { type: 'history_compacted' }> => event.type === 'history_compacted');
}

export function warnings(events: RunEvent[]): Array<Extract<RunEvent, { type: 'warning' }>> {
  return events.filter((event): event is Extract<RunEvent, { type: 'warning' }> => event.type === 'warning');
}
