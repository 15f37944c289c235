// `/rewind` in a real terminal (tmux) against the fake provider: after two turns of writes,
// `/rewind` lists the turns, `/rewind 2` shows the diff and changes nothing, and `/rewind 2` again
// restores the files to before turn 2 and continues in a branch that holds turn 1 only.

import assert from 'node:assert/strict';
import { lstat, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startFakeProvider } from '../../src/testing/index.js';
import { ptyEnv, ptyProject, requireTmux, sessionRecords } from './pty-fixtures.js';
import { TmuxScreen } from './tmux-screen.js';

const skip = requireTmux();

describe('glassbox in a terminal: /rewind (tmux)', { skip }, () => {
  test('/rewind lists the turns, /rewind 2 shows the diff, the same again restores and branches', async (t) => {
    const { root, home } = await ptyProject();
    await writeFile(join(root, 'a.txt'), 'zero\n');
    const provider = await startFakeProvider({
      script: [
        { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'one\n' } }] },
        { text: 'First done.' },
        {
          toolCalls: [
            { name: 'write_file', arguments: { path: 'a.txt', content: 'two\n' } },
            { name: 'write_file', arguments: { path: 'made.txt', content: 'made in turn two\n' } },
          ],
        },
        { text: 'Second done.' },
        { text: 'Branch answer.' },
      ],
    });
    t.after(() => provider.close());
    const screen = await TmuxScreen.start({
      args: ['--base-url', provider.baseURL, '--sandbox', 'workspace-write', '--approval-policy', 'never'],
      env: ptyEnv({ GLASSBOX_HOME: home }),
      cwd: root,
    });
    try {
      await screen.waitFor('new session');
      await screen.submit('first change');
      await screen.waitFor('First done.');
      await screen.submit('second change');
      await screen.waitFor('Second done.');
      await screen.submit('/rewind');
      await screen.waitFor(/2 {2}second change/);
      await screen.submit('/rewind 2');
      await screen.waitFor(/\/rewind 2 again to restore 2 file\(s\)/);
      const shown = await screen.capture({ history: true });
      assert.match(shown, /restore a\.txt/);
      assert.match(shown, /-two/);
      assert.match(shown, /\+one/);
      assert.match(shown, /delete made\.txt/);
      assert.equal(await readFile(join(root, 'a.txt'), 'utf8'), 'two\n');
      await screen.submit('/rewind 2');
      const done = await screen.waitFor(/rewound to before turn 2: 2 file\(s\) restored; you are in\s+(\S+)\s+now/);
      const forkId = /you are in\s+(\S+)\s+now/.exec(done)![1]!;
      assert.equal(await readFile(join(root, 'a.txt'), 'utf8'), 'one\n');
      await assert.rejects(lstat(join(root, 'made.txt')));
      await screen.submit('branch question');
      await screen.waitFor('Branch answer.');
      const sent = JSON.stringify(provider.requests.at(-1)!.body);
      assert.match(sent, /first change/);
      assert.doesNotMatch(sent, /second change/);
      await screen.submit('/quit');
      await screen.exitCode();
      const records = await sessionRecords(home, forkId);
      assert.deepEqual(
        records.filter((record) => record.type === 'turn_started').map((record) => record.turn),
        [1, 2],
      );
    } finally {
      await screen.close();
    }
  });
});
