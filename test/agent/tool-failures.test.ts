import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { ALLOW_ALL_GATE, FatalToolError, type PermissionGate, type Tool } from '../../src/agent/index.js';
import { echoTool, runLoop, toolOutputsSent } from '../helpers/loop-harness.js';

const fatalTool: Tool<Record<string, never>> = {
  name: 'explode',
  description: 'Fails fatally.',
  schema: z.object({}),
  readOnly: true,
  strict: false,
  access: () => ({ kind: 'none' }),
  async execute() {
    throw new FatalToolError('HARNESS_BROKEN', 'the harness cannot continue');
  },
};

test('a fatal tool error fails the run, yet every committed call has an output and nothing follows the terminal event', async () => {
  const run = await runLoop({
    wireApi: 'chat',
    tools: [echoTool({ delayMs: 30 }), fatalTool],
    script: [
      {
        toolCalls: [
          { name: 'echo', arguments: { text: 'a' } },
          { name: 'explode', arguments: {} },
          { name: 'echo', arguments: { text: 'b' } },
        ],
      },
    ],
  });
  assert.equal(run.terminal.type, 'run_failed');
  assert.equal(run.terminal.type === 'run_failed' && run.terminal.error.code, 'HARNESS_BROKEN');
  const calls = run.history.filter((i) => i.type === 'function_call').map((i) => (i.type === 'function_call' ? i.callId : ''));
  const outputs = run.history.filter((i) => i.type === 'function_call_output').map((i) => (i.type === 'function_call_output' ? i.callId : ''));
  assert.deepEqual(outputs, calls);
  assert.equal(run.events.at(-1)?.type, 'run_failed', 'no event after the terminal one');
});

test('an unexpected error in the permission gate becomes an error output, not a broken run', async () => {
  const gate: PermissionGate = {
    ...ALLOW_ALL_GATE,
    decide: () => {
      throw new Error('could not load the bash grammar');
    },
  };
  const run = await runLoop({
    wireApi: 'chat',
    tools: [echoTool()],
    gate,
    script: [{ toolCalls: [{ name: 'echo', arguments: { text: 'x' } }] }, { text: 'Recovered.' }],
  });
  assert.equal(run.terminal.type, 'run_succeeded');
  assert.match(toolOutputsSent(run.provider.requests[1].body, 'chat')[0], /^Error \[INTERNAL_ERROR\]: .*bash grammar/);
});

test('a run cancelled before its first model call still commits the system message', async () => {
  const controller = new AbortController();
  controller.abort();
  const run = await runLoop({ wireApi: 'chat', signal: controller.signal, script: [] });
  assert.equal(run.terminal.type, 'run_cancelled');
  assert.equal(run.history.length, 1, 'the opening items are committed');
  assert.equal(run.provider.requests.length, 0);
});
