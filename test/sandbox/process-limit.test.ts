// A fork bomb in the sandbox stops at the task limit (issue 22, low: "no process-count limit in the
// sandbox"). The bomb is bounded so that it cannot hurt the machine when the limit is missing: it
// tries to start 5,000 sleeping processes and reports how many it got. Root, whom RLIMIT_NPROC does
// not bind, is stopped by the pids cgroup; other users by RLIMIT_NPROC in the sandbox's own user
// namespace (proven here as `nobody` when the test runs as root). Whatever started is gone after.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { chmod, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { release, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import {
  buildBubblewrapArgs,
  defaultResourceLimits,
  detectSandbox,
  findHostView,
  findPidsParent,
  runCommand,
  runProcess,
  sandboxTaskLimit,
  type ResourceLimits,
} from '../../src/sandbox/index.js';
import { processesWithMarker, settled } from './process-probe.js';

const availability = await detectSandbox();
const skip = availability.available ? false : `bubblewrap unavailable: ${availability.reason}`;
const ATTEMPTS = 5_000;
const LIMIT = 64;

/**
 * Starts `sleep <marker>` children one after another, leaving them running, until ATTEMPTS have
 * started or GIVE_UP starts in a row have failed, and prints `started=N failed=M`. (A fork refused
 * by the pids cgroup costs a copy of node's address space first, so a bomb that kept trying after
 * the limit would only make the test slow.)
 */
const BOMB = `
const { spawn } = require('node:child_process');
const [marker, attempts, giveUp] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const once = () => new Promise((resolve) => {
  const child = spawn('sleep', [marker], { stdio: 'ignore' });
  child.once('spawn', () => resolve(true));
  child.once('error', () => resolve(false));
});
(async () => {
  let started = 0, failed = 0;
  while (started < attempts && failed < giveUp) {
    if (await once()) { started += 1; failed = 0; } else failed += 1;
  }
  console.log('started=' + started + ' failed=' + failed);
  process.exit(0);
})();
`;
const GIVE_UP = 50;

async function project(): Promise<{ root: string; cleanup: () => Promise<void> }> {
  // Under /var/tmp when possible: readable by `nobody`, unlike a mode-0700 home-made temp path.
  const parent = existsSync('/var/tmp') ? '/var/tmp' : tmpdir();
  const root = realpathSync(await mkdtemp(join(parent, 'glassbox-bomb-')));
  await chmod(root, 0o755);
  await writeFile(join(root, 'bomb.cjs'), BOMB, { mode: 0o644 });
  return { root, cleanup: () => rm(root, { recursive: true, force: true }) };
}

function counts(output: string): { started: number; failed: number } {
  const match = /started=(\d+) failed=(\d+)/.exec(output);
  assert.ok(match, `the bomb reported its counts:\n${output}`);
  return { started: Number(match[1]), failed: Number(match[2]) };
}

function marker(): string {
  return `${1_000_000 + randomBytes(3).readUIntBE(0, 3)}.5`;
}

