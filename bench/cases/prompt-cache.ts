// Prompt-cache economy (issue 23): how much of what Glassbox sends a provider's prompt cache could
// serve, and what a session costs at catalog prices, against an ideal cache-stable harness.
//
// A 100-round session (10 user turns of 10 rounds of the log-review workload, the default tools
// plus read_log, each turn resuming the session) runs through the real runner and the real gateway
// of a wire API (Chat Completions and Responses as gpt-5, Anthropic as claude-sonnet-4-6) against
// the fake provider over loopback, with a 32,000-token window (and a 128,000-token one with outputs
// four times larger) so it compacts about three times. Three runs each: as shipped (the cheap pass
// first, which on this workload handles every crossing), the cheap pass off with the summary in
// its live form, and the cheap pass off with the transcript form only. The bodies the provider
// received are measured by bench/prompt-prefix.ts: the cache-eligible part of a request is the
// prefix it shares with what earlier requests left in the provider's cache, in o200k tokens, under
// that provider's caching rule.
//
// The ideal baseline, computed from the requests of the same run: every round is the previous
// request plus the new items (the whole previous request cached), the summary request is the live
// conversation plus an instruction (the whole previous round cached), and the round after a
// compaction has only the tools and system prompt cached (a summary starts a new prefix, whoever
// writes it). It never elides (that is not append-only): its session is the run that summarizes
// every crossing live, priced with ideal caching. Both sides get the providers' granularity
// (OpenAI: from 1,024 tokens in steps of 128; Anthropic: whole blocks, from 1,024 tokens), the
// same output tokens (o200k count of the scripted answers) and the catalog prices (estimateCost).

import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { NO_APPROVER, type RunEvent } from '../../src/agent/index.js';
import { createGateway, estimateCost, lookupModel, type ModelEntry, type WireApi } from '../../src/model/index.js';
import { openRunner, runTurn, type RunnerSettings } from '../../src/runner/index.js';
import { estimateRequestTokens, startFakeProvider, type CapturedRequest, type ScriptedTurn } from '../../src/testing/index.js';
import { createEditingTools, createReadOnlyTools, createShellTool } from '../../src/tools/index.js';
import { withRatio, type BenchRow } from '../bench-table.js';
import { isSummaryRequest, numberedSummary, readLogTool } from '../log-workload.js';
import { ANTHROPIC_MIN_CACHED_TOKENS, openAiCachedTokens, PromptCacheMeter, type MeasuredPrompt } from '../prompt-prefix.js';

const quick = process.env.GLASSBOX_BENCH_QUICK === '1';
const ROUNDS_PER_TURN = 10;
const TURNS = quick ? 4 : 10;
/** 32,000 tokens on every wire; 128,000 (outputs four times larger, so it compacts as often) on one wire per caching rule. */
const SETUPS: ReadonlyArray<{ wireApi: WireApi; window: number }> = [
  { wireApi: 'chat', window: 32_000 },
  { wireApi: 'responses', window: 32_000 },
  { wireApi: 'anthropic', window: 32_000 },
  ...(quick
    ? []
    : [
        { wireApi: 'chat' as const, window: 128_000 },
        { wireApi: 'anthropic' as const, window: 128_000 },
      ]),
];
const BASE_WINDOW = 32_000;
const MODELS: Readonly<Record<WireApi, string>> = { chat: 'gpt-5', responses: 'gpt-5', anthropic: 'claude-sonnet-4-6' };
const WIRE_LABELS: Readonly<Record<WireApi, string>> = { chat: 'Chat Completions', responses: 'Responses', anthropic: 'Anthropic' };

type Form = 'live' | 'transcript';

/**
 * default: Glassbox as shipped (on this workload the cheap pass handles every crossing);
 * live / transcript: the cheap pass off, so every crossing is summarized, in the live form first
 * or in the transcript form only.
 */
type Variant = 'default' | Form;

const NO_PRUNE = { pruneMinimumTokens: Number.MAX_SAFE_INTEGER };
const TUNING: Readonly<Record<Variant, RunnerSettings['compactionTuning']>> = {
  default: {},
  live: NO_PRUNE,
  transcript: { ...NO_PRUNE, liveSummary: false },
};

/** One accepted request, measured, and where it sits in the session. */
interface Sent {
  kind: 'round' | 'summary';
  /** The summary request's form: live keeps the tools, the transcript form has none. */
  form: Form | null;
  /** The first round after a summary compaction. */
  afterSummary: boolean;
  /** The first round after the cheap pass elided outputs. */
  afterPrune: boolean;
  outputTokens: number;
  measured: MeasuredPrompt;
}

