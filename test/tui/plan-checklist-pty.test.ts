// The plan the model keeps with update_plan is a checklist in the interactive terminal (tmux):
// each call draws the whole plan under its line (done ✔ in green, the step in progress ◐, the
// rest □), and a plan the tool refused (two steps in progress) is marked failed with no checklist.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startFakeProvider } from '../../src/testing/index.js';
import { ptyEnv, ptyProject, requireTmux } from './pty-fixtures.js';
import { TmuxScreen } from './tmux-screen.js';

const skip = requireTmux();

describe('the plan in the terminal (tmux)', { skip }, () => {
  test('update_plan calls are drawn as checklists; a refused plan is not', async (t) => {
    const { root, home } = await ptyProject();
    const provider = await startFakeProvider({
      script: [
        {
          toolCalls: [
            {
              name: 'update_plan',
              arguments: {
                explanation: 'Starting with the parser',
                plan: [
                  { step: 'Read the parser', status: 'in_progress' },
                  { step: 'Fix the off-by-one', status: 'pending' },
                ],
              },
            },
          ],
        },
        {
          toolCalls: [
            {
              name: 'update_plan',
              arguments: {
                plan: [
                  { step: 'Bogus one', status: 'in_progress' },
                  { step: 'Bogus two', status: 'in_progress' },
                ],
              },
            },
          ],
        },
        {
          toolCalls: [
            {
              name: 'update_plan',
              arguments: {
                plan: [
                  { step: 'Read the parser', status: 'completed' },
                  { step: 'Fix the off-by-one', status: 'in_progress' },
                ],
              },
            },
          ],
        },
        { text: 'Working on the fix now.' },
      ],
    });
    t.after(() => provider.close());
    const screen = await TmuxScreen.start({
      args: ['--base-url', provider.baseURL, '--sandbox', 'read-only', '--approval-policy', 'never'],
      env: ptyEnv({ GLASSBOX_HOME: home }),
      cwd: root,
    });
    try {
      await screen.waitFor('new session');
      await screen.submit('fix the parser');
      await screen.waitFor('Working on the fix now.');
      const text = await screen.capture({ history: true });
      assert.match(text, /✓ update_plan .*· done.*\n\s+Starting with the parser\n\s+◐ Read the parser\n\s+□ Fix the off-by-one\n/, text);
      assert.match(text, /✗ update_plan .*\n\s+└ Error \[INVALID_PLAN\]: At most one step can be in_progress/, text);
      assert.doesNotMatch(text, /◐ Bogus/, text);
      assert.match(text, /✓ update_plan .*· done.*\n\s+✔ Read the parser\n\s+◐ Fix the off-by-one\n/, text);
      const escaped = await screen.capture({ escapes: true, history: true });
      // Green (SGR 32) for the completed step.
      assert.match(escaped, /\u001b\[32m✔ Read the parser/, escaped);
    } finally {
      await screen.close();
    }
  });
});
