// Ctrl-R in the interactive session (issue 25 item 12): a reverse incremental search over the
// prompt history, as bash has it. Typing narrows to the newest prompt holding the text, Ctrl-R again
// goes older, Enter puts the match into the editor (nothing is sent), Esc leaves the editor as it was.

import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Key } from 'ink';
import { startFakeProvider } from '../../src/testing/index.js';
import { searchKey, startSearch, type HistorySearch, type SearchStep } from '../../src/tui/history-search.js';
import { ptyEnv, ptyProject, requireTmux } from './pty-fixtures.js';
import { TmuxScreen } from './tmux-screen.js';

const skip = requireTmux();
const HISTORY = ['fix the first bug', 'write the docs', 'fix the second bug', 'ship it'];

const key = (over: Partial<Key> = {}): Key => ({ ...({} as Key), ...over });

describe('Ctrl-R history search', () => {
  test('typing narrows to the newest match, Ctrl-R goes older, Backspace widens, Enter and Esc end it', () => {
    const step = (search: HistorySearch, input: string, k: Partial<Key> = {}): SearchStep => searchKey(search, HISTORY, input, key(k));
    let search = startSearch(HISTORY);
    for (const char of 'FIX') {
      const next = step(search, char);
      assert.equal(next.kind, 'search');
      if (next.kind === 'search') search = next.search;
    }
    assert.equal(search.match, 2);
    const older = step(search, 'r', { ctrl: true });
    assert.deepEqual(older, { kind: 'search', search: { query: 'FIX', match: 0 } });
    // At the oldest match Ctrl-R stays put.
    assert.deepEqual(step({ query: 'FIX', match: 0 }, 'r', { ctrl: true }), { kind: 'search', search: { query: 'FIX', match: 0 } });
    assert.deepEqual(step({ query: 'FIX', match: 0 }, '', { return: true }), { kind: 'accept', text: 'fix the first bug' });
    assert.deepEqual(step({ query: 'zz', match: null }, '', { return: true }), { kind: 'accept', text: null });
    assert.deepEqual(step(search, '', { escape: true }), { kind: 'cancel' });
    assert.deepEqual(step({ query: 'fixz', match: null }, '', { backspace: true }), { kind: 'search', search: { query: 'fix', match: 2 } });
  });
});

describe('Ctrl-R in the terminal (tmux)', { skip }, () => {
  test('searches earlier prompts; Enter takes the match into the editor unsent, Esc cancels', async (t) => {
    const { root, home } = await ptyProject();
    await mkdir(home, { recursive: true });
    await writeFile(join(home, 'history.jsonl'), HISTORY.map((prompt) => `${JSON.stringify({ prompt })}\n`).join(''), { mode: 0o600 });
    const provider = await startFakeProvider({ script: [{ text: 'Sent.' }] });
    t.after(() => provider.close());
    const screen = await TmuxScreen.start({ args: ['--base-url', provider.baseURL], env: ptyEnv({ GLASSBOX_HOME: home }), cwd: root });
    try {
      await screen.waitIdle();
      await screen.keys('C-r');
      await screen.waitFor("(reverse-i-search)`': ship it");
      await screen.type('fix');
      await screen.waitFor("(reverse-i-search)`fix': fix the second bug");
      await screen.keys('C-r');
      await screen.waitFor("(reverse-i-search)`fix': fix the first bug");
      await screen.keys('Enter');
      const taken = await screen.waitUntil((s) => s.includes('› fix the first bug') && s.includes('Enter send'), 'the match in the editor');
      assert.doesNotMatch(taken, /reverse-i-search/, taken);
      assert.equal(provider.requests.length, 0, 'Enter in the search sends nothing');

      await screen.keys('C-r');
      // The search line first: a key and the text after it read at once would be one paste.
      await screen.waitUntil((s) => s.includes("(reverse-i-search)`': ship it"), 'the search line again');
      await screen.type('zzz');
      await screen.waitFor("(reverse-i-search)`zzz': no match");
      await screen.keys('Escape');
      await screen.waitUntil((s) => s.includes('› fix the first bug') && !s.includes('reverse-i-search'), 'the editor as it was');
      await screen.keys('Enter');
      await screen.waitFor('Sent.');
      assert.equal(provider.requests.length, 1);
    } finally {
      await screen.close();
    }
  });
});
