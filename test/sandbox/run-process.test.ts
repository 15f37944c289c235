import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { withTempDir } from '../helpers/temp-dir.js';
import { buildChildEnvironment, runCommand, runProcess } from '../../src/sandbox/index.js';
import { isRunning, printedPids, processesWithMarker, settled, waitForFile } from './process-probe.js';

const env = buildChildEnvironment(process.env);

function bash(command: string, cwd: string, extra: { timeoutMs?: number; signal?: AbortSignal; outputLimit?: number } = {}) {
  return runProcess({
    file: 'bash',
    args: ['-c', command],
    cwd,
    env,
    timeoutMs: extra.timeoutMs ?? 10_000,
    signal: extra.signal,
    outputLimit: extra.outputLimit,
    killGraceMs: 300,
  });
}

test('reports exit codes; non-zero is a normal result', async () => {
  await withTempDir(async (dir) => {
    const ok = await bash('echo hello', dir);
    assert.equal(ok.exitCode, 0);
    assert.equal(ok.signal, null);
    assert.equal(ok.output.text, 'hello\n');
    assert.equal(ok.timedOut, false);
    assert.equal(ok.cancelled, false);
    assert.ok(ok.durationMs >= 0);

    const failed = await bash('echo to-stderr >&2; exit 3', dir);
    assert.equal(failed.exitCode, 3);
    assert.equal(failed.output.text, 'to-stderr\n');
  });
});

test('captures stdout and stderr together and runs in the workdir', async () => {
  await withTempDir(async (dir) => {
    // Two pipes: their relative order is up to the scheduler, so compare as a set of lines.
    const result = await bash('echo out; echo err >&2; pwd', dir);
    assert.deepEqual(result.output.text.split('\n').sort(), ['', 'err', 'out', dir].sort());
  });
});

test('reports a signal that ended the command', async () => {
  await withTempDir(async (dir) => {
    const result = await bash('kill -KILL $$', dir);
    assert.equal(result.exitCode, null);
    assert.equal(result.signal, 'SIGKILL');
  });
});

test('stdin is closed: cat and read return at once', async () => {
  await withTempDir(async (dir) => {
    const result = await bash('cat; read line; echo "read:$?"', dir, { timeoutMs: 5_000 });
    assert.equal(result.timedOut, false);
    assert.equal(result.output.text, 'read:1\n');
  });
});

test('timeout kills the whole process group, even children that ignore SIGTERM', async () => {
  await withTempDir(async (dir) => {
    const command = ["trap '' TERM", 'sleep 100 & echo "child:$!"', 'sleep 100 & echo "child:$!"', 'echo "shell:$$"', 'wait'].join('\n');
    const result = await bash(command, dir, { timeoutMs: 300 });
    assert.equal(result.timedOut, true);
    assert.equal(result.cancelled, false);
    assert.equal(result.exitCode, null);
    const pids = [...printedPids(result.output.text, 'child'), ...printedPids(result.output.text, 'shell')];
    assert.equal(pids.length, 3);
    assert.deepEqual(await settled(() => pids.filter(isRunning)), []);
  });
});

test('abort kills the whole process group', async () => {
  await withTempDir(async (dir) => {
    const pidFile = join(dir, 'pids');
    const controller = new AbortController();
    const running = bash(`sleep 100 & echo "child:$! shell:$$" > ${pidFile}; wait`, dir, {
      timeoutMs: 30_000,
      signal: controller.signal,
    });
    const written = await waitForFile(pidFile);
    controller.abort();
    const result = await running;
    assert.equal(result.cancelled, true);
    assert.equal(result.timedOut, false);
    assert.equal(result.signal, 'SIGTERM');
    const pids = [...printedPids(written, 'child'), ...printedPids(written, 'shell')];
    assert.equal(pids.length, 2);
    assert.deepEqual(await settled(() => pids.filter(isRunning)), []);
  });
});

test('an already aborted signal starts nothing', async () => {
  await withTempDir(async (dir) => {
    const controller = new AbortController();
    controller.abort();
    const result = await bash(`touch ${join(dir, 'ran')}`, dir, { signal: controller.signal });
    assert.equal(result.cancelled, true);
    assert.equal(result.pid, null);
    await assert.rejects(waitForFile(join(dir, 'ran'), 100));
  });
});

test('background jobs do not outlive a command that exits normally', async () => {
  await withTempDir(async (dir) => {
    const result = await bash('sleep 100 & echo "child:$!"; echo done', dir);
    assert.equal(result.exitCode, 0);
    assert.match(result.output.text, /done\n$/);
    const pids = printedPids(result.output.text, 'child');
    assert.equal(pids.length, 1);
    assert.deepEqual(await settled(() => pids.filter(isRunning)), []);
  });
});