function script(outputs: Map<number, number>): (request: CapturedRequest) => ScriptedTurn {
  let inTurn = 0;
  let rounds = 0;
  let summaries = 0;
  return (request) => {
    const turn: ScriptedTurn = isSummaryRequest(request) ? { text: numberedSummary(++summaries) } : nextRound();
    const calls = (turn.toolCalls ?? []).map((call) => `${call.name}${JSON.stringify(call.arguments)}`).join('');
    outputs.set(request.index, encode(`${turn.text ?? ''}${calls}`).length);
    return turn;
  };
  function nextRound(): ScriptedTurn {
    inTurn += 1;
    const round = rounds++;
    if (inTurn >= ROUNDS_PER_TURN) {
      inTurn = 0;
      return { text: `Part reviewed after ${ROUNDS_PER_TURN} rounds.` };
    }
    return { text: `Reading log ${round}.`, toolCalls: [{ name: 'read_log', arguments: { index: round } }] };
  }
}

async function runSession(wireApi: WireApi, window: number, variant: Variant): Promise<Sent[]> {
  // The project path is in the system prompt: a name of fixed digits (o200k cuts digits in threes
  // whatever they are) keeps the token counts the same from run to run, as a random one would not.
  const work = join(tmpdir(), `glassbox-bench-cache-${String(process.pid).padStart(9, '0')}`);
  rmSync(work, { recursive: true, force: true });
  const root = join(work, 'project');
  const home = join(work, 'home');
  mkdirSync(root, { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(join(root, 'README.md'), '# logs\n');
  const outputs = new Map<number, number>();
  const provider = await startFakeProvider({ whenExhausted: script(outputs), contextWindow: window });
  try {
    const model = MODELS[wireApi];
    const gateway = createGateway({ wireApi, baseURL: provider.baseURL, apiKey: 'bench', retry: { maxAttempts: 1 } });
    const settings: RunnerSettings = {
      root,
      home,
      model,
      wireApi,
      gateway,
      sandbox: 'read-only',
      approvalPolicy: 'on-request',
      network: false,
      // What a real session offers, so the head (tools and system prompt) has its real size.
      tools: [
        ...createReadOnlyTools(),
        ...createEditingTools(),
        createShellTool({ glassboxHome: home }),
        readLogTool(window / BASE_WINDOW),
      ],
      contextWindow: String(window),
      compactionTuning: TUNING[variant],
    };
    const runner = await openRunner(settings);
    const events: RunEvent[] = [];
    let sessionId: string | null = null;
    for (let turn = 1; turn <= TURNS; turn += 1) {
      const result = await runTurn(runner, {
        prompt: `Turn ${turn}: continue the log review, part ${turn}.`,
        resume: sessionId,
        runId: `bench-cache-${wireApi}-${variant}-${turn}`,
        signal: new AbortController().signal,
        approvals: NO_APPROVER,
        onEvent: (event) => events.push(event),
      });
      sessionId = result.sessionId;
      if (result.terminal.type !== 'run_succeeded') throw new Error(`prompt-cache bench: turn ${turn} on ${wireApi} (${variant}) failed`);
    }
    return measureSession(wireApi, window, provider.requests, events, outputs);
  } finally {
    await provider.close();
    rmSync(work, { recursive: true, force: true });
  }
}

function measureSession(
  wireApi: WireApi,
  window: number,
  requests: CapturedRequest[],
  events: RunEvent[],
  outputs: Map<number, number>,
): Sent[] {
  // Each model call is announced once and sent once (no gateway retries), in order.
  const announced: Array<{ stage: 'turn' | 'compaction'; afterSummary: boolean; afterPrune: boolean }> = [];
  let pendingSummary = false;
  let pendingPrune = false;
  for (const event of events) {
    if (event.type === 'history_compacted') {
      if (event.kind === 'summary') pendingSummary = true;
      else pendingPrune = true;
    }
    if (event.type !== 'model_requested') continue;
    const stage = event.stage === 'turn' ? 'turn' : 'compaction';
    announced.push({ stage, afterSummary: stage === 'turn' && pendingSummary, afterPrune: stage === 'turn' && pendingPrune });
    if (stage === 'turn') pendingSummary = pendingPrune = false;
  }
  if (announced.length !== requests.length)
    throw new Error(`prompt-cache bench: ${announced.length} calls announced, ${requests.length} received`);
  const meter = new PromptCacheMeter(wireApi);
  return requests.map((request, index) => {
    if (estimateRequestTokens(request.body, request.wireApi) > window) throw new Error('prompt-cache bench: a request overflowed');
    const slot = announced[index]!;
    const summary = isSummaryRequest(request);
    if (summary !== (slot.stage === 'compaction')) throw new Error(`prompt-cache bench: request ${index} is not the call announced`);
    const tools = request.body.tools;
    return {
      kind: summary ? 'summary' : 'round',
      form: summary ? (Array.isArray(tools) && tools.length > 0 ? 'live' : 'transcript') : null,
      afterSummary: slot.afterSummary,
      afterPrune: slot.afterPrune,
      outputTokens: outputs.get(request.index) ?? 0,
      measured: meter.measure(request.body),
    };
  });
}

/** The ideal harness on the same conversation: what its cache would hold for each request. */
function idealEligible(wireApi: WireApi, sent: readonly Sent[]): Array<{ tokens: number; eligible: number; written: number }> {
  const granular = (tokens: number): number =>
    wireApi === 'anthropic' ? (tokens >= ANTHROPIC_MIN_CACHED_TOKENS ? tokens : 0) : openAiCachedTokens(tokens);
  let previousRound: MeasuredPrompt | null = null;
  return sent.map((entry) => {
    const { tokens, headTokens } = entry.measured;
    let eligible: number;
    if (previousRound === null) eligible = 0;
    else if (entry.kind === 'summary') eligible = granular(previousRound.tokens);
    else if (entry.afterSummary || entry.afterPrune) eligible = granular(headTokens);
    else eligible = granular(previousRound.tokens);
    if (entry.kind === 'round') previousRound = entry.measured;
    // On Anthropic a round writes its new tail for the next round to read; a summary's tail is read by nobody.
    const written = wireApi === 'anthropic' && entry.kind === 'round' ? tokens - eligible : 0;
    return { tokens, eligible, written };
  });
}

function cost(entry: ModelEntry, tokens: number, eligible: number, written: number, output: number): number {
  const estimate = estimateCost(
    { inputTokens: tokens, cachedInputTokens: eligible, cacheWriteInputTokens: written, outputTokens: output },
    entry,
  );
  if (estimate === null) throw new Error(`prompt-cache bench: no catalog price for ${entry.name}`);
  return estimate.total;
}

interface Share {
  eligible: number;
  tokens: number;
  /** The lowest share of one request. */
  min: number;
  count: number;
}

function share(pairs: ReadonlyArray<{ eligible: number; tokens: number }>): Share {
  const eligible = pairs.reduce((sum, pair) => sum + pair.eligible, 0);
  const tokens = pairs.reduce((sum, pair) => sum + pair.tokens, 0);
  const min = pairs.reduce((low, pair) => Math.min(low, pair.tokens > 0 ? pair.eligible / pair.tokens : 1), 1);
  return { eligible, tokens, min, count: pairs.length };
}

const percent = (part: Share): number => (part.tokens > 0 ? (100 * part.eligible) / part.tokens : 0);

/** The live and transcript runs carry the same conversation: only their summary requests differ. */
function sameConversation(a: readonly Sent[], b: readonly Sent[]): boolean {
  const rounds = (list: readonly Sent[]) =>
    list.filter((entry) => entry.kind === 'round').map((entry) => entry.measured.tokens - entry.measured.headTokens);
  return JSON.stringify(rounds(a)) === JSON.stringify(rounds(b));
}

interface Priced {
  sent: Sent[];
  ideal: Array<{ tokens: number; eligible: number; written: number }>;
  cost: number;
  idealCost: number;
  uncachedCost: number;
}

function price(wireApi: WireApi, sent: Sent[]): Priced {
  const entry = lookupModel(MODELS[wireApi]).entry;
  const ideal = idealEligible(wireApi, sent);
  return {
    sent,
    ideal,
    cost: sent.reduce((sum, s) => sum + cost(entry, s.measured.tokens, s.measured.eligible, s.measured.written, s.outputTokens), 0),
    idealCost: ideal.reduce(
      (sum, pair, index) => sum + cost(entry, pair.tokens, pair.eligible, pair.written, sent[index]!.outputTokens),
      0,
    ),
    uncachedCost: sent.reduce((sum, s) => sum + cost(entry, s.measured.tokens, 0, 0, s.outputTokens), 0),
  };
}

/** Measured and ideal shares over the requests `pick` selects. */
function shares(run: Priced, pick: (sent: Sent, index: number) => boolean): { measured: Share; ideal: Share } {
  const indexes = run.sent.flatMap((sent, index) => (pick(sent, index) ? [index] : []));
  return { measured: share(indexes.map((index) => run.sent[index]!.measured)), ideal: share(indexes.map((index) => run.ideal[index]!)) };
}

const lowest = (part: Share): string => `${part.count} requests, lowest ${(100 * part.min).toFixed(1)} %`;

async function wireRows(wireApi: WireApi, window: number): Promise<BenchRow[]> {
  const shipped = price(wireApi, await runSession(wireApi, window, 'default'));
  const liveSent = await runSession(wireApi, window, 'live');
  const transcriptSent = await runSession(wireApi, window, 'transcript');
  if (!sameConversation(liveSent, transcriptSent))
    throw new Error(`prompt-cache bench: the ${wireApi} runs diverged outside the summary requests`);
  const live = price(wireApi, liveSent);
  // The transcript run's ideal is the live run's: the same conversation, its summary asked for live.
  const transcript = price(wireApi, transcriptSent);

  const steady = shares(shipped, (sent, index) => sent.kind === 'round' && index > 0 && !sent.afterSummary && !sent.afterPrune);
  const afterPrune = shares(shipped, (sent) => sent.afterPrune);
  const afterSummary = shares(live, (sent) => sent.afterSummary);
  const liveSummaries = shares(live, (sent) => sent.kind === 'summary' && sent.form === 'live');
  const fallbacks = live.sent.filter((sent) => sent.kind === 'summary' && sent.form === 'transcript').length;
  const summaryIdeal = shares(live, (sent) => sent.kind === 'summary').ideal;
  const transcriptSummaries = share(transcript.sent.filter((sent) => sent.kind === 'summary').map((sent) => sent.measured));
  const shippedSummaries = shipped.sent.filter((sent) => sent.kind === 'summary').length;
  const rounds = shipped.sent.filter((sent) => sent.kind === 'round').length;

  const group = `prompt cache: ${WIRE_LABELS[wireApi]} (${MODELS[wireApi]}, window ${window.toLocaleString('en-US')})`;
  const idealName = 'ideal cache-stable harness';
  const pct = (value: Share) => ({ name: idealName, value: percent(value) });
  const usd = (run: Priced) => ({ name: idealName, value: run.idealCost });
  return [
    withRatio({
      group,
      name: '(a) steady rounds: cache-eligible share of input',
      value: percent(steady.measured),
      unit: '%',
      baseline: pct(steady.ideal),
      note: lowest(steady.measured),
    }),
    {
      ...withRatio({
        group,
        name: '(b) summary request, live form: cache-eligible share',
        value: percent(liveSummaries.measured),
        unit: '%',
        baseline: pct(liveSummaries.ideal),
        target: '≥ 80 % each',
        note: `${lowest(liveSummaries.measured)}${fallbacks > 0 ? `; ${fallbacks} fell back to the transcript form` : ''}`,
      }),
      met: liveSummaries.measured.count > 0 && liveSummaries.measured.min >= 0.8,
    },
    withRatio({
      group,
      name: '(b) summary request, transcript fallback: cache-eligible share',
      value: percent(transcriptSummaries),
      unit: '%',
      baseline: pct(summaryIdeal),
      note: lowest(transcriptSummaries),
    }),
    withRatio({
      group,
      name: '(c) round after a summary: cache-eligible share',
      value: percent(afterSummary.measured),
      unit: '%',
      baseline: pct(afterSummary.ideal),
      note: `${afterSummary.measured.count} rounds; only tools and system prompt can be cached there`,
    }),
    withRatio({
      group,
      name: '(c) round after the cheap pass: cache-eligible share',
      value: percent(afterPrune.measured),
      unit: '%',
      baseline: pct(afterPrune.ideal),
      note: `${afterPrune.measured.count} rounds; the ideal caches tools and system prompt there`,
    }),
    withRatio({
      group,
      name: `(d) ${rounds}-round session at catalog prices, as shipped`,
      value: shipped.cost,
      unit: 'USD',
      // The ideal harness never elides (that is not append-only): it summarizes every crossing, live.
      baseline: usd(live),
      note: `${afterPrune.measured.count} cheap passes, ${shippedSummaries} summaries; these same requests cached ideally: ${shipped.idealCost.toFixed(3)} USD; nothing cached: ${shipped.uncachedCost.toFixed(3)} USD`,
    }),
    withRatio({
      group,
      name: `(d) ${rounds}-round session, cheap pass off, live summary`,
      value: live.cost,
      unit: 'USD',
      baseline: usd(live),
      note: `${liveSummaries.measured.count} summaries; nothing cached: ${live.uncachedCost.toFixed(3)} USD`,
    }),
    withRatio({
      group,
      name: `(d) ${rounds}-round session, cheap pass off, transcript summary`,
      value: transcript.cost,
      unit: 'USD',
      baseline: usd(live),
      note: `${transcriptSummaries.count} summaries`,
    }),
  ];
}

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const { wireApi, window } of SETUPS) rows.push(...(await wireRows(wireApi, window)));
  return rows;
}
