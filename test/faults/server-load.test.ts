// `glassbox serve` under load: many SSE clients on many concurrent runs, on loopback. Clients
// attach from the start (the POST that starts the run, and GETs of its events), mid-run with
// Last-Event-ID, and by dropping their connection and re-attaching. Every client must see every
// event after the point it attached, ids contiguous, identical to the run's own stream; every run
// must end with a terminal event; the server's memory must stay bounded; and every session the
// load wrote must replay and resume with its history intact.

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { WireApi } from '../../src/model/index.js';
import { startFakeProvider, type CapturedRequest, type ScriptedTurn } from '../../src/testing/index.js';
import { cliEnv, REPO_ROOT } from '../helpers/run-cli.js';
import {
  assertReplays,
  assertSentHistory,
  delay,
  inProject,
  NIGHTLY,
  SeededRandom,
  sessionIds,
  snapshotSession,
  startGlassbox,
  suiteSeed,
  wireTranscript,
  type CliChild,
  type FaultProject,
} from './fault-helpers.js';

const SERVER_SOURCE = join(REPO_ROOT, 'src', 'server', 'index.ts');
const SEED = suiteSeed(20_251_130);
const RUNS = NIGHTLY ? 25 : 10;
const CLIENTS_PER_RUN = NIGHTLY ? 20 : 10;
const TOKEN = 'fault-suite-token-0123456789';
/** Generous: only there so a lost stream fails the test instead of hanging it. */
const STREAM_DEADLINE_MS = 120_000;
/** How much the server may grow over its warmed-up size while serving the load. */
const RSS_GROWTH_BOUND = 128 * 1024 * 1024;

const TERMINAL = new Set(['run_succeeded', 'run_failed', 'run_cancelled']);

interface Frame {
  id: number;
  type: string;
  data: string;
}

/** The user prompt a captured request ends with, and how many tool outputs follow it. */
function lastTurnOf(request: CapturedRequest): { prompt: string; outputs: number } {
  const transcript = wireTranscript(request);
  let last = -1;
  transcript.forEach((entry, index) => {
    if (entry.kind === 'message' && entry.role === 'user') last = index;
  });
  const prompt = last >= 0 ? (transcript[last] as { text: string }).text : '';
  return { prompt, outputs: transcript.slice(last + 1).filter((entry) => entry.kind === 'output').length };
}

/** Three rounds per run, decided from the request itself so concurrent runs cannot mix up a script. */
function answer(request: CapturedRequest): ScriptedTurn {
  const { prompt, outputs } = lastTurnOf(request);
  const talk = (what: string) => `${what} for "${prompt}". `.repeat(6);
  const slow = { chunkSize: 4, chunkDelayMs: 8 };
  if (outputs === 0)
    return { ...slow, text: talk('Reading the notes'), toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] };
  if (outputs === 1) return { ...slow, text: talk('Listing the project'), toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }] };
  return { ...slow, text: talk('All done') };
}

/** An SSE request on its own socket; frames are handed over as they arrive. */
function openStream(
  port: number,
  options: { method: 'GET' | 'POST'; path: string; body?: unknown; lastEventId?: number },
): Promise<{ response: IncomingMessage; frames: AsyncGenerator<Frame> }> {
  return new Promise((resolve, reject) => {
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const headers: Record<string, string> = { authorization: `Bearer ${TOKEN}`, accept: 'text/event-stream' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (options.lastEventId !== undefined) headers['last-event-id'] = String(options.lastEventId);
    const request = httpRequest(
      { host: '127.0.0.1', port, method: options.method, path: options.path, headers, agent: false },
      (response) => {
        response.setEncoding('utf8');
        resolve({ response, frames: readFrames(response) });
      },
    );
    request.setTimeout(STREAM_DEADLINE_MS, () => request.destroy(new Error(`no data on ${options.path} for ${STREAM_DEADLINE_MS} ms`)));
    request.on('error', reject);
    request.end(body);
  });
}

async function* readFrames(response: IncomingMessage): AsyncGenerator<Frame> {
  let buffered = '';
  for await (const chunk of response) {
    buffered += chunk as string;
    let end: number;
    while ((end = buffered.indexOf('\n\n')) >= 0) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      if (block.startsWith(':')) continue; // heartbeat
      const frame: Frame = { id: 0, type: '', data: '' };
      for (const line of block.split('\n')) {
        if (line.startsWith('id: ')) frame.id = Number(line.slice(4));
        else if (line.startsWith('event: ')) frame.type = line.slice(7);
        else if (line.startsWith('data: ')) frame.data = line.slice(6);
      }
      yield frame;
    }
  }
}

/** Read until the terminal event (or `stopAfter` frames, then hang up); returns what arrived. */
async function collect(frames: AsyncGenerator<Frame>, response: IncomingMessage, stopAfter = Number.POSITIVE_INFINITY): Promise<Frame[]> {
  const got: Frame[] = [];
  for await (const frame of frames) {
    got.push(frame);
    if (TERMINAL.has(frame.type)) break;
    if (got.length >= stopAfter) {
      response.destroy();
      break;
    }
  }
  return got;
}

