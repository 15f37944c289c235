// Context economy: a scripted 300-round workload (30 user turns of 10 rounds, tool outputs of
// 1.5–5.5 KB with an occasional 12 KB one) against the fake provider with a 16,000-token window,
// run through the real runner (sessions, resume, replay) three ways:
//   (a) no compaction, (b) the seed's rules only, (c) full Glassbox compaction.
// Measured from what the provider received: input tokens (the fake provider's own estimate of
// each request), peak context, requests rejected as too long, and summary calls.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NO_APPROVER, type RunEvent } from '../../src/agent/index.js';
import { createGateway } from '../../src/model/index.js';
import { openRunner, runTurn, type RunnerSettings } from '../../src/runner/index.js';
import { estimateRequestTokens, startFakeProvider, type CapturedRequest, type ScriptedTurn } from '../../src/testing/index.js';
import { withRatio, type BenchRow } from '../bench-table.js';
import { isSummaryRequest, readLog, SUMMARY_TEXT } from '../log-workload.js';

const quick = process.env.GLASSBOX_BENCH_QUICK === '1';
const ROUNDS_PER_TURN = 10;
const TURNS = quick ? 8 : 30;
const WINDOW = 16_000;

interface Workload {
  /** Reset at each user turn. */
  inTurn: number;
  rounds: number;
}

function script(workload: Workload): (request: CapturedRequest) => ScriptedTurn {
  return (request) => {
    if (isSummaryRequest(request)) return { text: SUMMARY_TEXT };
    workload.inTurn += 1;
    const round = workload.rounds++;
    if (workload.inTurn >= ROUNDS_PER_TURN) return { text: `Part reviewed after ${workload.inTurn} rounds.` };
    return { text: `Reading log ${round}.`, toolCalls: [{ name: 'read_log', arguments: { index: round } }] };
  };
}

interface Outcome {
  inputTokens: number;
  peakContext: number;
  overflowedRequests: number;
  /** Global round (1-based) of the first request rejected as too long, or null. */
  firstOverflowRound: number | null;
  summaryCalls: number;
  maxSummaryCallsPerCrossing: number;
  crossings: number;
  prunes: number;
  failedTurns: number;
  rounds: number;
}

type Variant = 'none' | 'seed' | 'full';

