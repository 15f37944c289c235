// The ink app in-process (ink-testing-library), driven by its stdin, with a real controller,
// runner and in-memory session store against the fake provider: what the screen shows for a
// streamed answer, an approval with its diff, and the status line's numbers.

import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { createElement as h } from 'react';
import { render } from 'ink-testing-library';
import { MemorySessionStore } from '../../src/sessions/index.js';
import { startFakeProvider } from '../../src/testing/index.js';
import { App } from '../../src/tui/app-view.js';
import { createTheme, stripAnsi } from '../../src/tui/theme.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { testController } from './test-controller.js';

async function until(condition: () => boolean, what: string, output: () => string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; output:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the interactive app (ink, in-process)', () => {
  test('a prompt streams its answer; a write asks with its diff; y approves; the status line counts', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'notes.txt'), 'remember the milk\n');
      const provider = await startFakeProvider({
        script: [
          {
            text: 'Writing **it**.',
            toolCalls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'remember the bread\n' } }],
            usage: { input: 1000, output: 200 },
          },
          { text: 'Done.', usage: { input: 1300, output: 20 } },
        ],
      });
      const store = new MemorySessionStore();
      const controller = testController(root, provider, { store });
      await controller.getRunner();
      // The approval guard's timer, fired by hand: a key typed before it fires answers nothing.
      let arm: (() => void) | null = null;
      let disarmed = 0;
      const scheduleArm = (fire: () => void): (() => void) => {
        arm = fire;
        disarmed += 1;
        return () => {
          if (arm === fire) arm = null;
        };
      };
      const app = render(h(App, { controller, theme: createTheme(false), files: ['notes.txt', 'src/main.ts'], scheduleArm }));
      // Bold and dim stay without colour; the assertions read the text.
      const output = (): string => stripAnsi(app.frames.join('\n'));
      const frameText = (): string => stripAnsi(app.lastFrame() ?? '');
      try {
        assert.match(frameText(), /gpt-5-mini · chat · read-only · on-request · new session/);
        assert.match(frameText(), /context 0\/272k \(0%\) · compacts at 231k \(85%\)/);

        // @ completion lists matching files; Tab takes the first.
        app.stdin.write('change @no');
        await until(() => frameText().includes('@notes.txt'), '@ completion', output);
        app.stdin.write('\t');
        await until(() => frameText().includes('change @notes.txt'), 'the completed path', output);
        app.stdin.write('\r');

        await until(() => frameText().includes('approval needed'), 'the approval panel', output);
        const panel = frameText();
        assert.match(panel, /write_file/);
        assert.match(panel, /-remember the milk/);
        assert.match(panel, /\+remember the bread/);
        assert.match(panel, /answer keys open when you stop typing/);
        // Typed ahead ("please add…"): the `a` that would approve for the session is dropped and
        // restarts the wait, and the `y` right after it too.
        app.stdin.write('a');
        app.stdin.write('y');
        await until(() => disarmed === 3, 'the guard restarted by each key', output);
        assert.ok(controller.getSnapshot().pending !== null, 'keys typed as the panel appeared answered nothing');
        (arm as unknown as () => void)();
        await until(() => frameText().includes('[y] approve once'), 'the armed panel', output);
        app.stdin.write('y');
        await until(() => output().includes('Done.'), 'the final answer', output);
        await until(() => controller.getSnapshot().busy === null, 'the turn to end', output);
        assert.equal(await readFile(join(root, 'notes.txt'), 'utf8'), 'remember the bread\n');
        assert.match(output(), /Writing it\./, 'markdown is rendered, not shown raw');
        assert.match(output(), /✓ write_file notes\.txt/);

        const frame = frameText();
        const sessionId = controller.getSnapshot().sessionId!;
        assert.match(frame, new RegExp(`on-request · ${sessionId.slice(0, 13)}`));
        // Context after the last call: 1300 in + 20 out; the session used 1200 + 1320 tokens, at
        // gpt-5-mini's $0.25/$2 per million: 2300 × 0.25 + 220 × 2 = 1015 µ$.
        assert.match(frame, /context 1\.3k\/272k \(0%\) · compacts at 231k \(85%\) · 2\.5k tokens · \$0\.0010/);
        const records = (await store.read(sessionId)).records.map((r) => r.type);
        assert.ok(records.includes('turn_completed'));
      } finally {
        app.unmount();
        await controller.shutdown();
        await provider.close();
      }
    });
  });
  test('a bracketed paste at an approval answers nothing; pasted into the reason, its newlines are spaces', async () => {
    await withTempDir(async (root) => {
      const provider = await startFakeProvider({
        script: [{ toolCalls: [{ name: 'write_file', arguments: { path: 'todo.txt', content: 'x\n' } }] }, { text: 'Fine.' }],
      });
      const controller = testController(root, provider);
      await controller.getRunner();
      // The approval guard's wait is over at once here (its own test is above).
      const scheduleArm = (fire: () => void): (() => void) => {
        queueMicrotask(fire);
        return () => {};
      };
      const app = render(h(App, { controller, theme: createTheme(false), files: [], scheduleArm }));
      const output = (): string => stripAnsi(app.frames.join('\n'));
      const frameText = (): string => stripAnsi(app.lastFrame() ?? '');
      try {
        app.stdin.write('write a todo');
        await until(() => frameText().includes('write a todo'), 'the typed prompt', output);
        app.stdin.write('\r');
        await until(() => frameText().includes('[y] approve once'), 'the approval panel', output);
        // A pasted "y" is text, not the approve key; the next real key still works.
        app.stdin.write('\x1b[200~y\x1b[201~');
        app.stdin.write('n');
        await until(() => frameText().includes('why deny?'), 'the deny prompt', output);
        assert.ok(controller.getSnapshot().pending !== null, 'the pasted y approved nothing');
        app.stdin.write('\x1b[200~not\rnow\x1b[201~');
        await until(() => frameText().includes('not now'), 'the pasted reason', output);
        app.stdin.write('\r');
        await until(() => output().includes('Fine.'), 'the answer after the denial', output);
        assert.match(JSON.stringify(provider.requests[1]!.body), /not now/);
      } finally {
        app.unmount();
        await controller.shutdown();
        await provider.close();
      }
    });
  });
  test('Ctrl-C twice in a row quits, even when the second comes before the app has drawn the first', async () => {
    await withTempDir(async (root) => {
      const provider = await startFakeProvider({ script: [] });
      const controller = testController(root, provider);
      await controller.getRunner();
      const app = render(h(App, { controller, theme: createTheme(false), files: [] }));
      try {
        // Two writes in one tick: the key handler sees the second before any re-render.
        app.stdin.write('\x03');
        app.stdin.write('\x03');
        await until(
          () => controller.getSnapshot().exitRequested,
          'the second Ctrl-C to quit',
          () => stripAnsi(app.frames.join('\n')),
        );
      } finally {
        app.unmount();
        await controller.shutdown();
        await provider.close();
      }
    });
  });
});
