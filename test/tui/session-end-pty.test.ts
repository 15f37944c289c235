// SessionEnd hooks from the interactive session (issue 26), in a real terminal: /clear ends the
// session it leaves (`reason: "clear"`), /quit the current one (`prompt_input_exit`), each once.

import assert from 'node:assert/strict';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startFakeProvider } from '../../src/testing/index.js';
import { ptyEnv, ptyProject, requireTmux } from './pty-fixtures.js';
import { TmuxScreen } from './tmux-screen.js';

const skip = requireTmux();

describe('SessionEnd in the terminal (tmux)', { skip }, () => {
  test('/clear and /quit run SessionEnd for the session they leave', async (t) => {
    const { root, home } = await ptyProject();
    await mkdir(home, { recursive: true });
    const log = join(home, 'ends.log');
    const hook = join(home, 'end.sh');
    await writeFile(hook, `#!/bin/bash\ncat >> ${JSON.stringify(log)}\necho >> ${JSON.stringify(log)}\n`);
    await chmod(hook, 0o755);
    await writeFile(
      join(home, 'config.json'),
      JSON.stringify({ hooks: { SessionEnd: [{ hooks: [{ type: 'command', command: hook }] }] } }),
    );
    const provider = await startFakeProvider({ script: [{ text: 'First answer.' }, { text: 'Second answer.' }] });
    t.after(() => provider.close());
    const screen = await TmuxScreen.start({ args: ['--base-url', provider.baseURL], env: ptyEnv({ GLASSBOX_HOME: home }), cwd: root });
    try {
      await screen.waitFor('new session');
      await screen.submit('one');
      await screen.waitFor('First answer.');
      await screen.submit('/clear');
      await screen.waitFor('new session');
      await screen.submit('two');
      await screen.waitFor('Second answer.');
      await screen.submit('/quit');
      assert.equal(await screen.exitCode(), 0);
    } finally {
      await screen.close();
    }
    const ends = (await readFile(log, 'utf8'))
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as { reason: string; session_id: string; hook_event_name: string });
    assert.deepEqual(
      ends.map((end) => [end.hook_event_name, end.reason]),
      [
        ['SessionEnd', 'clear'],
        ['SessionEnd', 'prompt_input_exit'],
      ],
    );
    assert.notEqual(ends[0]!.session_id, ends[1]!.session_id);
  });
});
