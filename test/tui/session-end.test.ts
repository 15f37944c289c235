// SessionEnd hooks from the interactive session (issue 26), through the session controller the
// terminal drives: /clear ends the session it leaves (`reason: "clear"`), quitting the current one
// (`prompt_input_exit`), each once, with a real bash script as the hook.

import assert from 'node:assert/strict';
import { access, chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { MemorySessionStore } from '../../src/sessions/index.js';
import { startFakeProvider } from '../../src/testing/index.js';
import { runCommand } from '../../src/tui/command-handlers.js';
import { createTheme } from '../../src/tui/theme.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { waitUntil } from '../helpers/wait-until.js';
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

  test('quitting can cancel a SessionEnd hook that hangs; its run is recorded as cancelled', async () => {
    await withTempDir(async (root) => {
      const home = join(root, '.home');
      await mkdir(home, { recursive: true });
      const started = join(root, 'started');
      const hook = join(root, 'hang.sh');
      // It says it started, then waits far longer than the test: only a cancel ends it in time.
      await writeFile(hook, `#!/bin/bash\ntouch ${JSON.stringify(started)}\nexec sleep 600\n`);
      await chmod(hook, 0o755);
      await writeFile(
        join(home, 'config.json'),
        JSON.stringify({ hooks: { SessionEnd: [{ hooks: [{ type: 'command', command: hook, timeout: 900 }] }] } }),
      );
      const provider = await startFakeProvider({ script: [{ text: 'Answer.' }] });
      const store = new MemorySessionStore();
      const controller = testController(root, provider, { store });
      try {
        await controller.sendPrompt('one');
        const sessionId = controller.getSnapshot().sessionId;
        assert.ok(sessionId !== null);
        assert.equal(controller.hookRuns.cancelEnding(), false, 'nothing to cancel before quitting');
        const quitting = controller.shutdown();
        await waitUntil(
          () =>
            access(started).then(
              () => true,
              () => false,
            ),
          'the SessionEnd hook has started',
        );
        assert.equal(controller.hookRuns.endingRuns, true);
        assert.equal(controller.hookRuns.cancelEnding(), true);
        await quitting;
        assert.equal(controller.hookRuns.endingRuns, false);
        const { records } = await store.read(sessionId);
        const ran = records.filter((record) => record.type === 'audit' && record.event.type === 'hook_ran');
        assert.equal(ran.length, 1, 'the cancelled run is recorded once');
        assert.match(JSON.stringify(ran[0]), /cancelled/);
      } finally {
        await controller.shutdown();
        await provider.close();
      }
    });
  });
});
