import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withTempDir } from '../helpers/temp-dir.js';
import { findProtectedPaths } from '../../src/sandbox/index.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SANDBOX_ENTRY = new URL('../../src/sandbox/index.ts', import.meta.url).href;

test('finds .git, nested secrets (shared matcher, node_modules too) and home credentials', async () => {
  await withTempDir(async (dir) => {
    const root = join(dir, 'project');
    const home = join(dir, 'home');
    await mkdir(join(root, '.git'), { recursive: true });
    await mkdir(join(root, 'api', 'deep'), { recursive: true });
    await mkdir(join(root, 'node_modules', 'pkg'), { recursive: true });
    await writeFile(join(root, '.env'), 'A=1');
    await writeFile(join(root, 'README.md'), 'readme');
    await writeFile(join(root, 'api', 'server.pem'), 'cert');
    await writeFile(join(root, 'api', 'deep', '.env.local'), 'B=2');
    await writeFile(join(root, 'node_modules', 'pkg', '.env'), 'C=3');
    await mkdir(join(home, '.ssh'), { recursive: true });
    await mkdir(join(home, '.docker'), { recursive: true });
    await writeFile(join(home, '.docker', 'config.json'), '{}');
    await writeFile(join(home, '.netrc'), 'machine x');
    await mkdir(join(home, '.glassbox'));

    const scan = await findProtectedPaths({ root, homeDir: home, glassboxHome: join(home, '.glassbox') });
    assert.equal(scan.truncated, false);
    assert.equal(scan.incomplete, null);
    const byPath = new Map(scan.paths.map((entry) => [entry.path, entry]));
    assert.deepEqual(byPath.get(join(root, '.git')), { path: join(root, '.git'), kind: 'directory', reason: 'git' });
    assert.equal(byPath.get(join(root, '.env'))?.reason, 'secret-file');
    assert.equal(byPath.get(join(root, 'api', 'deep', '.env.local'))?.kind, 'file');
    assert.equal(byPath.get(join(root, 'api', 'server.pem'))?.reason, 'secret-file', 'shared secret matcher');
    assert.equal(byPath.has(join(root, 'README.md')), false);
    // A command could move a secret into node_modules, so it is scanned like any other directory.
    assert.equal(byPath.get(join(root, 'node_modules', 'pkg', '.env'))?.reason, 'secret-file');
    assert.equal(byPath.get(join(home, '.ssh'))?.kind, 'directory');
    assert.equal(
      byPath.get(join(home, '.docker'))?.reason,
      'home-secret',
      'the whole of ~/.docker: config.json, contexts, the Desktop socket',
    );
    assert.equal(byPath.get(join(home, '.netrc'))?.kind, 'file');
    assert.equal(byPath.get(join(home, '.glassbox'))?.reason, 'glassbox-home');
    assert.equal(byPath.has(join(home, '.aws')), false, 'missing paths are not reported');
  });
});

test('a symlinked secret is reported at its real location', async () => {
  await withTempDir(async (dir) => {
    const root = join(dir, 'project');
    await mkdir(root);
    await writeFile(join(dir, 'real.env'), 'TOKEN=1');
    await symlink(join(dir, 'real.env'), join(root, '.env'));
    await symlink(join(dir, 'missing'), join(root, '.env.local'));
    const scan = await findProtectedPaths({ root, homeDir: join(dir, 'nohome'), glassboxHome: join(dir, 'nogb') });
    assert.deepEqual(
      scan.paths.filter((entry) => entry.reason === 'secret-file'),
      [{ path: join(dir, 'real.env'), kind: 'file', reason: 'secret-file' }],
    );
  });
});

test('the scan stops at its cap and says so', async () => {
  await withTempDir(async (dir) => {
    for (let i = 0; i < 30; i += 1) await writeFile(join(dir, `file-${i}`), '');
    const scan = await findProtectedPaths({ root: dir, homeDir: join(dir, 'h'), glassboxHome: join(dir, 'g'), maxEntries: 10 });
    assert.equal(scan.truncated, true);
    assert.match(scan.incomplete ?? '', /more than 10 entries/, 'an unfinished scan says why, so the sandbox refuses to run on it');
    await assert.rejects(findProtectedPaths({ root: dir, homeDir: dir, glassboxHome: dir, maxEntries: 0 }), /maxEntries/);
  });
});

test('a project directory of ours that may not be read leaves the scan incomplete, not silently shorter', async () => {
  await withTempDir(async (dir) => {
    const hidden = join(dir, 'hidden');
    await mkdir(hidden);
    await writeFile(join(hidden, '.env'), 'A=1');
    await chmod(hidden, 0o000);
    try {
      if (process.getuid?.() !== 0) {
        const scan = await findProtectedPaths({ root: dir, homeDir: join(dir, 'h'), glassboxHome: join(dir, 'g') });
        assert.match(scan.incomplete ?? '', /may not be read/);
        return;
      }
      // Root reads every directory: the scan runs as another user (nobody), who owns the project.
      assert.ok(existsSync('/usr/bin/setpriv'), 'setpriv (util-linux) is needed to run the scan as another user');
      await chmod(dir, 0o755);
      for (const path of [dir, hidden, join(hidden, '.env')]) await chown(path, 65534, 65534);
      const script = `import { findProtectedPaths } from ${JSON.stringify(SANDBOX_ENTRY)};
const scan = await findProtectedPaths({ root: ${JSON.stringify(dir)}, homeDir: '/nonexistent', glassboxHome: '/nonexistent' });
process.stdout.write(JSON.stringify(scan.incomplete));`;
      const child = spawnSync(
        '/usr/bin/setpriv',
        [
          '--reuid=65534',
          '--regid=65534',
          '--clear-groups',
          '--',
          process.execPath,
          '--import',
          'tsx',
          '--input-type=module',
          '-e',
          script,
        ],
        { encoding: 'utf8', cwd: REPO_ROOT },
      );
      assert.equal(child.status, 0, child.stderr);
      assert.match(JSON.parse(child.stdout) ?? '', /may not be read/);
    } finally {
      await chmod(hidden, 0o755);
    }
  });
});
