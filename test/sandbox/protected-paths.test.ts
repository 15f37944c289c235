import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { withTempDir } from '../helpers/temp-dir.js';
import { findProtectedPaths } from '../../src/sandbox/index.js';

test('finds .git, nested secrets (shared matcher) and home credentials; skips node_modules', async () => {
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
    const byPath = new Map(scan.paths.map((entry) => [entry.path, entry]));
    assert.deepEqual(byPath.get(join(root, '.git')), { path: join(root, '.git'), kind: 'directory', reason: 'git' });
    assert.equal(byPath.get(join(root, '.env'))?.reason, 'secret-file');
    assert.equal(byPath.get(join(root, 'api', 'deep', '.env.local'))?.kind, 'file');
    assert.equal(byPath.get(join(root, 'api', 'server.pem'))?.reason, 'secret-file', 'shared secret matcher');
    assert.equal(byPath.has(join(root, 'README.md')), false);
    assert.equal(byPath.has(join(root, 'node_modules', 'pkg', '.env')), false);
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
    await assert.rejects(findProtectedPaths({ root: dir, homeDir: dir, glassboxHome: dir, maxEntries: 0 }), /maxEntries/);
  });
});
