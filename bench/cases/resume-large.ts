// Resume of a long session (issue 30): `glassbox exec --resume` of a ~20 MB session that went
// through 45 summary compactions, from spawn to the provider receiving the first request, against
// the same resume of a small session. The file is written the way the runner writes one (rounds of
// model_call, working message, call, audits, output; a compaction's model_call and record), and
// read back through the store before timing, so a malformed generator fails the bench.

import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HistoryReplay, JsonlSessionStore, newSessionId } from '../../src/sessions/index.js';
import { startFakeProvider } from '../../src/testing/index.js';
import { median, withRatio, type BenchRow } from '../bench-table.js';
import { REPO_ROOT, runChild } from '../child-process.js';

const quick = process.env.GLASSBOX_BENCH_QUICK === '1';
const RUNS = quick ? 5 : 11;
const BIN = join(REPO_ROOT, 'bin', 'glassbox.js');

export interface Shape {
  turns: number;
  roundsPerTurn: number;
  /** A summary compaction after every this many rounds. */
  compactEvery: number;
  outputBytes: number;
}

/** The session: 4,988 records, 20.8 MB, 45 compactions. */
const LARGE: Shape = { turns: 9, roundsPerTurn: 75, compactEvery: 15, outputBytes: 28_500 };
const SMALL: Shape = { turns: 1, roundsPerTurn: 3, compactEvery: 1_000, outputBytes: 2_000 };