async function runVariant(variant: Variant, window: number | undefined, stopAtFirstFailure: boolean): Promise<Outcome> {
  const work = mkdtempSync(join(tmpdir(), 'glassbox-bench-context-'));
  const root = join(work, 'project');
  const home = join(work, 'home');
  mkdirSync(root, { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(join(root, 'README.md'), '# logs\n');
  const workload: Workload = { inTurn: 0, rounds: 0 };
  const provider = await startFakeProvider({ whenExhausted: script(workload), contextWindow: window });
  try {
    const gateway = createGateway({ wireApi: 'chat', baseURL: provider.baseURL, apiKey: 'bench', retry: { maxAttempts: 1 } });
    const settings: RunnerSettings = {
      root,
      home,
      model: 'bench-small',
      wireApi: 'chat',
      gateway,
      sandbox: 'read-only',
      approvalPolicy: 'on-request',
      network: false,
      tools: [readLog],
      contextWindow: String(WINDOW),
      ...(variant === 'none' ? { compaction: null } : {}),
      ...(variant === 'seed' ? { compactionTuning: { mode: 'seed' as const } } : {}),
    };
    const runner = await openRunner(settings);
    const events: RunEvent[] = [];
    let sessionId: string | null = null;
    let failedTurns = 0;
    for (let turn = 1; turn <= TURNS; turn += 1) {
      workload.inTurn = 0;
      const result = await runTurn(runner, {
        prompt: `Turn ${turn}: continue the log review, part ${turn}.`,
        resume: sessionId,
        runId: `bench-${variant}-${turn}`,
        signal: new AbortController().signal,
        approvals: NO_APPROVER,
        onEvent: (event) => events.push(event),
      });
      sessionId = result.sessionId;
      if (result.terminal.type !== 'run_succeeded') {
        failedTurns += 1;
        if (stopAtFirstFailure) break;
      }
    }
    return measure(provider.requests, events, window ?? Number.POSITIVE_INFINITY, failedTurns, workload.rounds);
  } finally {
    await provider.close();
    rmSync(work, { recursive: true, force: true });
  }
}

function measure(requests: CapturedRequest[], events: RunEvent[], window: number, failedTurns: number, rounds: number): Outcome {
  let inputTokens = 0;
  let peakContext = 0;
  let overflowedRequests = 0;
  let firstOverflowRound: number | null = null;
  let acceptedTurnRequests = 0;
  let summaryCalls = 0;
  for (const request of requests) {
    const tokens = estimateRequestTokens(request.body, request.wireApi);
    if (tokens > window) {
      overflowedRequests += 1;
      firstOverflowRound ??= acceptedTurnRequests + 1;
      continue;
    }
    inputTokens += tokens;
    if (isSummaryRequest(request)) {
      summaryCalls += 1;
    } else {
      acceptedTurnRequests += 1;
      peakContext = Math.max(peakContext, tokens);
    }
  }
  // A crossing is one compaction episode: whatever happens between two turn requests.
  let crossings = 0;
  let inCrossing = false;
  let callsThisCrossing = 0;
  let maxSummaryCallsPerCrossing = 0;
  let prunes = 0;
  for (const event of events) {
    if (event.type === 'model_requested' && event.stage === 'turn') {
      inCrossing = false;
      continue;
    }
    const compactionEvent =
      (event.type === 'model_requested' && event.stage === 'compaction') ||
      event.type === 'history_compacted' ||
      (event.type === 'warning' && event.code.startsWith('COMPACTION'));
    if (!compactionEvent) continue;
    if (!inCrossing) {
      crossings += 1;
      inCrossing = true;
      callsThisCrossing = 0;
    }
    if (event.type === 'model_requested') {
      callsThisCrossing += 1;
      maxSummaryCallsPerCrossing = Math.max(maxSummaryCallsPerCrossing, callsThisCrossing);
    }
    if (event.type === 'history_compacted' && event.kind === 'prune') prunes += 1;
  }
  return {
    inputTokens,
    peakContext,
    overflowedRequests,
    firstOverflowRound,
    summaryCalls,
    maxSummaryCallsPerCrossing,
    crossings,
    prunes,
    failedTurns,
    rounds,
  };
}

export async function run(): Promise<BenchRow[]> {
  const totalRounds = TURNS * ROUNDS_PER_TURN;
  const noneWindowed = await runVariant('none', WINDOW, true);
  const noneUnbounded = await runVariant('none', undefined, false);
  const seed = await runVariant('seed', WINDOW, false);
  const full = await runVariant('full', WINDOW, false);
  if (noneUnbounded.rounds !== totalRounds || full.rounds < totalRounds) {
    throw new Error(`context-economy workload did not complete: ${noneUnbounded.rounds} / ${full.rounds} of ${totalRounds} rounds`);
  }
  const group = 'context economy';
  const baseline = { name: '(a) no compaction', value: noneUnbounded.inputTokens };
  const overflowNote =
    noneWindowed.firstOverflowRound === null
      ? 'never overflowed'
      : `with the ${WINDOW}-token window (a) overflows at round ${noneWindowed.firstOverflowRound}; its totals come from a run with an unbounded window`;
  return [
    {
      group,
      name: `(a) no compaction: input tokens over ${totalRounds} rounds`,
      value: noneUnbounded.inputTokens,
      unit: 'tokens',
      note: overflowNote,
    },
    { group, name: '(a) no compaction: peak context', value: noneUnbounded.peakContext, unit: 'tokens', note: `window ${WINDOW}` },
    {
      group,
      name: '(a) no compaction: first overflowing round',
      value: noneWindowed.firstOverflowRound ?? 0,
      unit: 'round',
      note: 'the run fails there',
    },
    withRatio({
      group,
      name: '(b) seed rules: input tokens',
      value: seed.inputTokens,
      unit: 'tokens',
      baseline,
      note: `${seed.failedTurns} of ${TURNS} turns failed`,
    }),
    {
      group,
      name: '(b) seed rules: requests rejected as too long',
      value: seed.overflowedRequests,
      unit: 'requests',
      note:
        seed.firstOverflowRound === null
          ? 'none'
          : `first at round ${seed.firstOverflowRound}; usage-only counting misses what a round appends, and nothing recovers`,
    },
    { group, name: '(b) seed rules: peak context', value: seed.peakContext, unit: 'tokens' },
    {
      group,
      name: '(b) seed rules: summary calls',
      value: seed.summaryCalls,
      unit: 'calls',
      note: `${seed.crossings} threshold crossings`,
    },
    withRatio(
      {
        group,
        name: '(c) full Glassbox: input tokens',
        value: full.inputTokens,
        unit: 'tokens',
        baseline,
        target: '≤ 0.6× (≥ 40 % fewer)',
      },
      0.6,
    ),
    {
      group,
      name: '(c) full Glassbox: requests rejected as too long',
      value: full.overflowedRequests,
      unit: 'requests',
      target: '0',
      met: full.overflowedRequests === 0 && full.failedTurns === 0,
      note: `${full.failedTurns} failed turns`,
    },
    {
      group,
      name: '(c) full Glassbox: peak context',
      value: full.peakContext,
      unit: 'tokens',
      target: `≤ ${WINDOW}`,
      met: full.peakContext <= WINDOW,
    },
    {
      group,
      name: '(c) full Glassbox: summary calls',
      value: full.summaryCalls,
      unit: 'calls',
      note: `${full.crossings} threshold crossings, ${full.prunes} handled or helped by the cheap pass`,
    },
    {
      group,
      name: '(c) full Glassbox: most summary calls in one crossing',
      value: full.maxSummaryCallsPerCrossing,
      unit: 'calls',
      target: '≤ 1',
      met: full.maxSummaryCallsPerCrossing <= 1,
    },
  ];
}
