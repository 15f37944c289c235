// The interactive session end to end: the real binary in a tmux pseudo-terminal against the
// scripted fake provider. A multi-turn task with tool calls, an approval answered after its diff
// was shown, a manual compaction with instructions, quitting, and `--resume last` continuing the
// same session file.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startFakeProvider, type CapturedRequest } from '../../src/testing/index.js';
import { farewellSessionId, ptyEnv, ptyProject, requireTmux, sessionRecords } from './pty-fixtures.js';
import { TmuxScreen } from './tmux-screen.js';

const skip = requireTmux();

function bodyText(request: CapturedRequest): string {
  return JSON.stringify(request.body);
}

describe('glassbox in a terminal (tmux)', { skip }, () => {
  test('a multi-turn task with tools, an approval with its diff, /compact, quit, then --resume last continues it', async (t) => {
    const { root, home } = await ptyProject();
    const provider = await startFakeProvider({
      script: [
        { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
        { text: 'The notes say **remember the milk**.' },
        { text: 'Reading it again first.', toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
        { toolCalls: [{ name: 'edit_file', arguments: { path: 'notes.txt', old_string: 'the milk', new_string: 'the oat milk' } }] },
        { text: 'Done: it now says oat milk.' },
        { text: 'Summary: the user keeps notes; notes.txt now says to remember the oat milk.' },
        { text: 'You asked me to change the milk to oat milk.' },
      ],
    });
    // DEV=true is ink's React DevTools switch, a name a user may have set for something else; the
    // bundled session must not try to connect DevTools or read ink's package.json (it crashed).
    // Closed however the test ends: an open server would keep the test process alive.
    t.after(() => provider.close());
    const env = ptyEnv({ GLASSBOX_HOME: home, DEV: 'true' });
    const args = ['--base-url', provider.baseURL];
    const screen = await TmuxScreen.start({ args, env, cwd: root });
    let sessionId = '';
    try {
      await screen.waitFor('new session');
      await screen.submit('what do the notes say?');
      await screen.waitFor('The notes say');
      await screen.waitFor(/✓ read_file notes\.txt/);

      await screen.submit('change the milk to oat milk');
      const approval = await screen.waitFor('[y] approve once');
      assert.match(approval, /edit_file/);
      assert.match(approval, /-remember the milk/);
      assert.match(approval, /\+remember the oat milk/);
      await screen.keys('y');
      await screen.waitFor('Done: it now says oat milk.');
      assert.equal(await readFile(join(root, 'notes.txt'), 'utf8'), 'remember the oat milk\n');

      await screen.submit('/compact keep what the notes say');
      // One wait for both: ink writes the new transcript line and redraws the status bar below it in
      // separate writes, and a screen read between the two shows the line without the bar.
      await screen.waitFor(/context compacted \(summary, manual\)[\s\S]*on-request · [0-9a-f]{8}-[0-9a-f]{4}/);

      await screen.waitIdle();
      await screen.keys('C-c');
      await screen.waitFor('Press Ctrl-C again to quit');
      await screen.keys('C-c');
      const code = await screen.exitCode();
      assert.equal(code, 0);
      sessionId = farewellSessionId(await screen.capture({ history: true }));
    } finally {
      await screen.close();
    }

    // The compaction request carried the instructions; the file has the whole story.
    assert.match(bodyText(provider.requests[5]!), /keep what the notes say/);
    const records = await sessionRecords(home, sessionId);
    assert.equal(records.filter((r) => r.type === 'turn_started').length, 2);
    assert.equal(records.filter((r) => r.type === 'turn_completed').length, 2);
    const approvals = records.filter((r) => r.type === 'audit' && (r.event as { type: string }).type === 'approval_resolved');
    assert.equal((approvals[0]!.event as { decision: string }).decision, 'approve');
    const compaction = records.find((r) => r.type === 'compaction');
    assert.equal(compaction?.trigger, 'manual');

    const resumed = await TmuxScreen.start({ args: [...args, '--resume', 'last'], env, cwd: root });
    try {
      // The earlier turns are back on screen, and the next prompt continues the same file.
      await resumed.waitFor('change the milk to oat milk');
      await resumed.waitFor(`on-request · ${sessionId.slice(0, 13)}`);
      await resumed.submit('what did I ask you?');
      await resumed.waitFor('You asked me to change the milk to oat milk.');
      await resumed.submit('/quit');
      assert.equal(await resumed.exitCode(), 0);
    } finally {
      await resumed.close();
    }
    const after = await sessionRecords(home, sessionId);
    assert.equal(after.filter((r) => r.type === 'turn_started').length, 3);
    // The resumed request starts from the compaction summary, not the full history.
    assert.match(bodyText(provider.requests[6]!), /remember the oat milk/);
    assert.equal(provider.unexpectedRequests.length, 0);
  });
});
