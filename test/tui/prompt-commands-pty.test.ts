// Prompt commands and skills in the interactive terminal (tmux): `/na` completes a project's
// prompt command with its description, /help lists it, `/name args` sends the command's text with
// the arguments put in (quotes grouping words) while the transcript shows what was typed, and
// /status says what the skill list and a loaded skill cost.

import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startFakeProvider } from '../../src/testing/index.js';
import { sentEntries } from '../helpers/sent-requests.js';
import { ptyEnv, ptyProject, requireTmux } from './pty-fixtures.js';
import { TmuxScreen } from './tmux-screen.js';

const skip = requireTmux();

describe('prompt commands in the terminal (tmux)', { skip }, () => {
  test('complete, are listed by /help, send their text with the arguments; /status shows skill costs', async (t) => {
    const { root, home } = await ptyProject();
    await mkdir(join(root, '.glassbox', 'commands'), { recursive: true });
    await writeFile(
      join(root, '.glassbox', 'commands', 'triage.md'),
      '---\ndescription: Triage a bug report\n---\nTriage bug $1 in area $2.\n',
    );
    await mkdir(join(root, '.agents', 'skills', 'triage-guide'), { recursive: true });
    await writeFile(
      join(root, '.agents', 'skills', 'triage-guide', 'SKILL.md'),
      `---\nname: triage-guide\ndescription: How bugs are triaged here.\n---\n${'Label it, then reproduce it. '.repeat(40)}\n`,
    );
    const provider = await startFakeProvider({
      script: [{ toolCalls: [{ name: 'skill', arguments: { name: 'triage-guide' } }] }, { text: 'Triaged as P2.' }],
    });
    t.after(() => provider.close());
    const screen = await TmuxScreen.start({
      args: ['--base-url', provider.baseURL, '--approval-policy', 'never'],
      env: ptyEnv({ GLASSBOX_HOME: home }),
      cwd: root,
    });
    try {
      await screen.waitFor('new session');
      await screen.type('/tri');
      await screen.waitFor('Triage a bug report');
      // Tab completes the name; the arguments follow it.
      await screen.keys('Tab');
      await screen.waitFor('› /triage ');
      await screen.type('1234 "login page"');
      await screen.waitFor('/triage 1234 "login page"');
      await screen.keys('Enter');
      await screen.waitFor('Triaged as P2.');
      const request = provider.requests[0]!;
      const user = sentEntries(request.body, request.wireApi).find((entry) => entry.kind === 'message' && entry.role === 'user');
      assert.equal(user?.kind === 'message' ? user.text : null, 'Triage bug 1234 in area login page.');
      await screen.submit('/help');
      await screen.waitFor('prompt commands');
      assert.match(await screen.capture({ history: true }), /\/triage \[args\]\s+Triage a bug report/);
      await screen.submit('/status');
      const status = await screen.waitFor(/skills\s+1 listed ~\d+ tokens · loaded: triage-guide ~\d+/);
      assert.ok(status.includes('/triage 1234 "login page"'), status);
    } finally {
      await screen.close();
    }
  });
});
