// The prompt history file: what one process appends the next one loads; the file is private
// (0600, also when it existed with a looser mode); credential-looking and oversized prompts are
// never written; the file is cut back to the newest entries once it grows to twice the cap.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { HISTORY_FILE, MAX_HISTORY_PROMPT_CHARS, PromptHistoryFile } from '../../src/tui/prompt-history.js';
import { withTempDir } from '../helpers/temp-dir.js';

describe('prompt history file', () => {
  test('appended prompts are loaded by the next process, in order, from a 0600 file', async () => {
    await withTempDir(async (dir) => {
      const home = join(dir, 'home');
      const first = new PromptHistoryFile(home, { env: {} });
      assert.deepEqual(await first.load(), [], 'no file yet is an empty history');
      assert.equal(await first.append('fix the test'), null);
      assert.equal(await first.append('fix the test'), null, 'a repeat of the last is not stored twice');
      assert.equal(await first.append('line one\nline two'), null);
      assert.equal((await stat(join(home, HISTORY_FILE))).mode & 0o777, 0o600);
      const second = new PromptHistoryFile(home, { env: {} });
      assert.deepEqual(await second.load(), ['fix the test', 'line one\nline two']);
    });
  });

  test('a file with a looser mode is made private on the next write; a damaged line is skipped', async () => {
    await withTempDir(async (home) => {
      const path = join(home, HISTORY_FILE);
      await writeFile(path, '{"prompt":"old"}\n{"prompt":"cut sho');
      await chmod(path, 0o644);
      const history = new PromptHistoryFile(home, { env: {} });
      assert.deepEqual(await history.load(), ['old']);
      await history.append('new');
      assert.equal((await stat(path)).mode & 0o777, 0o600);
      assert.deepEqual(await new PromptHistoryFile(home, { env: {} }).load(), ['old', 'new']);
    });
  });

  test('prompts that look like credentials or are too large are not written', async () => {
    await withTempDir(async (home) => {
      const history = new PromptHistoryFile(home, { env: { OPENAI_API_KEY: 'my-very-own-key-1234' } });
      assert.equal(await history.append('use sk-proj-abcdefghijklmnop1234 for the call'), 'secret');
      assert.equal(await history.append('curl -H "Authorization: Bearer abcdefghijklmnopqrstuv"'), 'secret');
      assert.equal(await history.append('the key is my-very-own-key-1234'), 'secret', 'the value of a key variable');
      assert.equal(await history.append('x'.repeat(MAX_HISTORY_PROMPT_CHARS + 1)), 'too-large');
      assert.equal(await history.append('an ordinary prompt'), null);
      const text = await readFile(join(home, HISTORY_FILE), 'utf8');
      assert.deepEqual(
        text
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line)),
        [{ prompt: 'an ordinary prompt' }],
      );
    });
  });

  test('the file is cut back to the newest entries when it reaches twice the cap', async () => {
    await withTempDir(async (home) => {
      const history = new PromptHistoryFile(home, { env: {}, maxEntries: 3 });
      for (let i = 1; i <= 7; i++) await history.append(`prompt ${i}`);
      const lines = (await readFile(join(home, HISTORY_FILE), 'utf8')).trim().split('\n');
      assert.ok(lines.length <= 6, `at most twice the cap on disk, got ${lines.length}`);
      assert.deepEqual(await new PromptHistoryFile(home, { env: {}, maxEntries: 3 }).load(), ['prompt 5', 'prompt 6', 'prompt 7']);
      assert.equal((await stat(join(home, HISTORY_FILE))).mode & 0o777, 0o600);
    });
  });
});

describe('prompt history file against a hostile home', () => {
  test('a symlinked history file is neither followed on append nor read; a FIFO is not read; more token shapes are kept out', async () => {
    await withTempDir(async (dir) => {
      const home = join(dir, 'home');
      await mkdir(home);
      const victim = join(dir, 'victim.txt');
      await writeFile(victim, 'original\n');
      await chmod(victim, 0o644);
      await symlink(victim, join(home, HISTORY_FILE));
      const history = new PromptHistoryFile(home, { env: {} });
      assert.deepEqual(await history.load(), [], 'the link is not read');
      await assert.rejects(history.append('hello'), /ELOOP/);
      assert.equal(await readFile(victim, 'utf8'), 'original\n', 'the target got nothing');
      assert.equal((await stat(victim)).mode & 0o777, 0o644, "the target's mode is untouched");

      await rm(join(home, HISTORY_FILE));
      execFileSync('mkfifo', [join(home, HISTORY_FILE)]);
      // Before, loading blocked on the FIFO for good.
      assert.deepEqual(await new PromptHistoryFile(home, { env: {} }).load(), []);
    });
    for (const secret of [
      'xoxb-1234567890-abcdefghij',
      'glpat-abcdefghijklmnopqrst',
      'AIzaSyA1234567890abcdefghijklmnopqrstuv',
      'sk_live_abcdefghijklmnop1234',
      'https://deploy:hunter2hunter2@git.example.com/repo.git',
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
    ]) {
      await withTempDir(async (home) => {
        assert.equal(await new PromptHistoryFile(home, { env: {} }).append(`use ${secret} please`), 'secret', secret);
      });
    }
  });
});
