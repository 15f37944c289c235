// Runs the sampling loop against the scripted fake provider through the real SDK and gateway, and
// records what happened. Shared by the loop tests (never copied per file).

import { z } from 'zod';
import {
  ALLOW_ALL_GATE,
  NO_APPROVER,
  ToolRuntime,
  runSamplingLoop,
  userMessage,
  type AnyTool,
  type ApprovalBroker,
  type CompactionHooks,
  type ModelCallRecord,
  type PermissionGate,
  type ResponseItem,
  type RunEvent,
  type SamplingLoopOptions,
  type TerminalRunEvent,
  type Tool,
} from '../../src/agent/index.js';
import { createToolSessionState } from '../../src/tools/index.js';
import { createGateway, WIRE_APIS, type ModelGateway, type RetryPolicy, type WireApi } from '../../src/model/index.js';
import { startFakeProvider, type FakeProvider, type FakeProviderOptions } from '../../src/testing/index.js';

/** Every registered wire: the shared suites run on a new dialect without being told. */
export const WIRE_APIS_UNDER_TEST: WireApi[] = [...WIRE_APIS];

export interface LoopRun {
  terminal: TerminalRunEvent;
  events: RunEvent[];
  history: ResponseItem[];
  commits: ResponseItem[][];
  provider: FakeProvider;
}

export interface LoopRunOptions extends FakeProviderOptions {
  wireApi: WireApi;
  prompt?: string;
  tools?: AnyTool[];
  history?: ResponseItem[];
  gate?: PermissionGate;
  approvals?: ApprovalBroker;
  signal?: AbortSignal;
  onEvent?: (event: RunEvent, controller: { history: ResponseItem[] }) => void;
  onModelCall?: (call: ModelCallRecord) => void;
  /** The gateway's retry policy (default: four quick attempts). */
  retry?: Partial<RetryPolicy>;
  /** Compaction hooks for the run; they get the run's gateway to call the model with. */
  compaction?: (gateway: ModelGateway) => CompactionHooks;
  loop?: Partial<SamplingLoopOptions>;
  /** Keep the provider open after the run (caller closes it). */
  keepProvider?: boolean;
}

export async function runLoop(options: LoopRunOptions): Promise<LoopRun> {
  const provider = await startFakeProvider(options);
  try {
    const gateway = createGateway({
      wireApi: options.wireApi,
      baseURL: provider.baseURL,
      apiKey: 'test-key',
      retry: options.retry ?? { baseDelayMs: 1, maxDelayMs: 5, random: () => 0.5 },
    });
    const history = options.history ?? [];
    const events: RunEvent[] = [];
    const commits: ResponseItem[][] = [];
    const runtime = new ToolRuntime({
      tools: options.tools ?? [],
      root: process.cwd(),
      state: createToolSessionState(),
      gate: options.gate ?? ALLOW_ALL_GATE,
      approvals: options.approvals ?? NO_APPROVER,
    });
    const terminal = await runSamplingLoop({
      gateway,
      model: 'test-model',
      wireApi: options.wireApi,
      sessionId: 'session-test',
      runId: 'run-test',
      resumed: false,
      history,
      newItems: [userMessage(options.prompt ?? 'do the thing')],
      tools: runtime,
      signal: options.signal ?? new AbortController().signal,
      observer: {
        onEvent: (event) => {
          events.push(event);
          options.onEvent?.(event, { history });
        },
        onCommit: (items) => {
          commits.push([...items]);
        },
        onModelCall: options.onModelCall,
      },
      compaction: options.compaction?.(gateway),
      ...options.loop,
    });
    return { terminal, events, history, commits, provider };
  } finally {
    if (!options.keepProvider) await provider.close();
  }
}

/** A read-only test tool that echoes its text, optionally waiting, and tracks concurrency. */
export function echoTool(options: { delayMs?: number; tracker?: { active: number; peak: number } } = {}): Tool<{ text: string }> {
  return {
    name: 'echo',
    description: 'Echo the text back.',
    schema: z.object({ text: z.string() }),
    readOnly: true,
    strict: false,
    access: () => ({ kind: 'none' }),
    async execute(args, context) {
      const tracker = options.tracker;
      if (tracker) {
        tracker.active += 1;
        tracker.peak = Math.max(tracker.peak, tracker.active);
      }
      try {
        if (options.delayMs) await delay(options.delayMs, context.signal);
        return { output: `echo: ${args.text}` };
      } finally {
        if (tracker) tracker.active -= 1;
      }
    },
  };
}

/** A non-read-only tool that blocks until the run is cancelled. */
export function blockingTool(onStart: () => void): Tool<Record<string, never>> {
  return {
    name: 'block',
    description: 'Blocks until cancelled.',
    schema: z.object({}),
    readOnly: false,
    strict: false,
    access: () => ({ kind: 'none' }),
    async execute(_args, context) {
      onStart();
      await delay(60_000, context.signal);
      return { output: 'finished' };
    },
  };
}

export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error('aborted'));
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(new Error('aborted'));
      },
      { once: true },
    );
  });
}

export function eventTypes(events: RunEvent[]): string[] {
  return events.map((event) => event.type);
}

export function terminalCount(events: RunEvent[]): number {
  return events.filter((e) => e.type === 'run_succeeded' || e.type === 'run_failed' || e.type === 'run_cancelled').length;
}

export { toolOutputsSent } from './sent-requests.js';
