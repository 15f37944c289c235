// A change to a secret file asked and approved in the interactive session, end to end through the
// controller (real runner, fake provider, a real `.env` holding a canary): the approval panel
// shows the runner's preview — the one the server sends the workbench — and neither it nor the
// transcript ever shows what the file holds now. A patch that does not apply is the case that
// leaked: the tool's error quotes the closest lines of the file.

import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { previewChange } from '../../src/runner/index.js';
import { startFakeProvider } from '../../src/testing/index.js';
import type { SessionController } from '../../src/tui/session-controller.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { testController } from './test-controller.js';

const CANARY = 'sk-live-0123456789canary';

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Everything the terminal shows of the session: the transcript's entries and the panel. */
function shown(controller: SessionController): string {
  const { transcript, pending } = controller.getSnapshot();
  return JSON.stringify([transcript.done, transcript.live, pending?.preview ?? null]);
}

describe('a secret file changed with approval in the terminal', { concurrency: true }, () => {
  test('a write to .env, approved: the panel shows what it writes, never what .env holds', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, '.env'), `API_KEY=${CANARY}\nDEBUG=0\n`);
      const args = { path: '.env', content: 'API_KEY=sk-new-value\nDEBUG=1\n' };
      const provider = await startFakeProvider({ script: [{ toolCalls: [{ name: 'write_file', arguments: args }] }, { text: 'Done.' }] });
      const controller = testController(root, provider);
      try {
        const turn = controller.sendPrompt('rotate the key');
        await until(() => controller.getSnapshot().pending?.preview != null, 'the approval panel');
        const panel = controller.getSnapshot().pending!.preview!;
        // The runner's preview, line for line, as the server sends it.
        const server = await previewChange('write_file', JSON.stringify(args), root);
        for (const line of server!.files[0]!.lines.filter((l) => l.kind === 'add')) assert.ok(panel.lines.includes(`+${line.text}`));
        assert.ok(panel.lines.includes('+API_KEY=sk-new-value'), panel.lines.join('\n'));
        assert.ok(!shown(controller).includes(CANARY), shown(controller));
        controller.decide('approve');
        await turn;
        assert.equal(await readFile(join(root, '.env'), 'utf8'), 'API_KEY=sk-new-value\nDEBUG=1\n');
        assert.ok(!shown(controller).includes(CANARY), shown(controller));
      } finally {
        await controller.shutdown();
        await provider.close();
      }
    });
  });

  test('a patch to .env that does not apply: the panel says it will fail, without quoting the file', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, '.env'), `API_KEY=${CANARY}\nDEBUG=0\n`);
      // Close enough to the file's first line that the tool's error quotes it as the closest match.
      const patch = `*** Begin Patch\n*** Update File: .env\n@@\n-API_KEY=${CANARY.slice(0, -1)}X\n+API_KEY=new\n*** End Patch`;
      const provider = await startFakeProvider({
        script: [{ toolCalls: [{ name: 'apply_patch', arguments: { patch } }] }, { text: 'Ok.' }],
      });
      const controller = testController(root, provider);
      try {
        const turn = controller.sendPrompt('rotate the key');
        await until(() => controller.getSnapshot().pending?.preview != null, 'the approval panel');
        const text = controller.getSnapshot().pending!.preview!.lines.join('\n');
        assert.match(text, /the call will fail \(PATCH_HUNK_FAILED\) on \.env, a secret file/);
        assert.ok(!shown(controller).includes(CANARY), text);
        const server = await previewChange('apply_patch', JSON.stringify({ patch }), root);
        assert.ok(!JSON.stringify(server).includes(CANARY), JSON.stringify(server));
        controller.decide('deny');
        await turn;
        assert.equal(await readFile(join(root, '.env'), 'utf8'), `API_KEY=${CANARY}\nDEBUG=0\n`);
      } finally {
        await controller.shutdown();
        await provider.close();
      }
    });
  });
});
