// Attacks on the sandbox walks' reused directory listings (src/sandbox/directory-listings.ts):
// cases where a directory's device, inode and ctime are those of a listing taken earlier, yet its
// entries are not.
//
// On btrfs a command can make one: every subvolume numbers its inodes alike (the first directory
// made in each is 257), two directories made in one clock tick share a ctime, and a subvolume's
// device number is freed when it is removed (`rmdir`, allowed for an empty one) and handed to the
// next one made (a snapshot, allowed for the owner). So `B/X` (empty, listed) can be replaced by a
// snapshot's `X` holding `Y`, with the same device, inode and ctime: a reused listing never shows
// `Y`, and a `.git` planted in it is neither quarantined nor frozen. The test needs root (a loop
// mount) and btrfs-progs; it is skipped elsewhere.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, writeFileSync } from 'node:fs';
import { chmod, mkdir, readdir, rmdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { DirectoryListings } from '../../src/sandbox/directory-listings.js';
import { scanGitMetadata } from '../../src/sandbox/git-metadata.js';
import { withTempDir } from '../helpers/temp-dir.js';

function btrfsUnavailable(): string | false {
  if (process.getuid?.() !== 0) return 'needs root for a loop mount';
  for (const tool of ['/usr/sbin/mkfs.btrfs', '/sbin/mkfs.btrfs']) if (existsSync(tool)) return false;
  return 'mkfs.btrfs (btrfs-progs) is not installed';
}

function btrfs(...args: string[]): void {
  execFileSync('btrfs', args, { stdio: 'ignore' });
}

/** A fresh btrfs mounted under `base` for the duration of `fn`. */
async function withBtrfs(base: string, fn: (mount: string) => Promise<void>): Promise<void> {
  const image = join(base, 'btrfs.img');
  const mount = join(base, 'mnt');
  await mkdir(mount);
  execFileSync('truncate', ['-s', '200M', image]);
  execFileSync('mkfs.btrfs', ['-q', '-f', image], { stdio: 'ignore' });
  execFileSync('mount', ['-o', 'loop', image, mount]);
  try {
    await fn(mount);
  } finally {
    execFileSync('umount', [mount]);
  }
}

describe('reused listings against directories that keep a device, inode and ctime', () => {
  test('on btrfs, a snapshot that takes a removed subvolume’s device shows its own entries', {
    skip: btrfsUnavailable(),
  }, async (t) => {
    await withTempDir(async (base) => {
      await withBtrfs(base, async (mount) => {
        const root = join(mount, 'project');
        await mkdir(root);
        // Two subvolumes whose `X` directories share an inode number and (made in one tick) a
        // ctime; `A/X` holds `Y`, `B/X` is empty. A pair made across a tick is left and retried.
        let pair = -1;
        for (let attempt = 0; attempt < 500 && pair < 0; attempt++) {
          const a = join(root, `A${attempt}`);
          const b = join(root, `B${attempt}`);
          btrfs('subvolume', 'create', a);
          btrfs('subvolume', 'create', b);
          await mkdir(join(a, 'X'));
          await mkdir(join(b, 'X'));
          await mkdir(join(a, 'X', 'Y'));
          const [x, y] = [lstatSync(join(a, 'X'), { bigint: true }), lstatSync(join(b, 'X'), { bigint: true })];
          if (x.ino === y.ino && x.ctimeNs === y.ctimeNs) pair = attempt;
        }
        assert.ok(pair >= 0, 'two directories made in one clock tick');
        const a = join(root, `A${pair}`);
        const b = join(root, `B${pair}`);
        // A clock 10 s ahead: these directories count as long unchanged (on the real clock the
        // same holds a second later, as between two commands).
        const listings = new DirectoryListings({ now: () => Date.now() + 10_000 });
        await scanGitMetadata(root, { lister: listings });
        assert.deepEqual(await listings.list(join(b, 'X')), []);
        const before = lstatSync(join(b, 'X'));

        // What a sandboxed command can do: remove the empty subvolume, snapshot the other one in
        // its place, and plant a repository in what the snapshot holds.
        await rmdir(join(b, 'X'));
        await rmdir(b);
        btrfs('subvolume', 'snapshot', a, b);
        await mkdir(join(b, 'X', 'Y', '.git'));
        await writeFile(join(b, 'X', 'Y', '.git', 'HEAD'), 'ref: refs/heads/main\n');
        const after = lstatSync(join(b, 'X'));
        if (after.dev !== before.dev) {
          t.skip('the removed subvolume’s device number was not reused');
          return;
        }
        assert.equal(after.ino, before.ino);
        assert.equal(after.ctimeMs, before.ctimeMs);

        const fresh = (await readdir(join(b, 'X'), { withFileTypes: true })).map((entry) => entry.name);
        assert.deepEqual(
          (await listings.list(join(b, 'X'))).map((entry) => entry.name),
          fresh,
        );
        const scan = await scanGitMetadata(root, { lister: listings });
        assert.ok(scan.dotGit.has(join(b, 'X', 'Y', '.git')), 'the planted .git is found');
      });
    });
  });
});

/**
 * Runs `script` (an ES module importing the sandbox from `src`) as a user the file permissions
 * bind: as root (whom they do not bind) it runs as nobody through setpriv. Returns its stdout.
 */
function asUnprivileged(dir: string, script: string): string {
  const file = join(dir, 'check.mts');
  writeFileSync(file, script.replaceAll('SRC', fileURLToPath(new URL('../../src/sandbox/', import.meta.url))));
  const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));
  const command = process.getuid?.() === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', tsx, file] : [tsx, file];
  return execFileSync(command[0]!, command.slice(1), { cwd: dir, encoding: 'utf8' });
}

