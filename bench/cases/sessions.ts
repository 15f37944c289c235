// Sessions: replaying a 100,000-record session against a raw JSON.parse-per-line scan of the same
// file; listing 10,000 sessions through the index against reading every file whole; and file
// growth per round (must stay linear: no requests or deltas are stored).

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createReadStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApprovalRegistry, type ResponseItem } from '../../src/agent/index.js';
import { createGateway } from '../../src/model/index.js';
import { openRunner, runTurn } from '../../src/runner/index.js';
import { HistoryReplay, JsonlSessionStore, REPLAY_SKIPPABLE_TYPES, newSessionId, resumeSession } from '../../src/sessions/index.js';
import { startFakeProvider } from '../../src/testing/index.js';
import { median, withRatio, type BenchRow } from '../bench-table.js';
import { makeProject, toolRoundsScript } from '../bench-workload.js';
import { REPO_ROOT, runChild } from '../child-process.js';

const quick = process.env.GLASSBOX_BENCH_QUICK === '1';
const RECORDS = 100_000;
const LISTED = quick ? 2_000 : 10_000;

/** Writes a realistic session: per round a model_call, working message, call, output and audits. */
function writeBigSession(dir: string, records: number): { id: string; path: string } {
  const id = newSessionId();
  const path = join(dir, `${id}.jsonl`);
  const ts = new Date().toISOString();
  const lines: string[] = [
    JSON.stringify({
      type: 'session_meta',
      ts,
      formatVersion: 1,
      sessionId: id,
      createdAt: ts,
      cwd: '/p',
      model: 'm',
      wireApi: 'chat',
      parent: null,
      glassboxVersion: '0.1.0',
    }),
    JSON.stringify({
      type: 'turn_started',
      ts,
      turn: 1,
      runId: 'r',
      prompt: 'go',
      policy: { approvalPolicy: 'on-request', sandbox: 'read-only' },
      model: 'm',
      wireApi: 'chat',
    }),
    JSON.stringify({ type: 'response_item', ts, turn: 1, item: { type: 'message', role: 'user', content: 'go' } }),
  ];
  let round = 0;
  while (lines.length < records) {
    round += 1;
    const callId = `call_${round}`;
    const usage = {
      inputTokens: 1000 + round,
      cachedInputTokens: 800,
      outputTokens: 20,
      reasoningTokens: 0,
      totalTokens: 1020 + round,
      raw: null,
    };
    lines.push(
      JSON.stringify({
        type: 'model_call',
        ts,
        turn: 1,
        round,
        stage: 'turn',
        usage,
        durationMs: 12,
        finishReason: 'tool_calls',
        error: null,
      }),
    );
    lines.push(
      JSON.stringify({
        type: 'response_item',
        ts,
        turn: 1,
        item: { type: 'message', role: 'assistant', content: `Reading file ${round}.`, runtimeRole: 'working_message' },
      }),
    );
    lines.push(
      JSON.stringify({
        type: 'response_item',
        ts,
        turn: 1,
        item: { type: 'function_call', callId, name: 'read_file', arguments: `{"path":"src/file-${round}.ts"}` },
      }),
    );
    lines.push(
      JSON.stringify({
        type: 'audit',
        ts,
        turn: 1,
        event: {
          type: 'tool_permission_decided',
          callId,
          name: 'read_file',
          decision: 'allow',
          reason: 'read inside the root',
          rule: 'read-inside-root',
        },
      }),
    );
    lines.push(JSON.stringify({ type: 'audit', ts, turn: 1, event: { type: 'tool_started', callId, name: 'read_file' } }));
    lines.push(
      JSON.stringify({
        type: 'audit',
        ts,
        turn: 1,
        event: { type: 'tool_finished', callId, name: 'read_file', isError: false, durationMs: 2 },
      }),
    );
    lines.push(
      JSON.stringify({
        type: 'response_item',
        ts,
        turn: 1,
        item: {
          type: 'function_call_output',
          callId,
          name: 'read_file',
          output: `     1\texport const value${round} = ${round};\n     2\t// more text on this line to look like code`,
          isError: false,
        },
      }),
    );
  }
  lines.length = records;
  writeFileSync(path, `${lines.join('\n')}\n`);
  return { id, path };
}