test('a process that leaves the group and holds the output pipe does not hang the result', async () => {
  await withTempDir(async (dir) => {
    const marker = `97${Math.floor(Math.random() * 1e6)}.5`;
    try {
      const result = await bash(`setsid sleep ${marker} & echo started`, dir);
      assert.equal(result.exitCode, 0);
      assert.equal(result.output.text, 'started\n');
    } finally {
      for (const pid of processesWithMarker(`sleep ${marker}`)) process.kill(pid, 'SIGKILL');
    }
  });
});

test('long output keeps head and tail with a marker, without losing the count', async () => {
  await withTempDir(async (dir) => {
    const full = Array.from({ length: 100_000 }, (_, i) => `${i + 1}\n`).join('');
    const result = await bash('seq 1 100000', dir, { outputLimit: 1_000 });
    assert.equal(result.output.totalChars, full.length);
    const omitted = full.slice(500, full.length - 500);
    const marker = `[... ${omitted.length} characters / ${omitted.split('\n').length - 1} lines omitted ...]`;
    assert.ok(result.output.text.includes(marker), result.output.text);
    assert.ok(result.output.text.startsWith(full.slice(0, 500)));
    assert.ok(result.output.text.endsWith(full.slice(-500)));
    assert.ok(result.output.text.length < 1_100);
  });
});

test('a missing program rejects instead of hanging', async () => {
  await withTempDir(async (dir) => {
    await assert.rejects(runProcess({ file: join(dir, 'no-such-binary'), args: [], cwd: dir, env, timeoutMs: 1_000 }), /ENOENT/);
  });
});

test('rejects a bad timeout', () => {
  assert.throws(() => runProcess({ file: 'bash', args: [], cwd: '/', env, timeoutMs: 0 }), /timeoutMs/);
});

test('children see only the allowlisted environment', async () => {
  await withTempDir(async (dir) => {
    const result = await runCommand({
      command: 'env',
      root: dir,
      workdir: dir,
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        LC_ALL: 'C',
        OPENAI_API_KEY: 'sk-test-leak-check',
        GITHUB_TOKEN: 'ghp_leak_check',
        GLASSBOX_API_KEY: 'gb-leak-check',
      },
      sandbox: null,
      timeoutMs: 5_000,
    });
    const variables = new Map(
      result.output.text
        .trim()
        .split('\n')
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    assert.ok(!result.output.text.includes('leak'), result.output.text);
    assert.equal(variables.get('LC_ALL'), 'C');
    assert.equal(variables.get('HOME'), dir);
    assert.equal(variables.get('PWD'), dir);
    assert.equal(variables.get('GLASSBOX_SANDBOX'), '0');
    assert.equal(variables.get('NO_COLOR'), '1');
    assert.equal(variables.get('GIT_PAGER'), 'cat');
    const allowed =
      /^(PATH|HOME|LANG|LANGUAGE|LC_\w+|TERM|TZ|TMPDIR|USER|LOGNAME|SHELL|PWD|NO_COLOR|GIT_PAGER|PAGER|GIT_OPTIONAL_LOCKS|GLASSBOX_SANDBOX|SHLVL|_|OLDPWD)$/;
    for (const name of variables.keys()) assert.match(name, allowed);
  });
});

test('onSpawned is called once the child has started, and not for a program that cannot start', async () => {
  await withTempDir(async (dir) => {
    const seen: string[] = [];
    const ran = await runProcess({
      file: 'bash',
      args: ['-c', 'echo ran'],
      cwd: dir,
      env,
      timeoutMs: 10_000,
      onSpawned: () => seen.push('spawned'),
    });
    assert.equal(ran.output.text, 'ran\n');
    assert.deepEqual(seen, ['spawned']);
    const missing = await runProcess({
      file: join(dir, 'no-such-program'),
      args: [],
      cwd: dir,
      env,
      timeoutMs: 10_000,
      onSpawned: () => seen.push('missing spawned'),
    }).catch((error: Error) => error);
    assert.ok(missing instanceof Error || missing.exitCode !== 0);
    assert.deepEqual(seen, ['spawned']);
  });
});

test('the timeout counts from when promised descriptor data is written, not while the child waits for it', async (t) => {
  await withTempDir(async (dir) => {
    // Mocked timers: time "passes" only by tick(), so the wait below is far past the timeout without sleeping.
    t.mock.timers.enable({ apis: ['setTimeout'] });
    let release!: (bytes: Buffer) => void;
    const held = new Promise<Buffer>((resolve) => (release = resolve));
    const running = runProcess({
      file: 'bash',
      args: ['-c', 'read -r line <&3; echo "got $line"'],
      cwd: dir,
      env,
      timeoutMs: 1_000,
      killGraceMs: 300,
      descriptorData: [held],
    });
    t.mock.timers.tick(10_000);
    release(Buffer.from('options\n'));
    const result = await running;
    assert.equal(result.timedOut, false, 'the wait for the data was counted as the command running');
    assert.equal(result.exitCode, 0, result.output.text);
    assert.equal(result.output.text, 'got options\n');
  });
});
