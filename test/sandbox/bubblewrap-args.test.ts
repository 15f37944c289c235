import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildBubblewrapArgs, type BubblewrapSpec, type ProtectedPath } from '../../src/sandbox/index.js';

const root = '/work/project';
const protectedPaths: ProtectedPath[] = [
  { path: '/work/project/.git', kind: 'directory', reason: 'git' },
  { path: '/work/project/.env', kind: 'file', reason: 'secret-file' },
  { path: '/work/project/api/.env.local', kind: 'file', reason: 'secret-file' },
  { path: '/home/me/.ssh', kind: 'directory', reason: 'home-secret' },
  { path: '/home/me/.netrc', kind: 'file', reason: 'home-secret' },
  { path: '/home/me/.glassbox', kind: 'directory', reason: 'glassbox-home' },
];

function spec(overrides: Partial<BubblewrapSpec> = {}): BubblewrapSpec {
  return {
    root,
    workdir: `${root}/api`,
    mode: 'workspace-write',
    network: false,
    secretsApproved: false,
    protectedPaths,
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

test('workspace-write: read-only system, writable root, frozen .git, masked secrets, no network', () => {
  const args = buildBubblewrapArgs(spec());
  assert.deepEqual(args.slice(0, 10), ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--unshare-pid']);
  for (const flag of ['--die-with-parent', '--new-session', '--unshare-net']) assert.ok(args.includes(flag), flag);
  assert.ok(has(args, '--cap-drop', 'ALL'));
  assert.ok(has(args, '--bind', root, root));
  assert.ok(has(args, '--ro-bind', `${root}/.git`, `${root}/.git`));
  assert.ok(has(args, '--ro-bind', '/dev/null', `${root}/.env`));
  assert.ok(has(args, '--ro-bind', '/dev/null', `${root}/api/.env.local`));
  assert.ok(has(args, '--tmpfs', '/home/me/.ssh'));
  assert.ok(has(args, '--remount-ro', '/home/me/.ssh'));
  assert.ok(has(args, '--ro-bind', '/dev/null', '/home/me/.netrc'));
  assert.ok(has(args, '--tmpfs', '/home/me/.glassbox'));
  assert.deepEqual(args.slice(-5), ['--chdir', `${root}/api`, 'bash', '-c', 'npm test']);
});

test('mount order: outside masks, then the root, then what is inside it', () => {
  const args = buildBubblewrapArgs(spec());
  const rootBind = indexOfRun(args, ['--bind', root, root]);
  assert.ok(indexOfRun(args, ['--tmpfs', '/tmp']) < rootBind);
  assert.ok(indexOfRun(args, ['--tmpfs', '/home/me/.ssh']) < rootBind);
  assert.ok(indexOfRun(args, ['--ro-bind', `${root}/.git`, `${root}/.git`]) > rootBind);
  assert.ok(indexOfRun(args, ['--ro-bind', '/dev/null', `${root}/.env`]) > rootBind);
  // Read-only remounts come after every bind so mount points inside masks can still be created.
  assert.ok(indexOfRun(args, ['--remount-ro', '/home/me/.ssh']) > indexOfRun(args, ['--ro-bind', '/dev/null', `${root}/.env`]));
});

test('read-only: the root is bound read-only and .git needs no extra bind', () => {
  const args = buildBubblewrapArgs(spec({ mode: 'read-only' }));
  assert.ok(has(args, '--ro-bind', root, root));
  assert.ok(!has(args, '--bind', root, root));
  assert.ok(!has(args, '--ro-bind', `${root}/.git`, `${root}/.git`));
  assert.ok(has(args, '--ro-bind', '/dev/null', `${root}/.env`));
});

test('network allowed: no --unshare-net', () => {
  assert.ok(!buildBubblewrapArgs(spec({ network: true })).includes('--unshare-net'));
});

test('approved secrets stay visible but read-only; home credentials stay masked', () => {
  const args = buildBubblewrapArgs(spec({ secretsApproved: true }));
  assert.ok(!has(args, '--ro-bind', '/dev/null', `${root}/.env`));
  assert.ok(has(args, '--ro-bind', `${root}/.env`, `${root}/.env`));
  assert.ok(has(args, '--ro-bind', `${root}/api/.env.local`, `${root}/api/.env.local`));
  assert.ok(has(args, '--tmpfs', '/home/me/.ssh'));
  assert.ok(has(args, '--tmpfs', '/home/me/.glassbox'));
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

test('a masked ancestor of the root is masked before the root is bound', () => {
  const args = buildBubblewrapArgs(
    spec({
      root: '/home/me/.glassbox/work',
      workdir: '/home/me/.glassbox/work',
      protectedPaths: [{ path: '/home/me/.glassbox', kind: 'directory', reason: 'glassbox-home' }],
    }),
  );
  assert.ok(
    indexOfRun(args, ['--tmpfs', '/home/me/.glassbox']) <
      indexOfRun(args, ['--bind', '/home/me/.glassbox/work', '/home/me/.glassbox/work']),
  );
});

test('inside a root under a masked directory, .git and secrets are still handled', () => {
  const gbRoot = '/home/me/.glassbox/work';
  const args = buildBubblewrapArgs(
    spec({
      root: gbRoot,
      workdir: gbRoot,
      protectedPaths: [
        { path: '/home/me/.glassbox', kind: 'directory', reason: 'glassbox-home' },
        { path: `${gbRoot}/.git`, kind: 'directory', reason: 'git' },
        { path: `${gbRoot}/.env`, kind: 'file', reason: 'secret-file' },
      ],
    }),
  );
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
  assert.deepEqual(args.slice(-3), ['bash', '-c', command]);
});

test('bad specs are refused with a clear error', () => {
  assert.throws(() => buildBubblewrapArgs(spec({ root: 'relative' })), /root must be an absolute path/);
  assert.throws(() => buildBubblewrapArgs(spec({ workdir: '/elsewhere' })), /outside the root/);
  assert.throws(() => buildBubblewrapArgs(spec({ command: '  ' })), /command must not be empty/);
  assert.throws(() => buildBubblewrapArgs(spec({ protectedPaths: [{ path: 'x/.env', kind: 'file', reason: 'secret-file' }] })), /absolute/);
});