function unprivilegedUnavailable(): string | false {
  if (process.getuid?.() !== 0) return false;
  try {
    execFileSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', 'true']);
    return false;
  } catch {
    return 'setpriv cannot drop to nobody';
  }
}

describe('directories below one that may be listed but not searched', () => {
  test('a secret or a planted .git below a directory of ours made unsearchable is not skipped', {
    skip: unprivilegedUnavailable(),
  }, async () => {
    await withTempDir(async (base) => {
      // The user's project, with a secret two levels down. A command `chmod 644 A`: the walks may
      // list A but not stat what is in it; the next command can `chmod 755 A` and read A/B/.env.
      const root = join(base, 'project');
      await mkdir(join(root, 'A', 'B'), { recursive: true });
      await writeFile(join(root, 'A', 'B', '.env'), 'TOKEN=hunter2\n');
      if (process.getuid?.() === 0) {
        await chmod(base, 0o755);
        execFileSync('chown', ['-R', '65534:65534', root]);
      }
      const output = asUnprivileged(
        base,
        `
        import { chmod, mkdir } from 'node:fs/promises';
        import { findProtectedPaths } from 'SRCprotected-paths.js';
        import { scanGitMetadata } from 'SRCgit-metadata.js';
        import { DirectoryListings } from 'SRCdirectory-listings.js';
        const root = ${JSON.stringify(root)};
        const home = ${JSON.stringify(join(base, 'home'))};
        const before = await scanGitMetadata(root, { lister: new DirectoryListings() });
        await mkdir(root + '/A/B/C/.git', { recursive: true });
        await chmod(root + '/A', 0o644);
        const scan = await findProtectedPaths({ root, homeDir: home, glassboxHome: home + '/.glassbox', lister: new DirectoryListings() });
        const after = await scanGitMetadata(root, { before, lister: new DirectoryListings() });
        await chmod(root + '/A', 0o755);
        console.log(JSON.stringify({ secrets: scan.incomplete, git: after.incomplete }));
        `,
      );
      const { secrets, git } = JSON.parse(output) as { secrets: string | null; git: string | null };
      assert.match(secrets ?? 'complete', /A\/B may not be read/, 'the secret scan must not count A/B as finished');
      assert.match(git ?? 'complete', /A\/B could not be read/, 'the git walk must not count A/B as finished');
    });
  });
});
