import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { ALLOW_ALL_GATE, FatalToolError, type PermissionGate, type Tool } from '../../src/agent/index.js';
import { WIRE_APIS_UNDER_TEST, echoTool, runLoop, toolOutputsSent } from '../helpers/loop-harness.js';

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
  const outputs = run.history
    .filter((i) => i.type === 'function_call_output')
    .map((i) => (i.type === 'function_call_output' ? i.callId : ''));
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
  assert.match(toolOutputsSent(run.provider.requests[1]!.body, 'chat')[0]!, /^Error \[INTERNAL_ERROR\]: .*bash grammar/);
});

test('a run cancelled before its first model call still commits the system message', async () => {
  const controller = new AbortController();
  controller.abort();
  const run = await runLoop({ wireApi: 'chat', signal: controller.signal, script: [] });
  assert.equal(run.terminal.type, 'run_cancelled');
  assert.equal(run.history.length, 1, 'the opening items are committed');
  assert.equal(run.provider.requests.length, 0);
});

// Each event about a tool call comes from a different point of the runtime; a throw at any of them
// used to fail the call (INTERNAL_ERROR instead of the tool's output) or the whole run.
for (const thrownOn of ['tool_requested', 'tool_permission_decided', 'tool_started', 'tool_finished', 'every tool event']) {
  test(`an observer that throws on ${thrownOn} never fails the tool call: the real output is committed and a warning emitted`, async () => {
    const run = await runLoop({
      wireApi: 'chat',
      tools: [echoTool()],
      // A UI or recorder bug.
      onEvent: (event) => {
        if (event.type === thrownOn || (thrownOn === 'every tool event' && event.type.startsWith('tool_'))) {
          throw new Error(`observer broke on ${event.type}`);
        }
      },
      script: [{ toolCalls: [{ name: 'echo', arguments: { text: 'x' } }] }, { text: 'Done.' }],
    });
    assert.equal(run.terminal.type, 'run_succeeded', JSON.stringify(run.terminal));
    assert.deepEqual(toolOutputsSent(run.provider.requests[1]!.body, 'chat'), ['echo: x']);
    const outputs = run.history.filter((i) => i.type === 'function_call_output');
    assert.deepEqual(
      outputs.map((i) => i.type === 'function_call_output' && i.isError),
      [false],
    );
    const warnings = run.events.filter((e) => e.type === 'warning');
    assert.ok(warnings.length > 0, 'the failure is reported, not swallowed silently');
    assert.ok(
      warnings.every((e) => e.type === 'warning' && e.code === 'OBSERVER_FAILED' && /observer broke on tool_/.test(e.message)),
      JSON.stringify(warnings),
    );
    // Every event was still delivered (the harness records before the throwing callback runs).
    assert.deepEqual(
      run.events.filter((e) => e.type.startsWith('tool_')).map((e) => e.type),
      ['tool_requested', 'tool_permission_decided', 'tool_started', 'tool_finished'],
    );
  });
}

// The loop's own events (not only the tool runtime's) go through the same containment.
for (const thrownOn of ['run_started', 'model_requested', 'assistant_delta', 'model_completed']) {
  test(`an observer that throws on ${thrownOn} does not end the run`, async () => {
    const run = await runLoop({
      wireApi: 'chat',
      tools: [echoTool()],
      onEvent: (event) => {
        if (event.type === thrownOn) throw new Error(`observer broke on ${event.type}`);
      },
      script: [{ toolCalls: [{ name: 'echo', arguments: { text: 'x' } }] }, { text: 'Done.' }],
    });
    assert.equal(run.terminal.type, 'run_succeeded', JSON.stringify(run.terminal));
    assert.ok(run.events.some((e) => e.type === 'warning' && e.code === 'OBSERVER_FAILED'));
  });
}

test('arguments nested 100,000 deep are a tool error the model reads, and the run goes on (every wire API)', async () => {
  const depth = 100_000;
  const deep = `{"text":${'['.repeat(depth)}${']'.repeat(depth)}}`;
  await Promise.all(
    WIRE_APIS_UNDER_TEST.map(async (wireApi) => {
      const run = await runLoop({
        wireApi,
        tools: [echoTool()],
        script: [{ toolCalls: [{ name: 'echo', arguments: deep }] }, { text: 'Recovered.' }],
      });
      assert.equal(run.terminal.type, 'run_succeeded', `${wireApi}: ${JSON.stringify(run.terminal).slice(0, 300)}`);
      const [sent] = toolOutputsSent(run.provider.requests[1]!.body, wireApi);
      assert.match(
        String(sent).slice(0, 400),
        /^Error \[INVALID_ARGUMENTS\]: Invalid arguments for echo: .*more than 256 levels deep/,
        `${wireApi}: ${String(sent).slice(0, 300)}`,
      );
    }),
  );
});
