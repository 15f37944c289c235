// What the sandbox shows of the host, decided on a real file system: a fake home with toolchain
// directories, credential stores and other files; PATH directories inside and outside it, one
// holding a Unix socket; a git worktree whose git directory lives elsewhere, and a planted
// `gitdir:` pointer that must not make another directory visible; the user's readablePaths.

import assert from 'node:assert/strict';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { findHostView, readSandboxConfig, type HostView, type HostViewOptions } from '../../src/sandbox/index.js';
import { withTempDir } from '../helpers/temp-dir.js';

function binds(view: HostView): string[] {
  return view.extras.filter((entry) => entry.kind === 'ro-bind').map((entry) => entry.path);
}

function links(view: HostView): Record<string, string> {
  const found: Record<string, string> = {};
  for (const entry of view.extras) if (entry.kind === 'symlink') found[entry.path] = entry.target;
  return found;
}

async function listen(path: string): Promise<Server> {
  const server = createServer((socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return server;
}

interface Layout {
  dir: string;
  root: string;
  home: string;
  options(overrides?: Partial<HostViewOptions>): HostViewOptions;
}

async function withLayout(fn: (layout: Layout) => Promise<void>): Promise<void> {
  await withTempDir(async (dir) => {
    const root = join(dir, 'project');
    const home = join(dir, 'home');
    await mkdir(root);
    await mkdir(home);
    const options = (overrides: Partial<HostViewOptions> = {}): HostViewOptions => ({
      root,
      homeDir: home,
      glassboxHome: join(home, '.glassbox'),
      searchPath: '/usr/bin:/bin',
      nodeBinary: '/usr/bin/node',
      network: false,
      readablePaths: [],
      ...overrides,
    });
    await fn({ dir, root, home, options });
  });
}

describe('host view', { concurrency: true }, () => {
  test('the home directory is covered; only its toolchain directories are shown, linked ones at their real path', async () => {
    await withLayout(async ({ dir, home, options }) => {
      for (const name of [
        '.cargo/bin',
        '.npm/_cacache',
        '.local/bin',
        '.local/share/Trash',
        '.config/git',
        '.ssh',
        'Documents',
        '.glassbox',
      ]) {
        await mkdir(join(home, name), { recursive: true });
      }
      await writeFile(join(home, '.gitconfig'), '[user]\n');
      await writeFile(join(home, '.bash_history'), 'export TOKEN=x\n');
      await mkdir(join(dir, 'data', 'nvm'), { recursive: true });
      await symlink(join(dir, 'data', 'nvm'), join(home, '.nvm'));

      const view = await findHostView(options());
      assert.deepEqual(view.covered, [home]);
      const shown = binds(view);
      for (const name of ['.cargo', '.npm', '.local/bin', '.config/git', '.gitconfig']) assert.ok(shown.includes(join(home, name)), name);
      assert.ok(shown.includes(join(dir, 'data', 'nvm')), 'a linked toolchain is shown at its real path');
      assert.deepEqual(links(view), { [join(home, '.nvm')]: join(dir, 'data', 'nvm') });
      for (const name of ['.local/share/Trash', '.local/share', '.local', '.ssh', 'Documents', '.glassbox', '.bash_history', '']) {
        assert.ok(!shown.includes(join(home, name)), `${name || 'the home directory'} is not shown`);
      }
      assert.ok(view.system.some((entry) => entry.kind === 'ro-bind' && entry.path === '/usr'));
      assert.equal(view.enclosingWorkTree, null);
    });
  });

  test('PATH and Node directories outside the shown trees are shown; never one with a socket, the home itself or /run', async () => {
    await withLayout(async ({ dir, home, options }) => {
      const tools = join(dir, 'tools', 'bin');
      const node = join(dir, 'node-v99', 'bin');
      const withSocket = join(dir, 'agent');
      await mkdir(tools, { recursive: true });
      await mkdir(node, { recursive: true });
      await mkdir(join(dir, 'node-v99', 'lib', 'node_modules', 'npm'), { recursive: true });
      await mkdir(withSocket);
      const server = await listen(join(withSocket, 'S.agent'));
      try {
        const view = await findHostView(
          options({
            searchPath: [tools, withSocket, home, '/run', '/tmp', '/', 'relative/bin', '/usr/bin'].join(':'),
            nodeBinary: join(node, 'node'),
          }),
        );
        const shown = binds(view);
        assert.ok(shown.includes(tools));
        assert.ok(shown.includes(node) && shown.includes(join(dir, 'node-v99', 'lib', 'node_modules')), 'npm lives beside node');
        for (const refused of [withSocket, home, '/run', '/tmp', '/']) assert.ok(!shown.includes(refused), refused);
        assert.ok(!shown.includes('/usr/bin'), 'already shown with /usr');
      } finally {
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });
  });

  test('readablePaths: shown when allowed, a clear error when refused, ignored when missing', async () => {
    await withLayout(async ({ dir, home, options }) => {
      const sdk = join(dir, 'android-sdk');
      await mkdir(sdk);
      await mkdir(join(home, '.ssh'));
      assert.ok(binds(await findHostView(options({ readablePaths: [sdk, join(dir, 'missing')] }))).includes(sdk));
      const refusals: [string, RegExp][] = [
        ['/run', /\/run cannot be shown in the sandbox: .*sockets/],
        ['/var', /\/var cannot be shown in the sandbox: .*sockets/],
        [home, /cannot be shown in the sandbox: it is or contains the home directory/],
        [dir, /home directory/],
        ['/', /whole file system/],
        [join(home, '.ssh'), /credential store/],
        ['/var/tmp', /is or contains \/var\/tmp/],
        ['relative', /not an absolute path/],
      ];
      for (const [path, message] of refusals) await assert.rejects(findHostView(options({ readablePaths: [path] })), message, path);
    });
  });

  test('a worktree shows its git directory, read-only; a planted gitdir pointer shows nothing', async () => {
    await withLayout(async ({ dir, root, options }) => {
      const main = join(dir, 'main', '.git');
      const gitDir = join(main, 'worktrees', 'project');
      await mkdir(gitDir, { recursive: true });
      await writeFile(join(gitDir, 'gitdir'), `${join(root, '.git')}\n`);
      await writeFile(join(gitDir, 'commondir'), '../..\n');
      await writeFile(join(root, '.git'), `gitdir: ${gitDir}\n`);
      assert.deepEqual(binds(await findHostView(options())), [main], 'the common directory, which holds the worktree one');

      // Another directory that does not name this work tree back is not a git directory of it.
      const other = join(dir, 'other-project');
      await mkdir(other);
      await writeFile(join(other, '.env'), 'SECRET=1\n');
      await writeFile(join(root, '.git'), `gitdir: ${other}\n`);
      assert.deepEqual(binds(await findHostView(options())), []);
    });
  });

  test('a root inside a larger work tree shows that tree (its secrets are scanned too)', async () => {
    await withLayout(async ({ dir, options }) => {
      const repo = join(dir, 'repo');
      const pkg = join(repo, 'packages', 'app');
      await mkdir(join(repo, '.git'), { recursive: true });
      await mkdir(pkg, { recursive: true });
      const view = await findHostView(options({ root: pkg }));
      assert.equal(view.enclosingWorkTree, repo);
      assert.ok(binds(view).includes(repo));
    });
  });

  test("the user's config: readablePaths with ~ expanded; bad values are refused with the key named", async () => {
    await withTempDir(async (dir) => {
      assert.deepEqual(await readSandboxConfig(join(dir, 'none'), '/home/me'), { readablePaths: [] });
      await writeFile(join(dir, 'config.json'), JSON.stringify({ models: {}, sandbox: { readablePaths: ['~/sdk', '/opt/x'] } }));
      assert.deepEqual(await readSandboxConfig(dir, '/home/me'), { readablePaths: ['/home/me/sdk', '/opt/x'] });
      await writeFile(join(dir, 'config.json'), JSON.stringify({ sandbox: { readablePaths: ['sdk'] } }));
      await assert.rejects(readSandboxConfig(dir, '/home/me'), /sandbox\.readablePaths: "sdk" must be an absolute path/);
      await writeFile(join(dir, 'config.json'), JSON.stringify({ sandbox: { writablePaths: ['/x'] } }));
      await assert.rejects(readSandboxConfig(dir, '/home/me'), /config\.json: sandbox: Unrecognized key/);
      await writeFile(join(dir, 'config.json'), '{');
      await assert.rejects(readSandboxConfig(dir, '/home/me'), /is not valid JSON/);
    });
  });
});