async function rawScanChunked(path: string): Promise<number> {
  // The baseline: the same chunked line split the store uses, then JSON.parse of every line.
  const { scanLines } = await import('../../src/sessions/line-reader.js');
  let count = 0;
  await scanLines(path, ({ text }) => {
    JSON.parse(text);
    count += 1;
  });
  return count;
}

async function rawScanReadline(path: string): Promise<number> {
  let count = 0;
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  for await (const line of lines) {
    JSON.parse(line);
    count += 1;
  }
  return count;
}

async function replay(store: JsonlSessionStore, id: string): Promise<ResponseItem[]> {
  const replayer = new HistoryReplay();
  await store.scan(id, (record) => replayer.add(record), { skipTypes: REPLAY_SKIPPABLE_TYPES });
  return replayer.finish().history;
}

async function timed(fn: () => Promise<unknown>, runs: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    await fn();
    times.push(performance.now() - started);
  }
  return median(times);
}

export async function run(): Promise<BenchRow[]> {
  const work = mkdtempSync(join(tmpdir(), 'glassbox-bench-sessions-'));
  const rows: BenchRow[] = [];
  try {
    // Replay vs raw scan.
    const sessionsDir = join(work, 'home', 'sessions');
    mkdirSync(sessionsDir, { recursive: true });
    const big = writeBigSession(sessionsDir, RECORDS);
    const fileBytes = statSync(big.path).size;
    const store = new JsonlSessionStore(sessionsDir);
    const runs = quick ? 3 : 7;
    await replay(store, big.id);
    await rawScanChunked(big.path);
    const replayMs = await timed(() => replay(store, big.id), runs);
    const rawMs = await timed(() => rawScanChunked(big.path), runs);
    const readlineMs = await timed(() => rawScanReadline(big.path), runs);
    // A resume: lock, rebuild the summary for appending, replay, close. One read of the file (issue 30).
    const resumeMs = await timed(async () => (await resumeSession(store, big.id)).writer.close(), runs);
    rows.push(
      withRatio(
        {
          group: 'sessions',
          name: `replay ${RECORDS.toLocaleString('en-US')} records (${(fileBytes / 2 ** 20).toFixed(1)} MiB)`,
          value: replayMs,
          unit: 'ms',
          baseline: { name: 'chunked read + JSON.parse per line', value: rawMs },
        },
        1.5,
      ),
    );
    rows.push(
      withRatio(
        {
          group: 'sessions',
          name: 'resume (lock, summary, replay) of the same session',
          value: resumeMs,
          unit: 'ms',
          baseline: { name: 'chunked read + JSON.parse per line', value: rawMs },
        },
        1.5,
      ),
    );
    rows.push(
      withRatio(
        {
          group: 'sessions',
          name: 'replay, against a readline scan',
          value: replayMs,
          unit: 'ms',
          baseline: { name: 'readline + JSON.parse per line', value: readlineMs },
        },
        1.5,
      ),
    );

    // Memory: each in its own process; peak RSS above a bare Node start, against the file size.
    const script = (body: string) => ['--import', 'tsx', '-e', body];
    const bare = await runChild(process.execPath, script(`await import(${JSON.stringify(join(REPO_ROOT, 'src/sessions/index.ts'))});`), {
      measureUsage: true,
    });
    const replayChild = await runChild(
      process.execPath,
      script(
        `const s = await import(${JSON.stringify(join(REPO_ROOT, 'src/sessions/index.ts'))}); const store = new s.JsonlSessionStore(${JSON.stringify(sessionsDir)}); const r = new s.HistoryReplay(); await store.scan(${JSON.stringify(big.id)}, (rec) => r.add(rec), { skipTypes: s.REPLAY_SKIPPABLE_TYPES }); const h = r.finish().history; if (!h.length) process.exit(3);`,
      ),
      { measureUsage: true },
    );
    if (replayChild.code !== 0 || !replayChild.peakRssKb || !bare.peakRssKb) throw new Error(`replay child failed: ${replayChild.stderr}`);
    const replayExtra = (replayChild.peakRssKb - bare.peakRssKb) * 1024;
    rows.push({
      group: 'sessions',
      name: 'replay peak memory above a bare start',
      value: Math.round(replayExtra / 2 ** 20),
      unit: 'MiB',
      note: `file ${(fileBytes / 2 ** 20).toFixed(1)} MiB`,
      target: '≤ 2× file',
      met: replayExtra <= 2 * fileBytes,
    });

    // Listing many sessions.
    const listDir = join(work, 'many', 'sessions');
    mkdirSync(listDir, { recursive: true });
    const ts = new Date().toISOString();
    for (let i = 0; i < LISTED; i += 1) {
      const id = newSessionId();
      const filler = Array.from({ length: 40 }, (_, n) =>
        JSON.stringify({
          type: 'response_item',
          ts,
          turn: 1,
          item: { type: 'message', role: 'user', content: `message ${n} of session ${i} `.repeat(5) },
        }),
      );
      writeFileSync(
        join(listDir, `${id}.jsonl`),
        `${[
          JSON.stringify({
            type: 'session_meta',
            ts,
            formatVersion: 1,
            sessionId: id,
            createdAt: ts,
            cwd: '/p',
            model: 'm',
            wireApi: 'chat',
            parent: null,
            glassboxVersion: '0.1.0',
          }),
          JSON.stringify({
            type: 'turn_started',
            ts,
            turn: 1,
            runId: 'r',
            prompt: `task number ${i}`,
            policy: { approvalPolicy: 'on-request', sandbox: 'read-only' },
            model: 'm',
            wireApi: 'chat',
          }),
          ...filler,
        ].join('\n')}\n`,
      );
    }
    const manyStore = new JsonlSessionStore(listDir);
    const rebuildMs = await timed(() => manyStore.rebuildIndex(), 1);
    const listMs = await timed(
      async () => {
        const list = await manyStore.list({ limit: 50 });
        if (list.sessions.length !== 50) throw new Error('listing returned too few sessions');
      },
      quick ? 3 : 5,
    );
    const naiveMs = await timed(async () => {
      // What a store without an index does: read and parse every file whole.
      const summaries = readdirSync(listDir)
        .filter((name) => name.endsWith('.jsonl'))
        .map((name) =>
          readFileSync(join(listDir, name), 'utf8')
            .trim()
            .split('\n')
            .map((line) => JSON.parse(line) as { type: string; ts: string }),
        );
      summaries.sort((a, b) => (a[0]!.ts < b[0]!.ts ? 1 : -1));
    }, 1);
    rows.push(
      withRatio({
        group: 'sessions',
        name: `list ${LISTED.toLocaleString('en-US')} sessions (first page, indexed)`,
        value: listMs,
        unit: 'ms',
        baseline: { name: 'read + parse every file whole', value: naiveMs },
      }),
    );
    rows.push({
      group: 'sessions',
      name: `rebuild the index for ${LISTED.toLocaleString('en-US')} sessions (head reads)`,
      value: rebuildMs,
      unit: 'ms',
    });

    // File growth per round through the real runner.
    const project = join(work, 'project');
    makeProject(project);
    const provider = await startFakeProvider({ whenExhausted: toolRoundsScript(1_000_000) });
    try {
      const gateway = createGateway({ wireApi: 'chat', baseURL: provider.baseURL, apiKey: 'bench' });
      const growthHome = join(work, 'growth');
      const runner = await openRunner({
        root: project,
        home: growthHome,
        model: 'bench',
        wireApi: 'chat',
        gateway,
        sandbox: 'read-only',
        approvalPolicy: 'on-request',
        network: false,
        maxRounds: 10,
      });
      const sizes: number[] = [];
      let sessionId: string | null = null;
      const turns = quick ? 8 : 20;
      for (let turn = 0; turn < turns; turn += 1) {
        const result = await runTurn(runner, {
          prompt: `turn ${turn}`,
          resume: sessionId,
          runId: `growth-${turn}`,
          signal: new AbortController().signal,
          approvals: new ApprovalRegistry(),
        });
        sessionId = result.sessionId;
        sizes.push(statSync(join(growthHome, 'sessions', `${sessionId}.jsonl`)).size);
      }
      const perTurn = sizes.slice(1).map((size, i) => size - sizes[i]!);
      const early = median(perTurn.slice(0, 3));
      const late = median(perTurn.slice(-3));
      rows.push(
        withRatio(
          {
            group: 'sessions',
            name: `file bytes per 10-round turn, last turns of ${turns}`,
            value: late,
            unit: 'bytes',
            baseline: { name: 'first turns', value: early },
          },
          1.2,
        ),
      );
    } finally {
      await provider.close();
    }
    return rows;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
