// SessionEnd hooks from the interactive session (issue 26), through the session controller the
// terminal drives: /clear ends the session it leaves (`reason: "clear"`), quitting the current one
// (`prompt_input_exit`), each once, with a real bash script as the hook.

import assert from 'node:assert/strict';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startFakeProvider } from '../../src/testing/index.js';
import { runCommand } from '../../src/tui/command-handlers.js';
import { createTheme } from '../../src/tui/theme.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { testController } from './test-controller.js';

describe('SessionEnd in the interactive session', () => {
  test('/clear and quitting run SessionEnd for the session they leave', async () => {
    await withTempDir(async (root) => {
      const home = join(root, '.home');
      await mkdir(home, { recursive: true });
      const log = join(root, 'ends.log');
      const hook = join(root, 'end.sh');
      await writeFile(hook, `#!/bin/bash\ncat >> ${JSON.stringify(log)}\necho >> ${JSON.stringify(log)}\n`);
      await chmod(hook, 0o755);
      await writeFile(
        join(home, 'config.json'),
        JSON.stringify({ hooks: { SessionEnd: [{ hooks: [{ type: 'command', command: hook }] }] } }),
      );
      const provider = await startFakeProvider({ script: [{ text: 'First answer.' }, { text: 'Second answer.' }] });
      const controller = testController(root, provider);
      const context = { controller, theme: createTheme(false), listed: [], confirmForeign: null };
      try {
        await controller.sendPrompt('one');
        const first = controller.getSnapshot().sessionId;
        await runCommand(context, 'clear', '');
        await controller.sendPrompt('two');
        const second = controller.getSnapshot().sessionId;
        assert.ok(first !== null && second !== null && first !== second);
        await controller.shutdown();
        const ends = (await readFile(log, 'utf8'))
          .split('\n')
          .filter((line) => line.trim() !== '')
          .map((line) => JSON.parse(line) as { reason: string; session_id: string; hook_event_name: string });
        assert.deepEqual(
          ends.map((end) => [end.hook_event_name, end.reason, end.session_id]),
          [
            ['SessionEnd', 'clear', first],
            ['SessionEnd', 'prompt_input_exit', second],
          ],
        );
      } finally {
        await controller.shutdown();
        await provider.close();
      }
    });
  });
});
