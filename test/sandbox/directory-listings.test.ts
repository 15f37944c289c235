// The sandbox walks' reused directory listings (src/sandbox/directory-listings.ts). The oracle is
// the same walk with nothing reused (a fresh DirectoryListings lists every directory), compared
// after every step of a random sequence of changes an attacker or the user could make: new,
// renamed and removed files and directories, secret files and `.git` made deep in an unchanged
// tree, a directory swapped for a symlink, modes changed, and mtimes set back to hide a change.
// The listings under test run on a clock 10 s ahead, so every directory counts as long unchanged
// and only its ctime can show a change (the harshest setting); a step waits until the file
// system's clock has moved past the last listing, since one tick can stamp two changes alike
// (that case is the racy rule's, tested on its own). Then the real sandbox: a `.env` made
// between two commands is masked in the second.

import assert from 'node:assert/strict';
import { lstatSync } from 'node:fs';
import { chmod, mkdir, readdir, readFile, rename, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { DirectoryListings } from '../../src/sandbox/directory-listings.js';
import { scanGitMetadata } from '../../src/sandbox/git-metadata.js';
import { findProtectedPaths } from '../../src/sandbox/index.js';
import { needsSandbox, runSandboxed } from '../helpers/sandboxed-command.js';
import { withTempDir } from '../helpers/temp-dir.js';

/** Ahead of the wall clock: every directory's last change looks old enough to trust. */
function agedListings(onList?: (path: string) => void): DirectoryListings {
  return new DirectoryListings({ now: () => Date.now() + 10_000, onList });
}

/**
 * Resolves once a change made now gets a ctime later than any the file system has stamped so
 * far: a probe file is touched until its ctime passes the newest one seen (usually one clock tick).
 */
async function nextTick(dir: string): Promise<void> {
  const probe = join(dir, '..', 'tick-probe');
  await writeFile(probe, '');
  const start = lstatSync(probe, { bigint: true }).ctimeNs;
  for (;;) {
    await utimes(probe, new Date(), new Date());
    if (lstatSync(probe, { bigint: true }).ctimeNs > start) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** A deterministic stream of numbers in [0, 1). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

async function walks(root: string, lister: DirectoryListings | undefined) {
  const home = join(root, '..', 'home');
  const scan = await findProtectedPaths({ root, homeDir: home, glassboxHome: join(home, '.glassbox'), lister });
  const git = await scanGitMetadata(root, { lister });
  return {
    protectedPaths: scan.paths.map((entry) => `${entry.reason} ${entry.kind} ${entry.path}`).sort(),
    incomplete: scan.incomplete,
    dotGit: [...git.dotGit].sort(),
    bare: [...git.bareLookalikes].map(([path, lookalike]) => `${path} ${lookalike.identity} ${lookalike.heads.join(',')}`).sort(),
    config: git.projectConfig,
    gitIncomplete: git.incomplete,
    entries: git.entries,
  };
}

describe('directory listings reused by the sandbox walks', () => {
  test('after every random change, the walks with reused listings find what fresh walks find', async () => {
    await withTempDir(async (base) => {
      const root = join(base, 'project');
      await mkdir(join(base, 'home'), { recursive: true });
      const dirs = ['', 'src', 'src/a', 'src/a/deep', 'src/b', 'vendor', 'vendor/lib', 'docs'];
      for (const dir of dirs) await mkdir(join(root, dir), { recursive: true });
      for (const [index, dir] of dirs.entries()) await writeFile(join(root, dir, `file-${index}.ts`), 'x');
      const listings = agedListings();
      const names = ['.env', '.env.local', 'id_rsa', 'server.pem', '.git', 'HEAD', 'refs', 'notes.txt', 'credentials', '.glassbox'];
      const next = random(20261203);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
      const live = new Set(dirs.slice(1));
      const old = new Date('2020-01-01T00:00:00Z');
      const steps: string[] = [];

      for (let step = 0; step < 120; step += 1) {
        const expected = await walks(root, new DirectoryListings());
        assert.deepEqual(await walks(root, listings), expected, `after: ${steps.join('; ')}`);
        await nextTick(root);
        const dir = pick(['', ...live]);
        const at = join(root, dir);
        const action = Math.floor(next() * 8);
        try {
          if (action === 0 || action === 1) {
            // A file, often a secret or git name, then the directory's mtime set back to hide it.
            const name = pick(names);
            await writeFile(join(at, name), 'secret');
            await utimes(at, old, old);
            steps.push(`file ${dir}/${name} (mtime set back)`);
          } else if (action === 2) {
            const name = `${pick(['n', '.git', 'refs', 'm'])}${step}`;
            await mkdir(join(at, name));
            live.add(dir === '' ? name : `${dir}/${name}`);
            steps.push(`mkdir ${dir}/${name}`);
          } else if (action === 3 && dir !== '') {
            // A directory moved: everything under it appears elsewhere.
            const moved = `${dir}-moved${step}`;
            await rename(at, join(root, moved));
            for (const entry of [...live]) if (entry === dir || entry.startsWith(`${dir}/`)) live.delete(entry);
            live.add(moved);
            steps.push(`mv ${dir} ${moved}`);
          } else if (action === 4 && dir !== '') {
            // A directory swapped for a symlink to itself elsewhere (the walks do not follow links).
            const aside = `${dir}-aside${step}`;
            await rename(at, join(root, aside));
            await symlink(join(root, aside), at);
            for (const entry of [...live]) if (entry === dir || entry.startsWith(`${dir}/`)) live.delete(entry);
            live.add(aside);
            steps.push(`swap ${dir} for a symlink`);
          } else if (action === 5) {
            // A `.git` entry made as a file and a bare look-alike: HEAD plus refs.
            await writeFile(join(at, 'HEAD'), 'ref: refs/heads/main\n');
            await mkdir(join(at, 'refs'), { recursive: true });
            steps.push(`bare look-alike in ${dir}`);
          } else if (action === 6 && dir !== '') {
            // Unreadable, listed, readable again: each state must be seen.
            await chmod(at, 0o000);
            const locked = await walks(root, new DirectoryListings());
            assert.deepEqual(await walks(root, listings), locked, `chmod 000 ${dir} after: ${steps.join('; ')}`);
            await nextTick(root);
            await chmod(at, 0o755);
            steps.push(`chmod 000 then 755 ${dir}`);
          } else {
            const victim = pick(names);
            await rm(join(at, victim), { recursive: true, force: true });
            steps.push(`rm ${dir}/${victim}`);
          }
        } catch (error) {
          steps.push(`(${(error as Error).message})`);
        }
      }
      assert.deepEqual(await walks(root, listings), await walks(root, new DirectoryListings()));
    });
  });

  test('an unchanged tree is not listed again; a directory changed within the racy margin always is', async () => {
    await withTempDir(async (root) => {
      await mkdir(join(root, 'a', 'b'), { recursive: true });
      await writeFile(join(root, 'a', 'b', 'file'), 'x');
      const listed: string[] = [];
      const aged = agedListings((path) => listed.push(path));
      await walks(root, aged);
      const first = listed.length;
      assert.ok(first >= 3);
      await walks(root, aged);
      assert.equal(listed.length, first, 'nothing listed again');

      // On the real clock these directories changed a moment ago: too recently to trust a
      // ctime that one clock tick could leave unchanged, so each call lists them again.
      const recent: string[] = [];
      const real = new DirectoryListings({ onList: (path) => recent.push(path) });
      await real.list(join(root, 'a'));
      await real.list(join(root, 'a'));
      assert.deepEqual(recent, [join(root, 'a'), join(root, 'a')]);
    });
  });

  test('fails as readdir does, and a snapshot lists each directory once for all its walks', async () => {
    await withTempDir(async (root) => {
      const listings = agedListings();
      await assert.rejects(listings.list(join(root, 'missing')), { code: 'ENOENT' });
      await writeFile(join(root, 'file'), 'x');
      await assert.rejects(listings.list(join(root, 'file')), { code: 'ENOTDIR' });
      const listed: string[] = [];
      const counted = agedListings((path) => listed.push(path));
      const snapshot = counted.snapshot();
      await Promise.all([snapshot.list(root), snapshot.list(root)]);
      await snapshot.list(root);
      assert.equal(listed.length, 1);
    });
  });

  test('kept between processes: read back and checked like its own; a change since is seen; a file not exactly ours is ignored', async () => {
    await withTempDir(async (base) => {
      const root = join(base, 'project');
      const home = join(base, 'glassbox-home');
      await mkdir(join(root, 'a', 'b'), { recursive: true });
      await mkdir(home);
      await writeFile(join(root, 'a', 'b', 'file'), 'x');
      const first = agedListings();
      first.keepBetweenProcesses(root, home);
      await walks(root, first);
      first.saveAll();
      const dir = join(home, 'cache', 'listings');
      const [file] = await readdir(dir);
      assert.ok(file !== undefined);
      assert.equal((await stat(dir)).mode & 0o777, 0o700);
      assert.equal((await stat(join(dir, file))).mode & 0o777, 0o600);

      // The next process: nothing listed again while nothing changed.
      const listed: string[] = [];
      const second = agedListings((path) => listed.push(path));
      second.keepBetweenProcesses(root, home);
      assert.deepEqual(await walks(root, second), await walks(root, new DirectoryListings()));
      assert.deepEqual(listed, []);
      // A secret made between the processes is found: its directory is listed again.
      await nextTick(root);
      await writeFile(join(root, 'a', 'b', '.env'), 'TOKEN=1');
      const relisted: string[] = [];
      const third = agedListings((path) => relisted.push(path));
      third.keepBetweenProcesses(root, home);
      const seen = await walks(root, third);
      assert.deepEqual(seen, await walks(root, new DirectoryListings()));
      assert.ok(seen.protectedPaths.some((entry) => entry.endsWith(join('a', 'b', '.env'))));
      assert.deepEqual(relisted, [join(root, 'a', 'b')]);

      // Files that are not exactly what save writes are ignored whole: everything is listed.
      const saved = await readFile(join(dir, file), 'utf8');
      const record = JSON.parse(saved) as { root: string; listings: unknown[][] };
      const variants: Record<string, string> = {
        'another root': JSON.stringify({ ...record, root: join(base, 'other') }),
        'a path with ..': JSON.stringify({ ...record, listings: [...record.listings, ['..', 1, 1, 1, 1e13, ['x'], []]] }),
        'a name with a separator': JSON.stringify({ ...record, listings: [...record.listings, ['a', 1, 1, 1, 1e13, ['x/y'], []]] }),
        'a directory index past the names': JSON.stringify({ ...record, listings: [...record.listings, ['a', 1, 1, 1, 1e13, ['x'], [3]]] }),
        'another version': JSON.stringify({ ...record, version: 2 }),
        'not JSON': saved.slice(0, saved.length / 2),
      };
      for (const [what, text] of Object.entries(variants)) {
        await writeFile(join(dir, file), text);
        const counted: string[] = [];
        const reader = agedListings((path) => counted.push(path));
        reader.keepBetweenProcesses(root, home);
        assert.deepEqual(await walks(root, reader), await walks(root, new DirectoryListings()), what);
        assert.ok(counted.includes(root), `${what}: the root is listed afresh`);
      }
      // Through a symlink, it is not read either.
      await writeFile(join(base, 'elsewhere.json'), saved);
      await rm(join(dir, file));
      await symlink(join(base, 'elsewhere.json'), join(dir, file));
      const counted: string[] = [];
      const reader = agedListings((path) => counted.push(path));
      reader.keepBetweenProcesses(root, home);
      await walks(root, reader);
      assert.ok(counted.includes(root));

      // A home that is gone is not made again for the cache.
      const gone = join(base, 'gone-home');
      const orphan = agedListings();
      orphan.keepBetweenProcesses(root, gone);
      await walks(root, orphan);
      orphan.saveAll();
      await assert.rejects(stat(gone), { code: 'ENOENT' });
    });
  });

  test('in the real sandbox, a .env made after a command (by the user, in the same second) is masked in the next one', {
    skip: needsSandbox,
  }, async () => {
    await withTempDir(async (base) => {
      const root = join(base, 'project');
      const home = join(base, 'home');
      await mkdir(join(root, 'config', 'deep'), { recursive: true });
      await mkdir(home);
      const listings = agedListings();
      const command = (text: string) => runSandboxed({ root, home, command: text, listings });
      const first = await command('ls -R');
      assert.equal(first.exitCode, 0);
      await nextTick(root);
      await writeFile(join(root, 'config', 'deep', '.env'), 'API_TOKEN=hunter2\n');
      const second = await command('cat config/deep/.env; echo "[exit $?]"');
      assert.doesNotMatch(second.output.text, /hunter2/);
      assert.equal(await readFile(join(root, 'config', 'deep', '.env'), 'utf8'), 'API_TOKEN=hunter2\n');
    });
  });
});
