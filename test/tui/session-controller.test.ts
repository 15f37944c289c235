// The controller's session bookkeeping without a screen: right after /fork the context meter
// shows the size the parent measured for the forked history (not 0), marked as not yet measured
// in the fork, and the fork's first model call replaces it with its own measurement. Streamed deltas
// reach the view together, and a turn's end publishes all of them.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startFakeProvider } from '../../src/testing/index.js';
import { runCommand } from '../../src/tui/command-handlers.js';
import { contextText } from '../../src/tui/session-meter.js';
import { createTheme } from '../../src/tui/theme.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { testController } from './test-controller.js';

describe('session controller', () => {
  test('/fork shows the context the parent measured for that history at once; the next call measures its own', async () => {
    await withTempDir(async (root) => {
      const provider = await startFakeProvider({
        script: [
          { text: 'One.', usage: { input: 1000, output: 200 } },
          { text: 'Two.', usage: { input: 3000, output: 100 } },
          { text: 'Branch.', usage: { input: 1500, output: 50 } },
        ],
      });
      const controller = testController(root, provider);
      const context = { controller, theme: createTheme(false), listed: [], confirmForeign: null };
      try {
        await controller.sendPrompt('first');
        await controller.sendPrompt('second');
        assert.equal(controller.getSnapshot().meter.contextTokens, 3100);
        await runCommand(context, 'fork', '1');
        const forked = controller.getSnapshot().meter;
        // The fork's tokens are those of the history it carries (turn 1), as the session list counts them, not 0.
        assert.deepEqual([forked.contextTokens, forked.contextEstimated, forked.sessionTokens], [1200, true, 1200]);
        assert.match(contextText(forked, controller.getSnapshot().limits), /^context ~1\.2k\/272k/);
        await controller.sendPrompt('in the branch');
        const measured = controller.getSnapshot().meter;
        assert.deepEqual([measured.contextTokens, measured.contextEstimated, measured.sessionTokens], [1550, false, 2750]);
      } finally {
        await controller.shutdown();
        await provider.close();
      }
    });
  });

  test('streamed deltas are published together, and the turn ends with everything published', async () => {
    await withTempDir(async (root) => {
      const answer = Array.from({ length: 40 }, (_, i) => `Paragraph ${i + 1}.`).join('\n\n');
      const provider = await startFakeProvider({ script: [{ text: answer, chunkSize: 4, chunkDelayMs: 0 }] });
      const controller = testController(root, provider);
      let published = 0;
      let seen = controller.getSnapshot();
      controller.subscribe(() => {
        published += 1;
        seen = controller.getSnapshot();
      });
      try {
        await controller.sendPrompt('long');
        const deltas = Math.ceil(answer.length / 4);
        // A render per delta rewrote the whole live frame each time; far fewer renders than deltas.
        assert.ok(published < deltas / 2, `${published} publications for ${deltas} deltas`);
        // Nothing is held back at the end: the view saw the last state, the answer's end included.
        assert.equal(seen, controller.getSnapshot());
        assert.match(JSON.stringify(seen.transcript), /Paragraph 40\./);
      } finally {
        await controller.shutdown();
        await provider.close();
      }
    });
  });
});
