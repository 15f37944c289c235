// Full runs with a unique API key (and, for `glassbox serve`, a unique access token) in the CLI's
// environment, where the model tries every way to see them: printing the environment, reading
// /proc/self/environ and the parent's /proc/$PPID/environ, reading .env files, searching, and a
// provider error that echoes the Authorization header back. Afterwards the key must be in no
// session or index file, no stdout/stderr, no event, no request body sent to the model, and no
// environment of a process the shell tool started (read from the host while it runs).

import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { readFile, readdir, stat, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { detectSandbox } from '../../src/sandbox/index.js';
import {
  startFakeProvider,
  type CapturedRequest,
  type FakeProvider,
  type ScriptStep,
  type ScriptedToolCall,
} from '../../src/testing/index.js';
import { cliEnv, jsonLines, startCli, type CliResult } from '../helpers/run-cli.js';
import { makeFixture, type Fixture } from './security-harness.js';

const sandbox = await detectSandbox();
const serverExists = existsSync(new URL('../../src/server/index.ts', import.meta.url));

const API_KEY = `sk-scan-${randomBytes(16).toString('hex')}`;
const SERVER_TOKEN = `scan-token-${randomBytes(16).toString('hex')}`;
const DOTENV_SECRET = `dotenv-scan-${randomBytes(8).toString('hex')}`;

function shell(command: string): ScriptedToolCall {
  return { name: 'shell', arguments: { command } };
}

/**
 * The model's attempts, as one batch of tool calls. `parentEnvironment` adds the reads of other
 * processes' environments; `asks` the calls that wait for an approval (exec has no TTY and
 * denies them at once; the server would wait for a browser).
 */
function attempts(marker: string, parentEnvironment: boolean, asks = true): ScriptedToolCall[] {
  const calls = [
    shell('env'),
    shell("tr '\\0' '\\n' < /proc/self/environ"),
    shell('cat .env config/.env.local notes.txt; grep -r -- "-scan-" . ; echo read-done'),
    // A plain child of the shell tool, watched from the host while it sleeps.
    shell(`sleep ${marker}`),
    { name: 'grep', arguments: { pattern: 'scan' } },
  ];
  if (asks) calls.push({ name: 'read_file', arguments: { path: '.env' } }, { name: 'read_file', arguments: { path: 'notes.txt' } });
  if (parentEnvironment) {
    calls.push(
      shell("tr '\\0' '\\n' < /proc/$PPID/environ; for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < \"$f\"; done; echo proc-done"),
    );
  }
  return calls;
}

/** A provider that, asked again, fails with an error quoting the request's Authorization header. */
const echoAuthorization: ScriptStep = (request: CapturedRequest) => ({
  fault: { kind: 'status', status: 400, message: `Malformed request. Headers received: authorization: ${request.headers.authorization}` },
});

async function projectFixture(): Promise<Fixture> {
  const fixture = await makeFixture({
    '.env': `DATABASE_PASSWORD=${DOTENV_SECRET}\n`,
    'config/.env.local': `NESTED=${DOTENV_SECRET}\n`,
    'README.md': '# scan\n',
  });
  await symlink('.env', join(fixture.root, 'notes.txt'));
  return fixture;
}

/** Every file under `directory` whose bytes contain `needle`. */
async function filesContaining(directory: string, needle: string): Promise<string[]> {
  const hits: string[] = [];
  const visit = async (path: string): Promise<void> => {
    const info = await stat(path).catch(() => null);
    if (info === null) return;
    if (info.isDirectory()) {
      for (const name of await readdir(path)) await visit(join(path, name));
    } else if (info.isFile() && (await readFile(path)).includes(needle)) {
      hits.push(path);
    }
  };
  await visit(directory);
  return hits;
}

async function listFiles(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

interface WatchedProcess {
  pid: number;
  command: string;
  environ: string;
}

/**
 * Polls /proc until `done` settles, recording the environment of every process whose arguments
 * include `marker`, and of its ancestors below `stopAt` (bwrap, bash): what the shell tool's
 * children really received, seen from outside any sandbox.
 */
async function watchProcesses(marker: string, stopAt: number, done: Promise<unknown>): Promise<WatchedProcess[]> {
  const seen = new Map<number, WatchedProcess>();
  let finished = false;
  void done.finally(() => (finished = true));
  const read = (pid: number, file: string): string | null => {
    try {
      return readFileSync(`/proc/${pid}/${file}`, 'utf8');
    } catch {
      return null;
    }
  };
  while (!finished) {
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      const cmdline = read(Number(name), 'cmdline');
      if (cmdline === null || !cmdline.split('\0').includes(marker)) continue;
      for (let pid = Number(name); pid > 1 && pid !== stopAt && !seen.has(pid); ) {
        const environ = read(pid, 'environ');
        const stat = read(pid, 'stat');
        if (environ === null || stat === null) break;
        seen.set(pid, { pid, command: (read(pid, 'cmdline') ?? '').split('\0').join(' ').trim(), environ });
        pid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return [...seen.values()];
}

function assertAbsent(where: string, text: string, ...secrets: string[]): void {
  for (const secret of secrets)
    assert.ok(
      !text.includes(secret),
      `${where} contains ${secret.slice(0, 12)}…:\n${text.slice(Math.max(0, text.indexOf(secret) - 300), text.indexOf(secret) + 100)}`,
    );
}

function providerBodies(provider: FakeProvider): string {
  return provider.requests.map((request) => request.rawBody).join('\n');
}

// Each run has its own fixture, provider and sleep marker (what the /proc watcher looks for), and
// inside the sandbox the model's /proc reads see only its own pid namespace: the runs go side by side.
describe('the API key never leaks', { concurrency: true }, () => {
  const modes: Array<['workspace-write' | 'danger-full-access', string | false]> = [
    ['workspace-write', sandbox.available ? false : `bubblewrap unavailable: ${sandbox.reason}`],
    ['danger-full-access', false],
  ];
  for (const [mode, skip] of modes) {
    test(`glassbox exec --sandbox ${mode}: no session file, output, event, request or child environment holds it`, { skip }, async () => {
      const sandboxed = mode !== 'danger-full-access';
      const fixture = await projectFixture();
      const marker = `0.${400_000 + Math.floor(Math.random() * 500_000)}`;
      // Unsandboxed, the parent's /proc/<pid>/environ shows the key: a documented limit of
      // danger-full-access (see the report); inside the sandbox the pid namespace hides it.
      const provider = await startFakeProvider({
        apiKey: API_KEY,
        script: [{ toolCalls: attempts(marker, sandboxed) }, echoAuthorization],
      });
      try {
        const { child, done } = startCli(
          ['exec', '--json', '--sandbox', mode, '--base-url', provider.baseURL, '-C', fixture.root, 'find the key'],
          cliEnv({ OPENAI_API_KEY: API_KEY, GLASSBOX_HOME: fixture.home }),
        );
        const watched = watchProcesses(marker, (child as ChildProcess).pid as number, done);
        const result: CliResult = await done;
        const processes = await watched;

        assert.equal(result.code, 1, `the run fails on the provider error: ${result.stderr}`);
        assert.equal(provider.requests[1]?.headers.authorization, `Bearer ${API_KEY}`, 'the provider really echoed the key');
        const events = jsonLines(result.stdout);
        const failed = events.find((event) => event.type === 'run_failed');
        assert.match(JSON.stringify(failed), /\[redacted\]/, 'the echoed key was redacted, not dropped with the message');
        const outputs = events.filter((event) => event.type === 'tool_finished').map((event) => String(event.output));
        assert.ok(
          outputs.some((output) => /PATH=/.test(output)),
          'the environment was printed',
        );

        assertAbsent('stdout', result.stdout, API_KEY);
        assertAbsent('stderr', result.stderr, API_KEY);
        assertAbsent('requests sent to the model', providerBodies(provider), API_KEY);
        const sessionFiles = await listFiles(join(fixture.home, 'sessions'));
        assert.ok(
          sessionFiles.some((file) => file.endsWith('index.jsonl')),
          `an index was written: ${sessionFiles.join(', ')}`,
        );
        assert.ok(sessionFiles.length >= 2, 'a session file was written');
        assert.deepEqual(await filesContaining(fixture.home, API_KEY), [], 'no file in the Glassbox home');
        assert.deepEqual(await filesContaining(fixture.root, API_KEY), [], 'no file in the project');

        assert.ok(processes.length > 0, 'the sleeping child was observed');
        for (const observed of processes) assertAbsent(`environment of ${observed.command} (${observed.pid})`, observed.environ, API_KEY);
        if (sandboxed) {
          assert.ok(
            processes.some((observed) => observed.command.startsWith('bwrap') || observed.command.includes('/bwrap')),
            'bwrap itself was checked',
          );
          // Inside the sandbox the secret files are masked and approval is never granted (no TTY).
          assertAbsent('stdout', result.stdout, DOTENV_SECRET);
          assertAbsent('requests sent to the model', providerBodies(provider), DOTENV_SECRET);
          assert.ok(
            outputs.some((output) => output.includes('proc-done')),
            'the /proc reads ran',
          );
        }
      } finally {
        await provider.close();
        await fixture.cleanup();
      }
    });
  }

  test('glassbox serve: neither the API key nor the access token reaches events, sessions, logs or children', {
    skip: serverExists ? false : 'src/server does not exist yet',
  }, async () => {
    const fixture = await projectFixture();
    const marker = `0.${400_000 + Math.floor(Math.random() * 500_000)}`;
    const provider = await startFakeProvider({
      apiKey: API_KEY,
      script: [{ toolCalls: attempts(marker, true, false) }, echoAuthorization],
    });
    const { child, done } = startCli(
      ['serve', '--port', '0', '--base-url', provider.baseURL, '-C', fixture.root, '--home', fixture.home],
      cliEnv({ OPENAI_API_KEY: API_KEY, GLASSBOX_TOKEN: SERVER_TOKEN }),
    );
    let result: CliResult;
    try {
      const url = await firstLine(child as ChildProcess);
      const origin = new URL(url).origin;
      const headers = { authorization: `Bearer ${SERVER_TOKEN}`, 'content-type': 'application/json' };
      const watched = (() => {
        let stop: () => void = () => {};
        const stopped = new Promise<void>((resolve) => (stop = resolve));
        return { processes: watchProcesses(marker, (child as ChildProcess).pid as number, stopped), stop };
      })();
      const stream = await (
        await fetch(`${origin}/api/runs`, { method: 'POST', headers, body: JSON.stringify({ prompt: 'find the key' }) })
      ).text();
      watched.stop();
      const processes = await watched.processes;
      assert.match(stream, /run_failed/, 'the run ended on the provider error');
      assert.match(stream, /\[redacted\]/);
      const sessions = (await (await fetch(`${origin}/api/sessions`, { headers })).json()) as { sessions: Array<{ sessionId: string }> };
      const details = await Promise.all(
        sessions.sessions.flatMap((session) =>
          ['', '/model-calls', '/context'].map(async (suffix) =>
            (await fetch(`${origin}/api/sessions/${session.sessionId}${suffix}`, { headers })).text(),
          ),
        ),
      );
      assert.ok(details.length >= 3);
      for (const [where, text] of [
        ['the SSE stream', stream],
        ['the session API', details.join('\n')],
        ['requests sent to the model', providerBodies(provider)],
      ] as const) {
        assertAbsent(where, text, API_KEY, SERVER_TOKEN);
      }
      if (sandbox.available) {
        assert.ok(processes.length > 0, 'the sleeping child was observed');
        for (const observed of processes) assertAbsent(`environment of ${observed.command}`, observed.environ, API_KEY, SERVER_TOKEN);
        assertAbsent('the SSE stream', stream, DOTENV_SECRET);
      }
    } catch (error) {
      child.kill('SIGINT');
      await done;
      await provider.close();
      await fixture.cleanup();
      throw error;
    }
    child.kill('SIGINT');
    result = await done;
    await provider.close();
    try {
      // The URL line is the one place the token is printed, by design.
      assert.equal(result.stdout.split(SERVER_TOKEN).length - 1, 1, 'the token is printed once, in the URL');
      assertAbsent('stdout', result.stdout, API_KEY);
      assertAbsent('stderr', result.stderr, API_KEY, SERVER_TOKEN);
      assert.deepEqual(await filesContaining(fixture.home, API_KEY), []);
      assert.deepEqual(await filesContaining(fixture.home, SERVER_TOKEN), []);
      assert.deepEqual(await filesContaining(fixture.root, SERVER_TOKEN), []);
    } finally {
      await fixture.cleanup();
    }
  });
});

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const onData = (chunk: Buffer): void => {
      buffered += chunk.toString();
      const newline = buffered.indexOf('\n');
      if (newline !== -1) {
        child.stdout?.off('data', onData);
        resolve(buffered.slice(0, newline));
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`glassbox serve exited (${code}) before printing its URL`)));
  });
}
