import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  bubblewrapIsolation,
  buildBubblewrapArgs,
  tmpfsSizeSupported,
  type BubblewrapSpec,
  type HostView,
  type ProtectedPath,
} from '../../src/sandbox/index.js';
import { withTempDir } from '../helpers/temp-dir.js';

const root = '/work/project';
/** A merged-/usr host whose home directory (/home/me) shows only its toolchains, one of them linked from elsewhere. */
const view: HostView = {
  system: [
    { kind: 'ro-bind', path: '/usr' },
    { kind: 'symlink', path: '/bin', target: 'usr/bin' },
    { kind: 'ro-bind', path: '/etc' },
  ],
  covered: ['/home/me'],
  extras: [
    { kind: 'ro-bind', path: '/home/me/.cargo' },
    { kind: 'ro-bind', path: '/data/nvm' },
    { kind: 'symlink', path: '/home/me/.nvm', target: '/data/nvm' },
  ],
  enclosingWorkTree: null,
};
const protectedPaths: ProtectedPath[] = [
  { path: '/work/project/.git', kind: 'directory', reason: 'git' },
  { path: '/work/project/.env', kind: 'file', reason: 'secret-file' },
  { path: '/work/project/api/.env.local', kind: 'file', reason: 'secret-file' },
  { path: '/home/me/.ssh', kind: 'directory', reason: 'home-secret' },
  { path: '/home/me/.netrc', kind: 'file', reason: 'home-secret' },
  { path: '/home/me/.glassbox', kind: 'directory', reason: 'glassbox-home' },
  { path: '/home/me/.cargo/credentials.toml', kind: 'file', reason: 'home-secret' },
  { path: '/etc/shadow', kind: 'file', reason: 'system-secret' },
];

function spec(overrides: Partial<BubblewrapSpec> = {}): BubblewrapSpec {
  return {
    root,
    workdir: `${root}/api`,
    mode: 'workspace-write',
    network: false,
    secretsApproved: false,
    protectedPaths,
    view,
    command: 'npm test',
    ...overrides,
  };
}

/** The args as triples/pairs are hard to read; look for an exact run of consecutive arguments. */
function indexOfRun(args: string[], run: string[]): number {
  for (let i = 0; i + run.length <= args.length; i += 1) {
    if (run.every((value, offset) => args[i + offset] === value)) return i;
  }
  return -1;
}

function has(args: string[], ...run: string[]): boolean {
  return indexOfRun(args, run) !== -1;
}

test('workspace-write: the host shown as an allowlist, writable root, frozen .git, masked secrets, no network', () => {
  const args = buildBubblewrapArgs(spec());
  // Nothing of the host is bound wholesale: no `/` bind, only the system trees and links of the view.
  assert.ok(!has(args, '--ro-bind', '/', '/'));
  // Isolation first (it needs no look at the host), then the view.
  const isolation = bubblewrapIsolation(spec());
  assert.deepEqual(args.slice(0, isolation.length), isolation);
  assert.deepEqual(args.slice(isolation.length, isolation.length + 9), [
    '--ro-bind',
    '/usr',
    '/usr',
    '--symlink',
    'usr/bin',
    '/bin',
    '--ro-bind',
    '/etc',
    '/etc',
  ]);
  assert.ok(has(args, '--dev', '/dev', '--proc', '/proc'));
  // The kernel's writable and key-reading parts of /proc are covered in every case (as root bwrap
  // leaves /proc/sys writable).
  for (const path of ['/proc/sys', '/proc/sysrq-trigger', '/proc/irq', '/proc/bus', '/proc/fs']) {
    assert.ok(has(args, '--ro-bind-try', path, path), path);
  }
  // Every writable tmpfs is sized so together they fit in the default 1 GiB memory budget.
  const gib = 1024 ** 3;
  assert.ok(has(args, '--size', String(gib / 4), '--tmpfs', '/dev/shm'));
  assert.ok(has(args, '--size', String(gib / 2), '--tmpfs', '/tmp'));
  assert.ok(has(args, '--size', String(gib / 4), '--tmpfs', '/var/tmp'));
  assert.ok(has(args, '--tmpfs', '/run', '--symlink', '../run', '/var/run'));
  assert.ok(has(args, '--remount-ro', '/dev'), '/dev itself is read-only; its device nodes still work');
  for (const flag of [
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--die-with-parent',
    '--new-session',
    '--unshare-net',
  ]) {
    assert.ok(args.includes(flag), flag);
  }
  assert.ok(has(args, '--cap-drop', 'ALL'));
  assert.ok(has(args, '--tmpfs', '/home/me'));
  assert.ok(has(args, '--remount-ro', '/home/me'), 'the home directory is empty and read-only but for what is shown on it');
  assert.ok(has(args, '--ro-bind', '/home/me/.cargo', '/home/me/.cargo'));
  assert.ok(has(args, '--ro-bind', '/data/nvm', '/data/nvm'));
  assert.ok(has(args, '--symlink', '/data/nvm', '/home/me/.nvm'));
  assert.ok(has(args, '--bind', root, root));
  assert.ok(has(args, '--ro-bind', `${root}/.git`, `${root}/.git`));
  assert.ok(has(args, '--ro-bind', '/dev/null', `${root}/.env`));
  assert.ok(has(args, '--ro-bind', '/dev/null', `${root}/api/.env.local`));
  // Shown, so masked: a credential file inside a toolchain directory, the system's password hashes.
  assert.ok(has(args, '--ro-bind', '/dev/null', '/home/me/.cargo/credentials.toml'));
  assert.ok(has(args, '--ro-bind', '/dev/null', '/etc/shadow'));
  // Not shown at all, so no mount (a mount point would reveal that they exist).
  for (const hidden of ['/home/me/.ssh', '/home/me/.netrc', '/home/me/.glassbox']) assert.ok(!args.includes(hidden), hidden);
  // /run is empty and, like the sandbox's own root, read-only.
  assert.ok(has(args, '--remount-ro', '/run'));
  assert.deepEqual(args.slice(-7), ['--remount-ro', '/', '--chdir', `${root}/api`, '/bin/bash', '-c', 'npm test']);
});

