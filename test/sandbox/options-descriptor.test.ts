// A sandboxed command's process chain starts before the walks that decide bwrap's options (the
// cgroup join and bash's start overlap them): bwrap waits for its options on a descriptor. These
// hold that order with the real bwrap: the command does not run while the walks are unfinished,
// runs once they are, sees no descriptor of that channel, and never runs when the walks fail.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { bubblewrapCommand, bubblewrapIsolation, SEAL_VARIABLE } from '../../src/sandbox/bubblewrap.js';
import { DirectoryListings, type DirectoryLister } from '../../src/sandbox/directory-listings.js';
import { defaultResourceLimits } from '../../src/sandbox/resource-limits.js';
import { runSandboxed, sandboxAvailability } from '../helpers/sandboxed-command.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { gate } from '../helpers/team-processes.js';
import { waitUntil } from '../helpers/wait-until.js';

/** Listings whose walks wait until `held` is opened. */
class HeldListings extends DirectoryListings {
  constructor(private readonly held: Promise<void>) {
    super();
  }
  override snapshot(): DirectoryLister {
    const inner = super.snapshot();
    return {
      list: async (path) => {
        await this.held;
        return inner.list(path);
      },
    };
  }
}

/** Pids whose command line holds `needle` (the waiting bwrap carries the command on its own). */
function processesWith(needle: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(needle)) found.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** The argv of the bwrap (exec'd by the chain) whose command line holds `needle`, once it is bwrap. */
function waitingBwrap(needle: string): string[] | null {
  for (const pid of processesWith(needle)) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (argv[0] === sandboxAvailability.path && argv.includes('--args')) return argv;
    } catch {
      // Gone meanwhile.
    }
  }
  return null;
}

function project(dir: string): { root: string; home: string } {
  assert.ok(sandboxAvailability.available, `these tests need bubblewrap: ${sandboxAvailability.reason}`);
  const base = realpathSync(dir);
  const root = join(base, 'project');
  const home = join(base, 'home');
  mkdirSync(root);
  mkdirSync(home);
  writeFileSync(join(root, 'README.md'), 'hello\n');
  return { root, home };
}

test('bwrap waits for its options: the command runs only once the walks have finished', async () => {
  await withTempDir(async (dir) => {
    const { root, home } = project(dir);
    const walks = gate();
    const marker = `started-${process.pid}-${Date.now()}`;
    const running = runSandboxed({ command: `touch ${marker}`, root, home, timeoutMs: 30_000, listings: new HeldListings(walks.promise) });
    // The chain is up (bwrap, with the command on its command line) while the walks are held…
    await waitUntil(async () => waitingBwrap(marker) !== null, 'the waiting bwrap', 20_000);
    assert.equal(existsSync(join(root, marker)), false, 'the command ran before its sandbox options were decided');
    // What needs no walk is on its own command line, so a list cut short on the descriptor can
    // only lack mounts: namespaces, the capability drop and the seccomp filter are already there.
    const argv = waitingBwrap(marker) ?? [];
    const before = argv.slice(1, argv.indexOf('--args'));
    const missing = ['--unshare-pid', '--unshare-net', '--unshare-ipc', '--die-with-parent', '--new-session'].filter(
      (option) => !before.includes(option),
    );
    if (before[before.indexOf('--cap-drop') + 1] !== 'ALL') missing.push('--cap-drop ALL');
    if (before[before.indexOf('--seccomp') + 1] !== '3') missing.push('--seccomp 3');
    // Let the command finish either way, so a failure here does not leave it waiting.
    walks.open();
    const result = await running;
    assert.deepEqual(missing, [], `not on bwrap's own command line: ${argv.join(' ')}`);
    assert.equal(result.exitCode, 0, result.output.text);
    // …and the command ran after them, in the sandbox.
    assert.equal(existsSync(join(root, marker)), true);
    assert.deepEqual(processesWith(marker), [], 'nothing of the command outlived it');
  });
});

