// Attacks on the listings kept between processes (directory-listings.ts, `keepBetweenProcesses`):
// a store a sandboxed command could write, a write that follows a planted link, an exit hook that
// throws. Each was reproduced before its fix.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { lstatSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { DirectoryListings } from '../../src/sandbox/directory-listings.js';
import type { CommandResult } from '../../src/sandbox/index.js';
import { needsSandbox, runSandboxed } from '../helpers/sandboxed-command.js';
import { withTempDir } from '../helpers/temp-dir.js';

/** The store's name for `root`, as directory-listings.ts names it. */
const digest = (root: string): string => createHash('sha256').update(root).digest('hex').slice(0, 32);

function sandboxed(root: string, home: string, glassboxHome: string, command: string, listings: DirectoryListings): Promise<CommandResult> {
  return runSandboxed({ root, home, glassboxHome, command, listings });
}

/** A shell word for `text`. */
const quoted = (text: string): string => `'${text.replaceAll("'", "'\\''")}'`;

describe('listings kept between processes, attacked', () => {
  test('a Glassbox home not yet made inside the project: a store a command plants does not unmask .env in the next process', {
    skip: needsSandbox,
  }, async () => {
    await withTempDir(async (base) => {
      const root = join(base, 'project');
      const home = join(root, 'home');
      await mkdir(home, { recursive: true });
      await writeFile(join(root, '.env'), 'SECRET=planted-store-leak\n');
      // Absent, so not masked: the command may make it. A link, so the exit hook would not write over it.
      const glassboxHome = join(home, '.glassbox');
      const info = lstatSync(root);
      // The root as it is, minus `.env`: the command changes only `home`, not the root.
      const forged = JSON.stringify({
        version: 1,
        root,
        listings: [['', info.dev, info.ino, info.ctimeMs, info.ctimeMs + 5_000, ['home'], [0]]],
      });
      const plant = [
        'mkdir -p home/data/cache/listings',
        'ln -s data home/.glassbox',
        `printf '%s' ${quoted(forged)} > home/data/cache/listings/${digest(root)}.json`,
      ].join(' && ');
      const first = new DirectoryListings();
      // A missing home named inside the project is now made (and masked) before any command, so
      // the planting itself fails; the store's own checks below hold without that.
      await sandboxed(root, home, glassboxHome, plant, first);
      first.saveAll(); // the process exits
      assert.equal(lstatSync(root).ctimeMs, info.ctimeMs, 'the root is unchanged, so a forged listing would match it');

      const next = await sandboxed(root, home, glassboxHome, 'cat .env', new DirectoryListings());
      assert.doesNotMatch(next.output.text, /planted-store-leak/);
    });
  });

  test('a Glassbox home not yet made inside the project: the exit hook writes nothing through a link the command planted', {
    skip: needsSandbox,
  }, async () => {
    await withTempDir(async (base) => {
      const root = join(base, 'project');
      const home = join(root, 'home');
      await mkdir(home, { recursive: true });
      const victim = join(base, 'victim.sh');
      await writeFile(victim, 'echo original\n');
      const outside = join(base, 'outside');
      await mkdir(outside);
      const glassboxHome = join(home, '.glassbox');
      const listings = new DirectoryListings();
      const plant = [
        'mkdir -p home/.glassbox/cache/listings',
        `ln -s ${quoted(victim)} home/.glassbox/cache/listings/${digest(root)}.json.${process.pid}.tmp`,
      ].join(' && ');
      // The home is made and masked before the command now, so the planting fails too.
      await sandboxed(root, home, glassboxHome, plant, listings);
      listings.saveAll();
      assert.equal(await readFile(victim, 'utf8'), 'echo original\n');
    });
  });

  test('the store is not written through a link: not a planted temporary file, not a linked cache directory', async () => {
    await withTempDir(async (base) => {
      const root = join(base, 'project');
      const home = join(base, 'glassbox-home');
      await mkdir(join(root, 'a'), { recursive: true });
      await mkdir(join(home, 'cache', 'listings'), { recursive: true });
      const victim = join(base, 'victim');
      await writeFile(victim, 'keep me');
      const store = join(home, 'cache', 'listings', `${digest(root)}.json`);
      await symlink(victim, `${store}.${process.pid}.tmp`);
      const first = new DirectoryListings();
      first.keepBetweenProcesses(root, home);
      await first.list(root);
      first.saveAll();
      assert.equal(await readFile(victim, 'utf8'), 'keep me');

      // `cache` a link to a directory elsewhere: nothing is made there.
      const elsewhere = join(base, 'elsewhere');
      await mkdir(elsewhere);
      await rm(join(home, 'cache'), { recursive: true });
      await symlink(elsewhere, join(home, 'cache'));
      const second = new DirectoryListings();
      second.keepBetweenProcesses(root, home);
      await second.list(join(root, 'a'));
      second.saveAll();
      assert.deepEqual(await readdir(elsewhere), []);
    });
  });

  test('the exit hook does not throw when the home has become unreachable (ENOTDIR)', async () => {
    await withTempDir(async (base) => {
      const root = join(base, 'project');
      const parent = join(base, 'parent');
      const home = join(parent, 'glassbox-home');
      await mkdir(root);
      await mkdir(home, { recursive: true });
      const listings = new DirectoryListings();
      listings.keepBetweenProcesses(root, home);
      await listings.list(root);
      await rm(parent, { recursive: true });
      await writeFile(parent, 'now a file');
      assert.doesNotThrow(() => listings.saveAll());
    });
  });
});