test('mount order: system, private directories, the rest of the view, outside masks, the root, what is inside it', () => {
  const args = buildBubblewrapArgs(spec());
  const rootBind = indexOfRun(args, ['--bind', root, root]);
  const tmp = indexOfRun(args, ['--tmpfs', '/tmp']);
  assert.ok(indexOfRun(args, ['--ro-bind', '/usr', '/usr']) < tmp);
  assert.ok(
    tmp < indexOfRun(args, ['--ro-bind', '/home/me/.cargo', '/home/me/.cargo']),
    'a toolchain under /tmp shows through the private /tmp',
  );
  const credentialMask = indexOfRun(args, ['--ro-bind', '/dev/null', '/home/me/.cargo/credentials.toml']);
  assert.ok(indexOfRun(args, ['--ro-bind', '/home/me/.cargo', '/home/me/.cargo']) < credentialMask);
  assert.ok(credentialMask < rootBind);
  assert.ok(indexOfRun(args, ['--ro-bind', `${root}/.git`, `${root}/.git`]) > rootBind);
  assert.ok(indexOfRun(args, ['--ro-bind', '/dev/null', `${root}/.env`]) > rootBind);
  // Read-only remounts come after every bind so mount points inside masks can still be created.
  assert.ok(indexOfRun(args, ['--remount-ro', '/run']) > indexOfRun(args, ['--ro-bind', '/dev/null', `${root}/.env`]));
});

test('a home directory inside a system tree is covered, and its toolchains shown again on top', () => {
  const args = buildBubblewrapArgs(
    spec({
      view: {
        system: [{ kind: 'ro-bind', path: '/opt' }],
        covered: ['/opt/app'],
        extras: [{ kind: 'ro-bind', path: '/opt/app/.cargo' }],
        enclosingWorkTree: null,
      },
      protectedPaths: [
        { path: '/opt/app/.ssh', kind: 'directory', reason: 'home-secret' },
        { path: '/opt/app/.cargo/credentials', kind: 'file', reason: 'home-secret' },
      ],
    }),
  );
  const cover = indexOfRun(args, ['--tmpfs', '/opt/app']);
  assert.ok(indexOfRun(args, ['--ro-bind', '/opt', '/opt']) < cover);
  assert.ok(cover < indexOfRun(args, ['--ro-bind', '/opt/app/.cargo', '/opt/app/.cargo']));
  assert.ok(has(args, '--remount-ro', '/opt/app'));
  assert.ok(!args.includes('/opt/app/.ssh'), 'under the cover, nothing to mask');
  assert.ok(has(args, '--ro-bind', '/dev/null', '/opt/app/.cargo/credentials'));
});

