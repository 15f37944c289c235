// `exec`'s progress lines carry text others chose: a tool name from the model, a warning naming a
// repository's MCP command, a provider's error message. None may reach the terminal as an escape
// sequence (OSC 52 writes the clipboard, OSC 0 the title, CSI moves the cursor over what was shown).

import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import type { RunEvent } from '../../src/agent/index.js';
import { ProgressPrinter } from '../../src/cli/progress-printer.js';

const CLIPBOARD = '\u001b]52;c;Y3VybCBldmlsfHNo\u0007';
const TITLE = '\u001b]0;HACKED\u0007';
const CURSOR = '\u001b[2A\u009b2K';

function printed(events: RunEvent[], tty: boolean): string {
  const out = Object.assign(new PassThrough(), { isTTY: tty });
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const printer = new ProgressPrinter(out);
  for (const event of events) printer.handle(event);
  return text;
}

test('no control character from a tool name, warning or error reaches the terminal; colour codes are ours alone', () => {
  const events: RunEvent[] = [
    { type: 'tool_requested', round: 1, callId: 'c1', name: `read_file${CLIPBOARD}`, arguments: `{"path":"${TITLE}"}` },
    { type: 'tool_finished', callId: 'c1', name: `read_file${TITLE}`, isError: true, output: `no such tool${CURSOR}`, durationMs: 1 },
    {
      type: 'warning',
      code: 'MCP_PROJECT_SERVER_NOT_ENABLED',
      message: `server "lint" (runs sh -c evil${CURSOR}npx -y @eslint/mcp)\nsecond line`,
    },
    {
      type: 'approval_resolved',
      callId: 'c1',
      name: 'shell',
      decision: 'deny',
      by: 'user',
      message: `no${TITLE}`,
    },
    {
      type: 'run_failed',
      error: { code: 'PROVIDER_ERROR', message: `upstream said ${CLIPBOARD}`, retryable: false },
      usage: { rounds: [], total: { inputTokens: 0, outputTokens: 0, totalTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 } },
    } as unknown as RunEvent,
  ];
  for (const tty of [false, true]) {
    const text = printed(events, tty);
    // Only SGR colour sequences (ESC [ digits m) may remain, and only on a terminal.
    const stripped = text.replace(/\u001b\[\d+m/g, '');
    assert.doesNotMatch(stripped, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/, JSON.stringify(text));
    if (!tty) assert.equal(text, stripped);
    assert.match(text, /read_file\\e\]52;c;Y3VybCBldmlsfHNo\\u0007/);
    assert.match(text, /second line/);
    assert.match(text, /upstream said \\e\]52/);
  }
});

test('a shell command that exited non-zero is printed as failed, in red on a terminal, with its last lines', () => {
  const events: RunEvent[] = [
    {
      type: 'tool_finished',
      callId: 'c1',
      name: 'shell',
      isError: false,
      output: 'exit_code: 1, duration: 0.1s, sandbox: none\nstep 1\nstep 2\nnpm ERR! missing script: tset\n',
      durationMs: 120,
    },
    {
      type: 'tool_finished',
      callId: 'c2',
      name: 'shell',
      isError: false,
      output: 'exit_code: 0, duration: 0.1s, sandbox: none\nok\n',
      durationMs: 5,
    },
  ];
  assert.equal(
    printed(events, false),
    '  ✗ shell exit 1 (120 ms)\n    │ step 1\n    │ step 2\n    │ npm ERR! missing script: tset\n  ✓ shell (5 ms)\n',
  );
  // NO_COLOR in the environment of the test run turns colour off, as it should.
  if (process.env.NO_COLOR) return;
  const coloured = printed(events, true);
  assert.match(coloured, /\u001b\[31m {2}✗ shell exit 1 \(120 ms\)\u001b\[39m\n/);
  assert.match(coloured, /\u001b\[31m {4}│ npm ERR! missing script: tset\u001b\[39m\n/);
});
