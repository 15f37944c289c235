// A takeover's cut-off round (`SamplingLoopOptions.openBatch`): the calls that never started run
// before the first model call, the made-up outputs of the others stay as given, and every output is
// committed once, in call order, without announcing the calls again.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FunctionCallItem, FunctionCallOutputItem, ResponseItem } from '../../src/agent/index.js';
import { echoTool, eventTypes, runLoop, toolOutputsSent } from '../helpers/loop-harness.js';

const callA: FunctionCallItem = { type: 'function_call', callId: 'call-a', name: 'echo', arguments: '{"text":"a"}' };
const callB: FunctionCallItem = { type: 'function_call', callId: 'call-b', name: 'echo', arguments: '{"text":"b"}' };
const callC: FunctionCallItem = { type: 'function_call', callId: 'call-c', name: 'echo', arguments: '{"text":"c"}' };
const interrupted = (call: FunctionCallItem): FunctionCallOutputItem => ({
  type: 'function_call_output',
  callId: call.callId,
  name: call.name,
  output: 'Error [INTERRUPTED]: made up',
  isError: true,
});

test('an open batch: unstarted calls run first, all outputs are committed in call order before the model call', async () => {
  const history: ResponseItem[] = [{ type: 'message', role: 'user', content: 'go' }, callA, callB, callC];
  const run = await runLoop({
    wireApi: 'chat',
    tools: [echoTool()],
    history,
    script: [{ text: 'Went on.' }],
    loop: {
      newItems: [],
      openBatch: [
        { call: callA, output: interrupted(callA) },
        { call: callB, output: null },
        { call: callC, output: interrupted(callC) },
      ],
    },
  });
  assert.equal(run.terminal.type, 'run_succeeded');
  // One commit for the round's outputs, in call order, then the answer.
  assert.deepEqual(
    run.commits[0]!.map((item) => (item.type === 'function_call_output' ? [item.callId, item.output] : item.type)),
    [
      ['call-a', 'Error [INTERRUPTED]: made up'],
      ['call-b', 'echo: b'],
      ['call-c', 'Error [INTERRUPTED]: made up'],
    ],
  );
  // Only call-b ran, and it was not announced again (the run before announced it).
  const types = eventTypes(run.events).filter((type) => type !== 'assistant_delta');
  assert.deepEqual(types.slice(0, 5), ['run_started', 'tool_permission_decided', 'tool_started', 'tool_finished', 'model_requested']);
  assert.equal(types.filter((type) => type === 'tool_started').length, 1);
  assert.deepEqual(toolOutputsSent(run.provider.requests[0]!.body, 'chat'), [
    'Error [INTERRUPTED]: made up',
    'echo: b',
    'Error [INTERRUPTED]: made up',
  ]);
});
