import assert from 'node:assert/strict';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { serveCommand } from '../../src/cli/serve-command.js';
import { startFakeProvider } from '../../src/testing/index.js';
import { cliEnv, startCli } from '../helpers/run-cli.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { eventsOf, readFrames } from './server-harness.js';

interface Served {
  firstLine: Promise<string>;
  stopped: Promise<{ code: number | null; stdout: string; stderr: string }>;
  interrupt(): void;
}

/** `glassbox serve` as users start it: the built CLI (`npm test` rebuilds dist/; run-cli.ts waits for it). */
function serve(args: string[], env: NodeJS.ProcessEnv): Served {
  const { child, done } = startCli(['serve', ...args], env);
  let stdout = '';
  let onLine: (line: string) => void = () => {};
  const firstLine = new Promise<string>((resolve) => (onLine = resolve));
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.includes('\n')) onLine(stdout.slice(0, stdout.indexOf('\n')));
  });
  const stopped = done.then(({ code, stdout, stderr }) => {
    onLine('');
    return { code, stdout, stderr };
  });
  return { firstLine, stopped, interrupt: () => child.kill('SIGINT') };
}

describe('glassbox serve (child process)', () => {
  test('prints the URL with the token, serves the API behind it, and Ctrl-C stops cleanly', async () => {
    await withTempDir(async (dir) => {
      const root = join(dir, 'project');
      await mkdir(root);
      const provider = await startFakeProvider({ script: [{ text: 'Served answer.' }] });
      try {
        const served = serve(
          ['--port', '0', '--base-url', provider.baseURL, '-m', 'served-model', '-C', root, '--home', join(dir, 'home')],
          cliEnv({ OPENAI_API_KEY: 'sk-test', GLASSBOX_TOKEN: 'fixed-token-for-the-test-0001' }),
        );
        const url = await served.firstLine;
        const match = /^http:\/\/127\.0\.0\.1:(\d+)\/\?token=fixed-token-for-the-test-0001$/.exec(url);
        assert.ok(match, `stdout line: ${url}`);
        const origin = `http://127.0.0.1:${match[1]}`;

        assert.equal((await fetch(`${origin}/api/health`)).status, 401);
        const login = await fetch(url, { redirect: 'manual' });
        assert.equal(login.status, 302);
        const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
        const health = (await (await fetch(`${origin}/api/health`, { headers: { cookie } })).json()) as Record<string, unknown>;
        assert.equal(health.model, 'served-model');
        assert.equal(health.demo, false);
        const models = (await (await fetch(`${origin}/api/models`, { headers: { cookie } })).json()) as Record<string, unknown>;
        assert.deepEqual(models.caps, { sandbox: 'workspace-write', approvalPolicy: 'on-request' });
        assert.deepEqual(models.defaults, { model: 'served-model', wireApi: 'chat', sandbox: 'read-only', approvalPolicy: 'on-request' });

        const run = await fetch(`${origin}/api/runs`, {
          method: 'POST',
          headers: { cookie, 'content-type': 'application/json', origin },
          body: JSON.stringify({ prompt: 'hello' }),
        });
        const events = eventsOf(await readFrames(run));
        assert.equal(events.at(-1)!.event.answer, 'Served answer.');

        served.interrupt();
        const result = await served.stopped;
        assert.equal(result.code, 0, result.stderr);
        assert.match(result.stderr, /Ctrl-C to stop/);
        assert.match(result.stderr, /stopping/);
        assert.doesNotMatch(result.stderr, /sk-test/);
      } finally {
        await provider.close();
      }
    });
  });
});

function capture(): { stream: Writable; text: () => string; line: Promise<string> } {
  let text = '';
  let onLine: (line: string) => void = () => {};
  const line = new Promise<string>((resolve) => (onLine = resolve));
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      text += chunk.toString();
      if (text.includes('\n')) onLine(text.slice(0, text.indexOf('\n')));
      callback();
    },
  });
  return { stream, text: () => text, line };
}

