// Plan mode in the interactive terminal (tmux): `glassbox --plan` runs the first prompt read-only
// (no writing tool offered, the plan-mode instructions sent) and asks to /accept or /reject the
// plan; /accept carries it out in the session's sandbox (writing tools back); `/plan <task>`
// proposes another, and /reject drops it without another request.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startFakeProvider, type CapturedRequest } from '../../src/testing/index.js';
import { ptyEnv, ptyProject, requireTmux } from './pty-fixtures.js';
import { TmuxScreen } from './tmux-screen.js';

const skip = requireTmux();

const toolNames = (request: CapturedRequest) =>
  (request.body.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
const lastMessage = (request: CapturedRequest) => JSON.stringify((request.body.messages as unknown[]).at(-1));

describe('plan mode in the terminal (tmux)', { skip }, () => {
  test('--plan proposes read-only, /accept carries it out, /plan then /reject drops one', async (t) => {
    const { root, home } = await ptyProject();
    const steps = (status: string) => [
      { step: 'Append eggs to notes.txt', status },
      { step: 'Say it is done', status: 'pending' },
    ];
    const provider = await startFakeProvider({
      script: [
        { toolCalls: [{ name: 'update_plan', arguments: { plan: steps('pending') } }] },
        { text: 'Plan: append eggs, then report.' },
        { toolCalls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'remember the milk\neggs\n' } }] },
        { toolCalls: [{ name: 'update_plan', arguments: { plan: steps('completed') } }] },
        { text: 'Eggs added.' },
        { toolCalls: [{ name: 'update_plan', arguments: { plan: [{ step: 'Delete everything', status: 'pending' }] } }] },
        { text: 'Plan: delete everything.' },
      ],
    });
    t.after(() => provider.close());
    const screen = await TmuxScreen.start({
      args: ['--plan', '--base-url', provider.baseURL, '--sandbox', 'workspace-write', '--approval-policy', 'never'],
      env: ptyEnv({ GLASSBOX_HOME: home }),
      cwd: root,
    });
    try {
      await screen.waitFor('new session');
      await screen.submit('add eggs to my notes');
      await screen.waitFor('or /reject');
      let text = await screen.capture({ history: true });
      assert.match(text, /plan proposed, nothing changed: \/accept runs it \(workspace-write\)/, text);
      assert.match(text, /□ Append eggs to notes\.txt/, text);
      assert.ok(!toolNames(provider.requests[0]!).includes('write_file'));
      assert.match(lastMessage(provider.requests[0]!), /<plan_mode>/);
      assert.equal(await readFile(join(root, 'notes.txt'), 'utf8'), 'remember the milk\n');

      await screen.submit('/accept');
      await screen.waitFor('Eggs added.');
      assert.equal(await readFile(join(root, 'notes.txt'), 'utf8'), 'remember the milk\neggs\n');
      assert.ok(toolNames(provider.requests[2]!).includes('write_file'));
      assert.match(lastMessage(provider.requests[2]!), /The user accepted the plan/);
      assert.doesNotMatch(lastMessage(provider.requests[2]!), /plan_mode/);
      text = await screen.capture({ history: true });
      assert.match(text, /plan accepted: carrying it out in the workspace-write sandbox/, text);
      assert.match(text, /✔ Append eggs to notes\.txt/, text);

      await screen.submit('/plan wipe the notes');
      await screen.waitFor('Plan: delete everything.');
      assert.equal(provider.requests.length, 7);
      assert.ok(!toolNames(provider.requests[5]!).includes('write_file'));
      await screen.submit('/reject');
      await screen.waitFor('plan rejected: nothing was changed');
      assert.equal(provider.requests.length, 7);
      assert.equal(await readFile(join(root, 'notes.txt'), 'utf8'), 'remember the milk\neggs\n');
    } finally {
      await screen.close();
    }
  });
});