describe('process limit (fork bomb)', { skip }, () => {
  test(`a bomb of ${ATTEMPTS} processes stops at the task limit, and nothing of it survives`, async () => {
    const { root, cleanup } = await project();
    const sleepMarker = marker();
    try {
      const limits: ResourceLimits = { ...defaultResourceLimits(60_000), processes: LIMIT };
      const result = await runCommand({
        command: `node bomb.cjs ${sleepMarker} ${ATTEMPTS} ${GIVE_UP}`,
        root,
        workdir: root,
        env: { PATH: process.env.PATH },
        sandbox: {
          bwrapPath: availability.path ?? 'bwrap',
          mode: 'read-only',
          network: false,
          secretsApproved: false,
          homeDir: join(root, 'home'),
          glassboxHome: join(root, 'home', '.glassbox'),
        },
        timeoutMs: 120_000,
        limits,
      });
      const { started, failed } = counts(result.output.text);
      assert.ok(started > 0 && started < LIMIT, `at most ${LIMIT} tasks, node's own threads included: ${started} sleeps started`);
      assert.equal(failed, GIVE_UP, 'it stopped because every further start was refused');
      assert.deepEqual(await settled(() => processesWithMarker(`sleep ${sleepMarker}`)), [], 'the sleeps died with the sandbox');
    } finally {
      for (const pid of processesWithMarker(`sleep ${sleepMarker}`)) process.kill(pid, 'SIGKILL');
      await cleanup();
    }
  });

  test('as root, each command gets a pids cgroup of its own, removed after it (one is kept ready for the next)', async (t) => {
    const parent = await findPidsParent();
    if (process.getuid?.() !== 0 || parent === null) {
      t.skip(parent === null ? 'no pids cgroup can be made here' : 'not root: RLIMIT_NPROC is the limit');
      return;
    }
    // A limit no other test uses, so the cgroups counted here are this test's.
    const limits: ResourceLimits = { ...defaultResourceLimits(60_000), processes: 4_321 };
    const ours = async (): Promise<string[]> => {
      const found: string[] = [];
      for (const name of (await readdir(parent)).filter((entry) => entry.startsWith(`glassbox-${process.pid}-`))) {
        const max = await readFile(join(parent, name, 'pids.max'), 'utf8').catch(() => '');
        if (max.trim() === '4321') found.push(name);
      }
      return found;
    };
    const { root, cleanup } = await project();
    try {
      for (let run = 0; run < 4; run += 1) {
        const result = await runCommand({
          command: 'cat /proc/self/cgroup >/dev/null; echo ran',
          root,
          workdir: root,
          env: { PATH: process.env.PATH },
          sandbox: {
            bwrapPath: availability.path ?? 'bwrap',
            mode: 'read-only',
            network: false,
            secretsApproved: false,
            homeDir: join(root, 'home'),
            glassboxHome: join(root, 'home', '.glassbox'),
          },
          timeoutMs: 60_000,
          limits,
        });
        assert.equal(result.output.text, 'ran\n');
      }
      const deadline = Date.now() + 5_000;
      let left = await ours();
      while (left.length > 1 && Date.now() < deadline) {
        await delay(20);
        left = await ours();
      }
      assert.equal(left.length, 1, `only the spare is left: ${left.join(', ')}`);
    } finally {
      await cleanup();
    }
  });

  const asRoot = process.getuid?.() === 0;
  const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find((path) => existsSync(path));
  const nodeForNobody = (): boolean => {
    try {
      execFileSync(setpriv!, ['--reuid=65534', '--regid=65534', '--clear-groups', '--', process.execPath, '-e', '0'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };
  const nonRootSkip = !asRoot
    ? 'not root: the test above already ran under RLIMIT_NPROC'
    : setpriv === undefined
      ? 'setpriv is not installed'
      : !nodeForNobody()
        ? `nobody cannot run ${process.execPath}`
        : false;

  test('as another user than root, RLIMIT_NPROC in the sandbox stops it (no cgroup)', { skip: nonRootSkip }, async () => {
    const { root, cleanup } = await project();
    const sleepMarker = marker();
    try {
      const home = join(root, 'home');
      const limits: ResourceLimits = { ...defaultResourceLimits(60_000), processes: LIMIT };
      const view = await findHostView({
        root,
        homeDir: home,
        glassboxHome: join(home, '.glassbox'),
        searchPath: '/usr/local/bin:/usr/bin:/bin',
        nodeBinary: process.execPath,
        network: false,
        readablePaths: [],
      });
      const args = buildBubblewrapArgs({
        root,
        workdir: root,
        mode: 'read-only',
        network: false,
        secretsApproved: false,
        protectedPaths: [],
        view,
        command: `node bomb.cjs ${sleepMarker} ${ATTEMPTS} ${GIVE_UP}`,
        limits,
        // What runCommand sets for a user other than root; `nobody` runs nothing else here.
        processTasks: sandboxTaskLimit(LIMIT, release(), () => 0),
      });
      const result = await runProcess({
        file: setpriv!,
        args: ['--reuid=65534', '--regid=65534', '--clear-groups', '--', availability.path ?? 'bwrap', ...args],
        cwd: root,
        env: { PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin` },
        timeoutMs: 120_000,
      });
      const { started, failed } = counts(result.output.text);
      assert.ok(started > 0 && started < LIMIT, `RLIMIT_NPROC held: ${started} sleeps started`);
      assert.equal(failed, GIVE_UP);
      assert.deepEqual(await settled(() => processesWithMarker(`sleep ${sleepMarker}`)), []);
    } finally {
      for (const pid of processesWithMarker(`sleep ${sleepMarker}`)) process.kill(pid, 'SIGKILL');
      await cleanup();
    }
  });
});