test('read-only: the root is bound read-only and .git needs no extra bind', () => {
  const args = buildBubblewrapArgs(spec({ mode: 'read-only' }));
  assert.ok(has(args, '--ro-bind', root, root));
  assert.ok(!has(args, '--bind', root, root));
  assert.ok(!has(args, '--ro-bind', `${root}/.git`, `${root}/.git`));
  assert.ok(has(args, '--ro-bind', '/dev/null', `${root}/.env`));
});

test('approved secrets stay visible but read-only; home credentials stay masked', () => {
  const args = buildBubblewrapArgs(spec({ secretsApproved: true }));
  assert.ok(!has(args, '--ro-bind', '/dev/null', `${root}/.env`));
  assert.ok(has(args, '--ro-bind', `${root}/.env`, `${root}/.env`));
  assert.ok(has(args, '--ro-bind', `${root}/api/.env.local`, `${root}/api/.env.local`));
  assert.ok(has(args, '--ro-bind', '/dev/null', '/home/me/.cargo/credentials.toml'));
  assert.ok(!args.includes('/home/me/.ssh') && !args.includes('/home/me/.glassbox'));
});

test('a project that is the home directory: its credential stores are masked inside the root', () => {
  const args = buildBubblewrapArgs(spec({ root: '/home/me', workdir: '/home/me', secretsApproved: true, view: { ...view, covered: [] } }));
  assert.ok(has(args, '--tmpfs', '/home/me/.ssh'));
  assert.ok(has(args, '--ro-bind', '/dev/null', '/home/me/.netrc'));
  assert.ok(has(args, '--tmpfs', '/home/me/.glassbox'));
});

test('network on: no --unshare-net; the view decides what else is shown', () => {
  const args = buildBubblewrapArgs(spec({ network: true }));
  assert.ok(!args.includes('--unshare-net'));
  assert.ok(args.includes('--unshare-ipc'));
});

test('limits: the shell sets RLIMIT_NPROC to the task limit it is given', () => {
  const limits = { dataBytes: 1024 ** 3, cpuSeconds: 60, processes: 300 };
  assert.match(buildBubblewrapArgs(spec({ limits })).at(-3) ?? '', /ulimit -u 300 /);
  assert.match(buildBubblewrapArgs(spec({ limits, processTasks: 345 })).at(-3) ?? '', /ulimit -u 345 /);
});

test('paths under the private /tmp are not mounted over, unless inside the root', () => {
  const args = buildBubblewrapArgs(
    spec({
      root: '/tmp/project',
      workdir: '/tmp/project',
      protectedPaths: [
        { path: '/tmp/home/.ssh', kind: 'directory', reason: 'home-secret' },
        { path: '/tmp/project/.env', kind: 'file', reason: 'secret-file' },
      ],
    }),
  );
  assert.ok(!args.includes('/tmp/home/.ssh'));
  assert.ok(has(args, '--bind', '/tmp/project', '/tmp/project'));
  assert.ok(has(args, '--ro-bind', '/dev/null', '/tmp/project/.env'));
});

/** A view that shows /data, where a Glassbox home and a project inside it live. */
const dataView: HostView = { system: [], covered: [], extras: [{ kind: 'ro-bind', path: '/data' }], enclosingWorkTree: null };

test('a masked ancestor of the root is masked before the root is bound', () => {
  const args = buildBubblewrapArgs(
    spec({
      root: '/data/.glassbox/work',
      workdir: '/data/.glassbox/work',
      view: dataView,
      protectedPaths: [{ path: '/data/.glassbox', kind: 'directory', reason: 'glassbox-home' }],
    }),
  );
  assert.ok(
    indexOfRun(args, ['--tmpfs', '/data/.glassbox']) < indexOfRun(args, ['--bind', '/data/.glassbox/work', '/data/.glassbox/work']),
  );
});

test('a root inside a Glassbox home that is not shown needs no mask: only the root is there', () => {
  const args = buildBubblewrapArgs(
    spec({
      root: '/home/me/.glassbox/work',
      workdir: '/home/me/.glassbox/work',
      protectedPaths: [{ path: '/home/me/.glassbox', kind: 'directory', reason: 'glassbox-home' }],
    }),
  );
  assert.ok(!has(args, '--tmpfs', '/home/me/.glassbox'));
  assert.ok(has(args, '--bind', '/home/me/.glassbox/work', '/home/me/.glassbox/work'));
});