/** Ids run from `after + 1` without a gap to a terminal event, and match the reference stream. */
function checkClient(frames: readonly Frame[], after: number, reference: ReadonlyMap<number, Frame>, label: string): void {
  assert.ok(frames.length > 0, `${label}: no events at all`);
  frames.forEach((frame, index) => {
    assert.equal(frame.id, after + 1 + index, `${label}: expected event ${after + 1 + index}, got ${frame.id} (a lost or repeated event)`);
    const expected = reference.get(frame.id);
    assert.ok(expected, `${label}: event ${frame.id} is not in the run's own stream`);
    assert.equal(frame.data, expected.data, `${label}: event ${frame.id} differs from the run's own stream`);
  });
  assert.ok(
    TERMINAL.has(frames.at(-1)!.type),
    `${label}: the stream ended without a terminal event (last: ${frames.at(-1)!.type} #${frames.at(-1)!.id})`,
  );
}

function rssOf(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

async function startServer(project: FaultProject, baseURL: string): Promise<{ server: CliChild; port: number }> {
  let announce: (port: number) => void = () => {};
  const announced = new Promise<number>((resolve) => (announce = resolve));
  let stdout = '';
  const server = startGlassbox(
    ['serve', '--port', '0', '--token', TOKEN, '--base-url', baseURL, '-m', 'test-model', '-C', project.root, '--home', project.home],
    cliEnv({ OPENAI_API_KEY: 'sk-serve' }),
    {
      onStdout: (chunk) => {
        stdout += chunk;
        const match = /http:\/\/127\.0\.0\.1:(\d+)\//.exec(stdout);
        if (match) announce(Number(match[1]));
      },
    },
  );
  const port = await Promise.race([
    announced,
    server.done.then((result) => {
      throw new Error(`glassbox serve exited (${result.code}) before listening:\n${result.stderr}`);
    }),
  ]);
  return { server, port };
}

interface RunResult {
  runId: string;
  prompt: string;
  reference: Map<number, Frame>;
  /** Clients that attached with Last-Event-ID > 0 while the run was still going. */
  liveAttaches: number;
}

/** Start one run and put `clients` readers on it: the POST itself, from-start GETs, reconnects, mid-run attaches. */
async function loadRun(port: number, index: number, wireApi: WireApi, random: SeededRandom): Promise<RunResult> {
  const prompt = `load run ${index}`;
  const started = await openStream(port, { method: 'POST', path: '/api/runs', body: { prompt, wireApi } });
  assert.equal(started.response.statusCode, 200, `POST /api/runs answered ${started.response.statusCode}`);
  const runId = String(started.response.headers['x-run-id']);
  const seen: Frame[] = [];
  const own = (async () => {
    for await (const frame of started.frames) {
      seen.push(frame);
      if (TERMINAL.has(frame.type)) break;
    }
    return seen;
  })();
  const path = `/api/runs/${runId}/events`;
  const clients: Array<Promise<{ label: string; after: number; frames: Frame[]; live?: boolean }>> = [];
  const running = () => !TERMINAL.has(seen.at(-1)?.type ?? '');
  for (let client = 1; client < CLIENTS_PER_RUN; client += 1) {
    const kind = client % 3;
    const wait = random.int(0, 1500);
    const cut = random.int(5, 120);
    const back = random.int(0, 8);
    clients.push(
      (async () => {
        if (kind === 0) {
          // From the start, all the way through.
          const stream = await openStream(port, { method: 'GET', path });
          return { label: `run ${index} client ${client} (from start)`, after: 0, frames: await collect(stream.frames, stream.response) };
        }
        if (kind === 1) {
          // From the start, hangs up after a few events, re-attaches with the last id it had.
          const first = await openStream(port, { method: 'GET', path });
          const part = await collect(first.frames, first.response, cut);
          if (TERMINAL.has(part.at(-1)?.type ?? '')) return { label: `run ${index} client ${client} (reconnect)`, after: 0, frames: part };
          await delay(random.int(0, 200));
          const live = running();
          const again = await openStream(port, { method: 'GET', path, lastEventId: part.at(-1)!.id });
          const rest = await collect(again.frames, again.response);
          return { label: `run ${index} client ${client} (reconnect after ${part.length})`, after: 0, frames: [...part, ...rest], live };
        }
        // Attaches mid-run, a little behind the newest event, with Last-Event-ID.
        await delay(wait);
        const after = Math.max(0, (seen.at(-1)?.id ?? 0) - back);
        const live = running() && after > 0;
        const stream = await openStream(port, { method: 'GET', path, lastEventId: after });
        assert.equal(stream.response.statusCode, 200);
        return {
          label: `run ${index} client ${client} (mid-run after ${after})`,
          after,
          frames: await collect(stream.frames, stream.response),
          live,
        };
      })(),
    );
  }
  const reference = new Map((await own).map((frame) => [frame.id, frame]));
  checkClient([...reference.values()], 0, reference, `run ${index} POST stream`);
  assert.equal(
    reference.get(reference.size)?.type,
    'run_succeeded',
    `run ${index} did not succeed: ${reference.get(reference.size)?.data}`,
  );
  let liveAttaches = 0;
  for (const result of await Promise.all(clients)) {
    checkClient(result.frames, result.after, reference, result.label);
    if (result.live) liveAttaches += 1;
  }
  return { runId, prompt, reference, liveAttaches };
}

describe('server load: concurrent SSE clients on concurrent runs', () => {
  const skip = existsSync(SERVER_SOURCE) ? false : `src/server/index.ts does not exist yet, so there is no glassbox serve to load`;
  test(`${RUNS * CLIENTS_PER_RUN} SSE clients on ${RUNS} concurrent runs lose no event, memory stays bounded, sessions resume (seed ${SEED})`, {
    skip,
  }, async (t) => {
    await inProject(`server load (seed ${SEED})`, async (project) => {
      const provider = await startFakeProvider({ whenExhausted: answer });
      let server: CliChild | null = null;
      try {
        const started = await startServer(project, provider.baseURL);
        server = started.server;
        const { port } = started;
        const pid = server.child.pid!;

        // Warm up (modules, JIT, the first session), then measure from there.
        await loadRunWarmup(port);
        const baseline = rssOf(pid);
        let peak = baseline ?? 0;
        const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid) ?? 0)), 50);
        let results: RunResult[];
        try {
          results = await Promise.all(
            Array.from({ length: RUNS }, (_, index) =>
              loadRun(port, index, index % 2 === 0 ? 'chat' : 'responses', new SeededRandom(SEED + index)),
            ),
          );
        } finally {
          clearInterval(sampler);
        }
        if (baseline === null) {
          t.diagnostic('no /proc: server memory not measured');
        } else {
          const growth = peak - baseline;
          t.diagnostic(
            `server RSS ${(baseline / 2 ** 20).toFixed(0)} MiB warmed up, peak ${(peak / 2 ** 20).toFixed(0)} MiB under load (+${(growth / 2 ** 20).toFixed(0)} MiB)`,
          );
          assert.ok(
            growth < RSS_GROWTH_BOUND,
            `the server grew ${(growth / 2 ** 20).toFixed(0)} MiB under load (bound ${RSS_GROWTH_BOUND / 2 ** 20} MiB)`,
          );
        }
        const liveAttaches = results.reduce((sum, result) => sum + result.liveAttaches, 0);
        t.diagnostic(
          `events per run: ${results.map((result) => result.reference.size).join(', ')}; ${liveAttaches} clients re-attached or attached with Last-Event-ID while their run was live`,
        );
        assert.ok(liveAttaches > 0, 'no client attached mid-run: the runs ended before the load reached them');

        // Every session the load wrote replays, and resumes with exactly its history.
        const ids = sessionIds(project).filter((id) =>
          snapshotSession(project, id).records.some(
            (record) => record.type === 'turn_started' && String(record.prompt).startsWith('load run'),
          ),
        );
        assert.equal(ids.length, RUNS);
        await Promise.all(
          ids.map(async (sessionId) => {
            const history = await assertReplays(project, sessionId);
            const before = snapshotSession(project, sessionId);
            const prompt = `resume ${String(before.records.find((record) => record.type === 'turn_started')?.prompt)}`;
            const resumed = await openStream(port, { method: 'POST', path: '/api/runs', body: { prompt, sessionId } });
            assert.equal(resumed.response.statusCode, 200);
            const frames = await collect(resumed.frames, resumed.response);
            assert.equal(frames.at(-1)?.type, 'run_succeeded', frames.at(-1)?.data);
            const first = provider.requests.find((request) => lastTurnOf(request).prompt === prompt && lastTurnOf(request).outputs === 0);
            assertSentHistory(first, history, prompt, `resume of ${sessionId}`);
          }),
        );
      } finally {
        if (server) {
          server.child.kill('SIGINT');
          const stopped = await server.done;
          assert.equal(stopped.code, 0, `glassbox serve did not stop cleanly:\n${stopped.stderr.slice(-3000)}`);
        }
        await provider.close();
      }
    });
  });
});

/** One run with one reader, before measuring: the first run pays for loading the runner. */
async function loadRunWarmup(port: number): Promise<void> {
  const stream = await openStream(port, { method: 'POST', path: '/api/runs', body: { prompt: 'warm-up run' } });
  assert.equal(stream.response.statusCode, 200);
  const frames = await collect(stream.frames, stream.response);
  assert.equal(frames.at(-1)?.type, 'run_succeeded', frames.at(-1)?.data);
}
