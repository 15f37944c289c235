// `glassbox` takes exec's trace options too (issue 25 item 11: the README says every exec option
// works in the interactive session): `--otlp-endpoint` sends each turn's trace to the endpoint
// given, and `--trace-content` attaches the prompt and answer, as `exec` does.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startFakeProvider } from '../../src/testing/index.js';
import { spanTree, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { ptyEnv, ptyProject, requireTmux } from './pty-fixtures.js';
import { TmuxScreen } from './tmux-screen.js';

const skip = requireTmux();

describe('the interactive session exports traces (tmux)', { skip }, () => {
  test('--otlp-endpoint and --trace-content: the turn arrives as a trace with its content', async (t) => {
    const { root, home } = await ptyProject();
    const provider = await startFakeProvider({ script: [{ text: 'The milk, as always.' }] });
    t.after(() => provider.close());
    const receiver = await startOtlpReceiver();
    t.after(() => receiver.close());
    const screen = await TmuxScreen.start({
      args: ['--base-url', provider.baseURL, '-m', 'gpt-5-mini', '--otlp-endpoint', receiver.url, '--trace-content'],
      env: ptyEnv({ GLASSBOX_HOME: home }),
      cwd: root,
    });
    try {
      await screen.waitFor('new session');
      await screen.submit('what should I remember?');
      await screen.waitFor('The milk, as always.');
      await screen.submit('/quit');
      assert.equal(await screen.exitCode(), 0);
    } finally {
      await screen.close();
    }
    const spans = await receiver.waitForSpans(3);
    assert.deepEqual(spanTree(spans), ['invoke_agent glassbox', '  round 1', '    chat gpt-5-mini']);
    const chat = spans.find((span) => span.name === 'chat gpt-5-mini')!;
    assert.match(String(chat.attributes['gen_ai.input.messages']), /what should I remember\?/);
    assert.match(String(chat.attributes['gen_ai.output.messages']), /The milk, as always\./);
  });
});
