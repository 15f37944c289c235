// The `idle_prompt` Notification from the interactive session, as Claude Code sends it: once the
// prompt has waited a while after a turn (60 s there and by default here; a few ms in this test),
// the Notification hooks whose matcher is idle_prompt run once, with a real bash script as the
// hook; those for permission_prompt do not, and a key pressed meanwhile starts the wait again.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startFakeProvider } from '../../src/testing/index.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { waitUntil } from '../helpers/wait-until.js';
import { testController } from './test-controller.js';

async function logHook(root: string, name: string): Promise<{ command: string; log: string }> {
  const log = join(root, `${name}.log`);
  const command = join(root, `${name}.sh`);
  await writeFile(command, `#!/bin/bash\ncat >> ${JSON.stringify(log)}\necho >> ${JSON.stringify(log)}\n`);
  await chmod(command, 0o755);
  return { command, log };
}

async function lines(log: string): Promise<Array<Record<string, unknown>>> {
  if (!existsSync(log)) return [];
  return (await readFile(log, 'utf8'))
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('idle_prompt in the interactive session', () => {
  test('after a turn and a quiet spell, the idle_prompt Notification hooks run once', async () => {
    await withTempDir(async (root) => {
      const home = join(root, '.home');
      await mkdir(home, { recursive: true });
      const idle = await logHook(root, 'idle');
      const permission = await logHook(root, 'permission');
      await writeFile(
        join(home, 'config.json'),
        JSON.stringify({
          hooks: {
            Notification: [
              { matcher: 'idle_prompt', hooks: [{ type: 'command', command: idle.command }] },
              { matcher: 'permission_prompt', hooks: [{ type: 'command', command: permission.command }] },
            ],
          },
        }),
      );
      const provider = await startFakeProvider({ script: [{ text: 'An answer.' }] });
      const controller = testController(root, provider, { idlePromptMs: 30 });
      try {
        await controller.sendPrompt('hello');
        const sessionId = controller.getSnapshot().sessionId;
        assert.ok(sessionId !== null);
        await waitUntil(async () => (await lines(idle.log)).length > 0, 'the idle_prompt hook has run', 30_000);
        await controller.shutdown();
        const ran = await lines(idle.log);
        assert.deepEqual(
          ran.map((entry) => [entry.hook_event_name, entry.notification_type, entry.message, entry.session_id]),
          [['Notification', 'idle_prompt', 'Glassbox is waiting for your input', sessionId]],
        );
        assert.deepEqual(await lines(permission.log), [], 'a permission_prompt hook is not run for an idle prompt');
      } finally {
        await controller.shutdown();
        await provider.close();
      }
    });
  });

  test('no session yet, or a prompt sent before the wait ends: nothing is sent meanwhile', async () => {
    await withTempDir(async (root) => {
      const home = join(root, '.home');
      await mkdir(home, { recursive: true });
      const idle = await logHook(root, 'idle');
      await writeFile(
        join(home, 'config.json'),
        JSON.stringify({ hooks: { Notification: [{ matcher: 'idle_prompt', hooks: [{ type: 'command', command: idle.command }] }] } }),
      );
      const provider = await startFakeProvider({ script: [{ text: 'One.' }, { text: 'Two.' }] });
      // A wait no test reaches: what matters is that sending a prompt disarms it and a turn arms it.
      const controller = testController(root, provider, { idlePromptMs: 10 * 60_000 });
      try {
        const armed = (): boolean => controller.hookRuns.idleArmed;
        assert.equal(armed(), false, 'nothing armed before any turn');
        await controller.sendPrompt('one');
        assert.equal(armed(), true, 'armed after the turn');
        const second = controller.sendPrompt('two');
        assert.equal(armed(), false, 'disarmed while a prompt runs');
        await second;
        assert.equal(armed(), true);
        controller.requestExit();
        assert.equal(armed(), false, 'disarmed on exit');
      } finally {
        await controller.shutdown();
        await provider.close();
      }
      assert.deepEqual(await lines(idle.log), []);
    });
  });
});