describe('serveCommand (in process)', () => {
  test('the demo model is served and announced; run defaults are lowered to the caps', async () => {
    await withTempDir(async (dir) => {
      const stdout = capture();
      const stderr = capture();
      let stop: () => void = () => {};
      const stopSignal = new Promise<void>((resolve) => (stop = resolve));
      // --demo: the same path as having no key, without depending on this process's environment.
      const exit = serveCommand(
        { port: '0', cd: dir, home: join(dir, 'home'), demo: true, sandbox: 'read-only', approvalPolicy: 'untrusted' },
        { stdout: stdout.stream, stderr: stderr.stream, stopSignal },
      );
      const url = await Promise.race([stdout.line, exit.then((code) => `exited ${code}`)]);
      const origin = new URL(url).origin;
      const token = new URL(url).searchParams.get('token') ?? '';
      assert.match(token, /^[A-Za-z0-9_-]{32}$/);
      const headers = { authorization: `Bearer ${token}` };
      const health = (await (await fetch(`${origin}/api/health`, { headers })).json()) as Record<string, unknown>;
      assert.equal(health.demo, true);
      const models = (await (await fetch(`${origin}/api/models`, { headers })).json()) as Record<string, unknown>;
      assert.deepEqual(models.defaults, { model: 'glassbox-demo', wireApi: 'chat', sandbox: 'read-only', approvalPolicy: 'untrusted' });
      assert.deepEqual(models.caps, { sandbox: 'read-only', approvalPolicy: 'untrusted' });
      const run = await fetch(`${origin}/api/runs`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'Look around.', wireApi: 'responses' }),
      });
      const events = eventsOf(await readFrames(run));
      assert.equal(events[0]!.event.wireApi, 'responses');
      assert.equal(events.at(-1)!.type, 'run_succeeded');
      stop();
      assert.equal(await exit, 0);
      assert.match(stderr.text(), /offline demo model/);
      assert.equal(stdout.text(), `${url}\n`);
    });
  });

  test('bad flags are usage errors (exit code 2) before anything listens', async () => {
    await withTempDir(async (dir) => {
      const base = { cd: dir, home: join(dir, 'home'), demo: true };
      for (const options of [
        { port: 'abc' },
        { port: '70000' },
        { sandbox: 'everything' },
        { approvalPolicy: 'sometimes' },
        { token: 'short' },
        { compactAt: 'lots' },
        { contextWindow: '-5' },
        { host: ' ' },
        { otlpEndpoint: 'not a url' },
        { otlpEndpoint: 'ftp://x' },
      ]) {
        const stdout = capture();
        await assert.rejects(
          serveCommand({ ...base, ...options }, { stdout: stdout.stream, stderr: capture().stream, stopSignal: new Promise(() => {}) }),
          (error: { exitCode?: number; message: string }) => error.exitCode === 2 && error.message.length > 0,
          JSON.stringify(options),
        );
        assert.equal(stdout.text(), '');
      }
      const busy = createNetServer();
      await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
      try {
        const port = String((busy.address() as AddressInfo).port);
        await assert.rejects(
          serveCommand({ ...base, port }, { stdout: capture().stream, stderr: capture().stream, stopSignal: new Promise(() => {}) }),
          (error: { exitCode?: number; message: string }) => error.exitCode === 2 && /in use/.test(error.message),
        );
      } finally {
        await new Promise((resolve) => busy.close(resolve));
      }
      await mkdir(join(dir, 'home'), { recursive: true });
      await writeFile(join(dir, 'home', 'config.json'), '{"models": {"x": {"contextWindow": -1}}}');
      await assert.rejects(
        serveCommand(base, { stdout: capture().stream, stderr: capture().stream, stopSignal: new Promise(() => {}) }),
        (error: { exitCode?: number; message: string }) => error.exitCode === 2 && /config\.json/.test(error.message),
      );
    });
  });
});