test('the options channel is closed before the command: it sees only stdin, stdout and stderr', async () => {
  await withTempDir(async (dir) => {
    const { root, home } = project(dir);
    // Each descriptor `ls` has open and what it is; its own handle on the directory is the only other.
    const result = await runSandboxed({ command: 'ls -l /proc/self/fd', root, home, timeoutMs: 30_000 });
    assert.equal(result.exitCode, 0, result.output.text);
    const open = [...result.output.text.matchAll(/ (\d+) -> (.*)$/gm)]
      .map(([, fd, target]) => [fd, target])
      .filter(([fd, target]) => Number(fd) > 2 && !/^\/proc\/\d+\/fd$/.test(target ?? ''));
    assert.deepEqual(open, [], `descriptors the command inherited:\n${result.output.text}`);
  });
});

test('walks that fail stop the waiting chain: the command never runs and the error is the walks’', async () => {
  await withTempDir(async (dir) => {
    const { root, home } = project(dir);
    const elsewhere = join(realpathSync(dir), 'elsewhere');
    mkdirSync(elsewhere);
    const marker = `never-${process.pid}-${Date.now()}`;
    await assert.rejects(
      // A working directory outside the root: bwrap's options cannot be built for it.
      runSandboxed({ command: `touch ${join(elsewhere, marker)}`, root, home, workdir: elsewhere, timeoutMs: 30_000 }),
      /is outside the root/,
    );
    assert.equal(existsSync(join(elsewhere, marker)), false, 'the command ran without its sandbox options');
    assert.deepEqual(processesWith(marker), [], 'the waiting chain was left behind');
  });
});

test('options cut short (no seal at their end) never run the command; whole ones do', async () => {
  await withTempDir(async (dir) => {
    const { root } = project(dir);
    const marker = join(root, 'ran');
    const seal = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
    const command = bubblewrapCommand({ bash: '/bin/bash', command: `touch ${marker}`, limits: defaultResourceLimits(30_000), seal });
    // Options as bwrap reads them from its descriptor; the sealed list ends in the --setenv.
    const base = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--bind', root, root, '--unshare-pid', '--chdir', root];
    const run = (options: string[]) => {
      const fd = writeOptions(dir, options);
      try {
        return spawnSync(sandboxAvailability.path!, ['--args', '4', ...command], {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe', 'ignore', fd],
        });
      } finally {
        closeSync(fd);
      }
    };
    const cut = run(base);
    assert.equal(cut.status, 125, cut.stderr);
    assert.match(cut.stderr, /options did not all arrive/);
    assert.equal(existsSync(marker), false, 'the command ran on options cut short');
    const whole = run([...base, '--setenv', SEAL_VARIABLE, seal]);
    assert.equal(whole.status, 0, whole.stderr);
    assert.equal(existsSync(marker), true);
  });
});

/** A file holding `options` NUL-separated, opened for reading (the descriptor bwrap reads them from). */
function writeOptions(dir: string, options: string[]): number {
  const path = join(dir, `options-${options.length}`);
  writeFileSync(path, `${options.join('\0')}\0`);
  return openSync(path, 'r');
}

test('a list cut right after its first mount still runs with no capabilities and no host network', async () => {
  await withTempDir(async (dir) => {
    const { root } = project(dir);
    // No seal: what would run if the seal check were not there, on the shortest list that runs at all.
    const command = bubblewrapCommand({
      bash: '/bin/bash',
      command: 'grep ^CapEff /proc/self/status; tail -n +3 /proc/self/net/dev | cut -d: -f1',
      limits: defaultResourceLimits(30_000),
    });
    const fd = writeOptions(dir, ['--ro-bind', '/', '/', '--proc', '/proc', '--chdir', root]);
    try {
      const result = spawnSync(sandboxAvailability.path!, [...bubblewrapIsolation({ network: false }), '--args', '4', ...command], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe', 'ignore', fd],
      });
      assert.equal(result.status, 0, result.stderr);
      assert.match(result.stdout, /^CapEff:\s+0+$/m, result.stdout);
      assert.deepEqual(
        result.stdout
          .split('\n')
          .slice(1)
          .map((line) => line.trim())
          .filter(Boolean),
        ['lo'],
        result.stdout,
      );
    } finally {
      closeSync(fd);
    }
  });
});
