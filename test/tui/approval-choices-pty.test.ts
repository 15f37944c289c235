// The approval panel says what each choice means (issue 25 item 12, issue 26 "approve always"):
// the permission layer's reason is wrapped in full, never cut at the edge; `[a]` names what it
// grants for the rest of the session; `[s]` shows the exact allow rule it would save, asks once
// more, then writes it to `<home>/config.json`, and a later session runs the same command unasked.

import assert from 'node:assert/strict';
import { access, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startFakeProvider } from '../../src/testing/index.js';
import { ptyEnv, ptyProject, requireTmux, sessionRecords } from './pty-fixtures.js';
import { TmuxScreen } from './tmux-screen.js';

const skip = requireTmux();

/** The panel's text with its borders and every space and row break taken out, to find wrapped text in. */
function squeezed(screen: string): string {
  return screen
    .split('\n')
    .map((row) => row.replace(/^\s*│/, '').replace(/│\s*$/, ''))
    .join('')
    .replace(/\s+/g, '');
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

describe('the approval panel names its choices (tmux)', { skip }, () => {
  test('the reason is wrapped in full, [a] says what it covers, [s] saves the exact rule after a confirm; the next session runs unasked', async (t) => {
    const { root, home } = await ptyProject();
    const call = { toolCalls: [{ name: 'shell', arguments: { command: 'touch made.txt' } }] };
    const first = await startFakeProvider({ script: [call, { text: 'Made it.' }] });
    t.after(() => first.close());
    const args = (provider: { baseURL: string }) => [
      '--base-url',
      provider.baseURL,
      '--sandbox',
      'danger-full-access',
      '--approval-policy',
      'untrusted',
    ];
    const screen = await TmuxScreen.start({ args: args(first), env: ptyEnv({ GLASSBOX_HOME: home }), cwd: root, width: 60, height: 30 });
    let sessionId: string;
    try {
      await screen.waitIdle();
      await screen.submit('make the file');
      const panel = await screen.waitUntil((s) => s.includes('[s] always  '), 'the armed approval panel');
      const flat = squeezed(panel);
      assert.match(flat, /\[a\]forthissessionallowsshell:touchmade\.txtfortherestofthissession/, panel);
      assert.ok(flat.includes(`[s]always:savestheruleshell(touchmade.txt)to${join(home, 'config.json')}`), panel);
      await screen.keys('s');
      const confirm = await screen.waitUntil((s) => squeezed(s).includes('saveshell(touchmade.txt)topermissions.allow?'), 'the confirm');
      assert.match(squeezed(confirm), /\[y\]saveandapprove/, confirm);
      assert.equal(await exists(join(home, 'config.json')), false, 'nothing saved before the second yes');
      await screen.keys('y');
      await screen.waitFor('Made it.');
      const saved = JSON.parse(await readFile(join(home, 'config.json'), 'utf8')) as { permissions: { allow: string[] } };
      assert.deepEqual(saved.permissions.allow, ['shell(touch made.txt)']);
      assert.ok(await exists(join(root, 'made.txt')));
      await screen.waitFor(/saved the allow rule shell\(touch made\.txt\)/);
      // The reason the permission layer gave, all of it on screen (wrapped, not cut at 60 columns).
      await screen.waitIdle();
      await screen.keys('C-d');
      const farewell = await screen.waitFor(/continue it with:\s+glassbox --resume (\S+)/);
      sessionId = /glassbox --resume (\S+)/.exec(farewell)![1]!;
      const asked = (await sessionRecords(home, sessionId)).find((r) => JSON.stringify(r).includes('"approval_requested"'));
      const reason = String((JSON.parse(JSON.stringify(asked)) as { event?: { reason?: string } }).event?.reason ?? '');
      assert.ok(reason.length > 56, `a reason longer than the panel is wide: ${reason}`);
      assert.ok(flat.includes(`why:${reason}`.replace(/\s+/g, '')), `${reason}\n${panel}`);
    } finally {
      await screen.close();
    }

    await rm(join(root, 'made.txt'));
    const second = await startFakeProvider({ script: [call, { text: 'Made again.' }] });
    t.after(() => second.close());
    const again = await TmuxScreen.start({ args: args(second), env: ptyEnv({ GLASSBOX_HOME: home }), cwd: root, width: 60, height: 30 });
    try {
      await again.waitIdle();
      await again.submit('make the file again');
      const text = await again.waitFor('Made again.');
      assert.doesNotMatch(text, /approval needed/, text);
      assert.ok(await exists(join(root, 'made.txt')));
    } finally {
      await again.close();
    }
  });
});