export function writeSession(dir: string, cwd: string, shape: Shape): { id: string; path: string; records: number; compactions: number } {
  const id = newSessionId();
  const path = join(dir, `${id}.jsonl`);
  const ts = new Date().toISOString();
  const lines: string[] = [];
  const push = (record: object) => lines.push(JSON.stringify(record));
  push({
    type: 'session_meta',
    ts,
    formatVersion: 1,
    sessionId: id,
    createdAt: ts,
    cwd,
    model: 'bench',
    wireApi: 'chat',
    parent: null,
    glassboxVersion: '0.1.0',
  });
  // Code-like text: varied lines, so the file is not one repeated string.
  const body = (round: number) => {
    let text = '';
    for (let line = 1; text.length < shape.outputBytes; line += 1) {
      text += `${String(line).padStart(6)}\texport function f${round}_${line}(value: number): number { return value * ${line} + ${round}; }\n`;
    }
    return text;
  };
  let compactions = 0;
  let sinceCompaction = 0;
  let round = 0;
  for (let turn = 1; turn <= shape.turns; turn += 1) {
    const runId = `run_${turn}`;
    const prompt = `Turn ${turn}: read the next files and tell me what they export.`;
    push({
      type: 'turn_started',
      ts,
      turn,
      runId,
      prompt,
      policy: { approvalPolicy: 'on-request', sandbox: 'workspace-write' },
      model: 'bench',
      wireApi: 'chat',
    });
    push({ type: 'response_item', ts, turn, item: { type: 'message', role: 'user', content: prompt } });
    for (let inTurn = 1; inTurn <= shape.roundsPerTurn; inTurn += 1) {
      round += 1;
      const callId = `call_${round}`;
      const usage = {
        inputTokens: 2000 + sinceCompaction * 7300,
        cachedInputTokens: 1800,
        outputTokens: 40,
        reasoningTokens: 0,
        totalTokens: 2040,
        raw: null,
      };
      push({ type: 'model_call', ts, turn, round: inTurn, stage: 'turn', usage, durationMs: 900, finishReason: 'tool_calls', error: null });
      push({
        type: 'response_item',
        ts,
        turn,
        item: { type: 'message', role: 'assistant', content: `Reading file ${round}.`, runtimeRole: 'working_message' },
      });
      push({
        type: 'response_item',
        ts,
        turn,
        item: { type: 'function_call', callId, name: 'read_file', arguments: `{"path":"src/file-${round}.ts"}` },
      });
      push({
        type: 'audit',
        ts,
        turn,
        event: {
          type: 'tool_permission_decided',
          callId,
          name: 'read_file',
          decision: 'allow',
          reason: 'read inside the root',
          rule: 'read-inside-root',
        },
      });
      push({ type: 'audit', ts, turn, event: { type: 'tool_started', callId, name: 'read_file' } });
      push({ type: 'audit', ts, turn, event: { type: 'tool_finished', callId, name: 'read_file', isError: false, durationMs: 2 } });
      push({
        type: 'response_item',
        ts,
        turn,
        item: { type: 'function_call_output', callId, name: 'read_file', output: body(round), isError: false },
      });
      sinceCompaction += 1;
      if (sinceCompaction >= shape.compactEvery) {
        compactions += 1;
        sinceCompaction = 0;
        push({
          type: 'model_call',
          ts,
          turn,
          round: inTurn,
          stage: 'compaction',
          usage,
          durationMs: 4000,
          finishReason: 'stop',
          error: null,
        });
        push({
          type: 'compaction',
          ts,
          turn,
          compactionId: `cmp_${compactions}`,
          kind: 'summary',
          trigger: 'auto',
          phase: 'mid_turn',
          tokensBefore: 110_000,
          tokensAfter: 3_000,
          itemsRemoved: 60,
          itemsKept: 2,
          reason: 'Reported token usage 110000 reached the compaction threshold 108800.',
          estimated: false,
          summary:
            `## Goal\nRead the files and report their exports.\n## Progress\nRead files up to ${round}; each exports numbered functions.\n`.repeat(
              8,
            ),
          userBudgetTokens: 20_000,
        });
      }
    }
    push({
      type: 'response_item',
      ts,
      turn,
      item: {
        type: 'message',
        role: 'assistant',
        content: `Turn ${turn} done: the files export numbered functions.`,
        runtimeRole: 'final_response',
      },
    });
    const sum = { inputTokens: 1, cachedInputTokens: 0, outputTokens: 1, reasoningTokens: 0, totalTokens: 2, raw: null };
    const staged = { total: sum, byStage: { turn: sum }, calls: shape.roundsPerTurn + 1 };
    push({ type: 'turn_completed', ts, turn, runId, usage: staged, rounds: shape.roundsPerTurn + 1 });
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
  return { id, path, records: lines.length, compactions };
}

export async function run(): Promise<BenchRow[]> {
  const work = mkdtempSync(join(tmpdir(), 'glassbox-bench-resume-'));
  const home = join(work, 'home');
  const project = join(work, 'project');
  mkdirSync(join(home, 'sessions'), { recursive: true });
  mkdirSync(project);
  writeFileSync(join(project, 'README.md'), '# bench\n');
  const provider = await startFakeProvider({ whenExhausted: { text: 'ok', usage: { input: 10, output: 1 } } });
  try {
    const sessions = join(home, 'sessions');
    const large = writeSession(sessions, project, LARGE);
    const small = writeSession(sessions, project, SMALL);
    // The generator must write what the store accepts and replay gives a compacted history.
    const store = new JsonlSessionStore(sessions);
    for (const session of [large, small]) {
      const replay = new HistoryReplay();
      const scan = await store.scan(session.id, (record) => replay.add(record));
      if (scan.problems.length > 0) throw new Error(`bench session ${session.id}: ${scan.problems[0]!.message}`);
      replay.finish();
    }
    const env = { OPENAI_API_KEY: 'bench', GLASSBOX_HOME: home };
    const firstRequest = async (id: string): Promise<number> => {
      const before = provider.requests.length;
      const spawnedAt = Date.now();
      const args = [BIN, 'exec', '--resume', id, '--base-url', provider.baseURL, '-m', 'bench', '-C', project, 'go on'];
      const result = await runChild(process.execPath, args, { env, cwd: project });
      if (result.code !== 0) throw new Error(`exec --resume exited ${result.code}: ${result.stderr}`);
      const request = provider.requests[before];
      if (request === undefined) throw new Error('exec --resume sent no model request');
      return request.receivedAt - spawnedAt;
    };
    // Each resume appends a turn; the large session grows by a few hundred bytes a run, which is noise.
    const largeTimes: number[] = [];
    const smallTimes: number[] = [];
    await firstRequest(small.id); // warm the file cache and the bundle's
    for (let i = 0; i < RUNS; i += 1) {
      largeTimes.push(await firstRequest(large.id));
      smallTimes.push(await firstRequest(small.id));
    }
    const mb = (statSync(large.path).size / 1e6).toFixed(1);
    return [
      withRatio(
        {
          group: 'sessions',
          name: `resume → first request of a ${mb} MB session (${large.records.toLocaleString('en-US')} records, ${large.compactions} compactions), glassbox exec --resume`,
          value: median(largeTimes),
          unit: 'ms',
          baseline: { name: `the same for a ${small.records}-record session`, value: median(smallTimes) },
        },
        1.3,
      ),
    ];
  } finally {
    await provider.close();
    rmSync(work, { recursive: true, force: true });
  }
}
