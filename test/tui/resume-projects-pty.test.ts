// `/resume` across projects (issue 25 item 6): the list puts this project's sessions first and
// names each session's directory; continuing another project's session asks again first; and a
// resumed session is priced call by call at the model each call ran on (an offline-demo session
// costs nothing, whatever model the session continues on).

import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startFakeProvider } from '../../src/testing/index.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { ptyEnv, requireTmux } from './pty-fixtures.js';
import { TmuxScreen } from './tmux-screen.js';

const skip = requireTmux();

describe('/resume across projects (tmux)', { skip }, () => {
  test('lists this project first with directories, asks before another project, prices calls at their own model', async (t) => {
    const base = await makeTempDir();
    const home = join(base, 'home');
    const root = join(base, 'project');
    const elsewhere = join(base, 'elsewhere');
    await Promise.all([mkdir(root, { recursive: true }), mkdir(elsewhere, { recursive: true })]);
    const provider = await startFakeProvider({ script: [{ text: 'Here, in the project.' }] });
    t.after(() => provider.close());

    // Here, on a priced model; then elsewhere, later (the newest), on the offline demo, which is free.
    const here = await runCli(
      ['exec', '--base-url', provider.baseURL, '-m', 'gpt-5-mini', 'task in this project'],
      cliEnv({ GLASSBOX_HOME: home, OPENAI_API_KEY: 'k' }),
      root,
    );
    assert.equal(here.code, 0, here.stderr);
    const demo = await runCli(['exec', 'task elsewhere'], cliEnv({ GLASSBOX_HOME: home }), elsewhere);
    assert.equal(demo.code, 0, demo.stderr);
    assert.match(demo.stderr, /offline demo/);

    const screen = await TmuxScreen.start({
      args: ['--base-url', provider.baseURL, '-m', 'gpt-5'],
      env: ptyEnv({ GLASSBOX_HOME: home }),
      cwd: root,
      width: 120,
    });
    try {
      await screen.waitFor('new session');
      // `/resume` alone is a picker; Esc leaves the session as it was.
      await screen.submit('/resume');
      const listed = await screen.waitFor('Enter pick · Esc cancel');
      const mine = listed.indexOf('task in this project');
      const theirs = listed.indexOf('task elsewhere');
      assert.ok(mine !== -1 && theirs !== -1 && mine < theirs, listed);
      assert.match(listed, /this project/, listed);
      assert.ok(listed.includes(elsewhere), listed);
      await screen.keys('Escape');
      await screen.waitUntil((s) => s.includes('Enter send') && !s.includes('Enter pick'), 'the picker closed');

      // The other project's session (number 2): a warning first, the session unchanged.
      await screen.submit('/resume 2');
      const warned = await screen.waitFor(/was recorded in[\s\S]*\/resume 2 again/);
      assert.doesNotMatch(warned, /resumed /, warned);
      await screen.submit('/resume 2');
      // The notice and the status line's new totals are drawn by separate frames: wait for both.
      const resumed = await screen.waitFor(/resumed \S+[\s\S]*[1-9][\d.]*k? tokens · \$/);
      // Its calls ran on the free demo model: $0, not gpt-5's price for the same tokens.
      assert.match(resumed, /tokens · \$0\.0000/, resumed);
    } finally {
      await screen.close();
    }
  });
});