test('inside a root under a masked directory, .git and secrets are still handled', () => {
  const gbRoot = '/data/.glassbox/work';
  const args = buildBubblewrapArgs(
    spec({
      root: gbRoot,
      workdir: gbRoot,
      view: dataView,
      protectedPaths: [
        { path: '/data/.glassbox', kind: 'directory', reason: 'glassbox-home' },
        { path: `${gbRoot}/.git`, kind: 'directory', reason: 'git' },
        { path: `${gbRoot}/.env`, kind: 'file', reason: 'secret-file' },
      ],
    }),
  );
  assert.ok(has(args, '--tmpfs', '/data/.glassbox'));
  assert.ok(has(args, '--ro-bind', `${gbRoot}/.git`, `${gbRoot}/.git`));
  assert.ok(has(args, '--ro-bind', '/dev/null', `${gbRoot}/.env`));
});

test('nothing is re-bound inside a masked directory, even an approved secret', () => {
  const args = buildBubblewrapArgs(
    spec({
      root: '/home/me',
      workdir: '/home/me',
      secretsApproved: true,
      protectedPaths: [
        { path: '/home/me/.ssh', kind: 'directory', reason: 'home-secret' },
        { path: '/home/me/.ssh/id_ed25519', kind: 'file', reason: 'secret-file' },
        { path: '/home/me/app/.env', kind: 'file', reason: 'secret-file' },
      ],
    }),
  );
  assert.ok(has(args, '--tmpfs', '/home/me/.ssh'));
  assert.ok(!args.includes('/home/me/.ssh/id_ed25519'));
  assert.ok(has(args, '--ro-bind', '/home/me/app/.env', '/home/me/app/.env'));
});

test('the command is one argument, never re-split', () => {
  const command = `echo "a b" 'c;d' $(whoami) && rm -rf --no-preserve-root x`;
  const args = buildBubblewrapArgs(spec({ command }));
  assert.deepEqual(args.slice(-3), ['/bin/bash', '-c', command]);
});

test('bad specs are refused with a clear error', () => {
  assert.throws(() => buildBubblewrapArgs(spec({ root: 'relative' })), /root must be an absolute path/);
  assert.throws(() => buildBubblewrapArgs(spec({ workdir: '/elsewhere' })), /outside the root/);
  assert.throws(() => buildBubblewrapArgs(spec({ command: '  ' })), /command must not be empty/);
  assert.throws(() => buildBubblewrapArgs(spec({ protectedPaths: [{ path: 'x/.env', kind: 'file', reason: 'secret-file' }] })), /absolute/);
});

test('a seccomp filter descriptor is handed to bwrap, and the tmpfs sizes follow the memory limit', () => {
  assert.ok(!buildBubblewrapArgs(spec()).includes('--seccomp'));
  const limits = { cpuSeconds: 60, dataBytes: 400 * 1024 ** 2, processes: 256 };
  const args = buildBubblewrapArgs(spec({ seccompFd: 3, limits }));
  assert.ok(has(args, '--seccomp', '3'));
  assert.ok(has(args, '--size', String(200 * 1024 ** 2), '--tmpfs', '/tmp'));
  assert.ok(has(args, '--size', String(100 * 1024 ** 2), '--tmpfs', '/dev/shm'));
  // A bwrap without `--size` (before 0.7, or setuid) still sandboxes, with unbounded tmpfs mounts.
  const unsized = buildBubblewrapArgs(spec({ limits, sizedTmpfs: false }));
  assert.ok(!unsized.includes('--size'));
  assert.ok(has(unsized, '--tmpfs', '/tmp') && has(unsized, '--tmpfs', '/dev/shm'));
});

test('tmpfsSizeSupported asks the binary itself, once', async () => {
  await withTempDir(async (dir) => {
    const calls = join(dir, 'calls');
    const script = (name: string, refuse: boolean) =>
      `#!/bin/sh\necho x >> '${calls}-${name}'\n${refuse ? 'for a; do [ "$a" = --size ] && { echo "bwrap: Unknown option --size" >&2; exit 1; }; done\n' : ''}exit 0\n`;
    for (const [name, refuse] of [
      ['old', true],
      ['new', false],
    ] as const) {
      await writeFile(join(dir, name), script(name, refuse));
      await chmod(join(dir, name), 0o755);
    }
    assert.equal(await tmpfsSizeSupported(join(dir, 'old')), false);
    assert.equal(await tmpfsSizeSupported(join(dir, 'new')), true);
    assert.equal(await tmpfsSizeSupported(join(dir, 'old')), false);
    assert.equal((await readFile(`${calls}-old`, 'utf8')).trim().split('\n').length, 1, 'asked once');
  });
});
