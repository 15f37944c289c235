import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { z } from 'zod';
import type { Tool } from '../../src/agent/index.js';
import {
  WIRE_APIS_UNDER_TEST,
  blockingTool,
  echoTool,
  eventTypes,
  runLoop,
  terminalCount,
  toolOutputsSent,
} from '../helpers/loop-harness.js';

for (const wireApi of WIRE_APIS_UNDER_TEST) {
  describe(`sampling loop (${wireApi})`, () => {
    test('text-only answer commits one final_response and succeeds', async () => {
      const run = await runLoop({ wireApi, script: [{ text: 'All done.', usage: { input: 10, output: 3 } }] });
      assert.equal(run.terminal.type, 'run_succeeded');
      assert.equal(run.terminal.type === 'run_succeeded' && run.terminal.answer, 'All done.');
      assert.deepEqual(eventTypes(run.events)[0], 'run_started');
      assert.ok(eventTypes(run.events).includes('assistant_delta'));
      assert.equal(terminalCount(run.events), 1);
      assert.deepEqual(run.history.at(-1), { type: 'message', role: 'assistant', content: 'All done.', runtimeRole: 'final_response' });
      assert.equal(run.terminal.usage.total.inputTokens, 10);
      assert.equal(run.terminal.usage.byStage.turn?.outputTokens, 3);
      assert.equal(run.provider.requests.length, 1);
    });

    test('events follow the documented order for a tool round', async () => {
      const run = await runLoop({
        wireApi,
        tools: [echoTool()],
        script: [{ text: 'Let me check.', toolCalls: [{ name: 'echo', arguments: { text: 'hi' } }] }, { text: 'Answer.' }],
      });
      const types = eventTypes(run.events).filter((t) => t !== 'assistant_delta');
      assert.deepEqual(types, [
        'run_started',
        'model_requested',
        'model_completed',
        'tool_requested',
        'tool_permission_decided',
        'tool_started',
        'tool_finished',
        'model_requested',
        'model_completed',
        'run_succeeded',
      ]);
    });

    test('one tool round then answer: the tool output is in the next request', async () => {
      const run = await runLoop({
        wireApi,
        tools: [echoTool()],
        script: [{ text: 'Checking.', toolCalls: [{ name: 'echo', arguments: { text: 'ping' } }] }, { text: 'It said ping.' }],
      });
      assert.equal(run.terminal.type, 'run_succeeded');
      assert.deepEqual(toolOutputsSent(run.provider.requests[1]!.body, wireApi), ['echo: ping']);
      const kinds = run.history.map((item) =>
        item.type === 'message' ? `${item.role}:${'runtimeRole' in item ? item.runtimeRole : ''}` : item.type,
      );
      assert.deepEqual(kinds, ['user:', 'assistant:working_message', 'function_call', 'function_call_output', 'assistant:final_response']);
      // Two commits for the tool round: calls first, then outputs.
      assert.equal(run.commits[1]!.length, 2);
      assert.equal(run.commits[2]![0]!.type, 'function_call_output');
    });

    test('read-only calls in one batch run in parallel and outputs match call ids in order', async () => {
      const tracker = { active: 0, peak: 0 };
      const run = await runLoop({
        wireApi,
        tools: [echoTool({ delayMs: 40, tracker })],
        script: [{ toolCalls: [1, 2, 3].map((n) => ({ name: 'echo', arguments: { text: `n${n}` } })) }, { text: 'ok' }],
      });
      assert.equal(run.terminal.type, 'run_succeeded');
      assert.equal(tracker.peak, 3);
      const calls = run.history.filter((i) => i.type === 'function_call');
      const outputs = run.history.filter((i) => i.type === 'function_call_output');
      assert.deepEqual(
        outputs.map((o) => o.type === 'function_call_output' && o.output),
        ['echo: n1', 'echo: n2', 'echo: n3'],
      );
      assert.deepEqual(
        outputs.map((o) => o.type === 'function_call_output' && o.callId),
        calls.map((c) => c.type === 'function_call' && c.callId),
      );
    });

    test('non-read-only calls run one at a time', async () => {
      let active = 0;
      let peak = 0;
      const writer: Tool<{ n: number }> = {
        name: 'mutate',
        description: 'x',
        schema: z.object({ n: z.number() }),
        readOnly: false,
        strict: false,
        access: () => ({ kind: 'none' }),
        async execute(args) {
          active += 1;
          peak = Math.max(peak, active);
          // Turns of the event loop, not a wall-clock wait: a second call started alongside this
          // one would be running by now.
          for (let i = 0; i < 20; i += 1) await new Promise((r) => setImmediate(r));
          active -= 1;
          return { output: `did ${args.n}` };
        },
      };
      const run = await runLoop({
        wireApi,
        tools: [writer],
        script: [
          {
            toolCalls: [
              { name: 'mutate', arguments: { n: 1 } },
              { name: 'mutate', arguments: { n: 2 } },
            ],
          },
          { text: 'ok' },
        ],
      });
      assert.equal(run.terminal.type, 'run_succeeded');
      assert.equal(peak, 1);
    });

    test('unknown tools and invalid arguments go back to the model, not crash', async () => {
      const run = await runLoop({
        wireApi,
        tools: [echoTool()],
        script: [
          {
            toolCalls: [
              { name: 'nope', arguments: {} },
              { name: 'echo', arguments: '{not json' },
              { name: 'echo', arguments: { text: 5 } },
            ],
          },
          { text: 'sorry' },
        ],
      });
      assert.equal(run.terminal.type, 'run_succeeded');
      const outputs = toolOutputsSent(run.provider.requests[1]!.body, wireApi);
      assert.match(outputs[0]!, /^Error \[UNKNOWN_TOOL\]: .*"nope".*echo/);
      assert.match(outputs[1]!, /^Error \[INVALID_ARGUMENTS\]: .*not valid JSON/);
      assert.match(outputs[2]!, /^Error \[INVALID_ARGUMENTS\]: .*text: /);
    });

    test('cancellation mid-stream commits nothing of the round', async () => {
      const controller = new AbortController();
      const run = await runLoop({
        wireApi,
        signal: controller.signal,
        script: [{ text: 'a long answer that streams slowly in many pieces', chunkSize: 4, chunkDelayMs: 20 }],
        onEvent: (event) => {
          if (event.type === 'assistant_delta') controller.abort();
        },
      });
      assert.equal(run.terminal.type, 'run_cancelled');
      assert.equal(terminalCount(run.events), 1);
      assert.deepEqual(
        run.history.map((i) => i.type),
        ['message'],
      );
      assert.equal(run.commits.length, 1); // only the user message
    });

    test('cancellation mid-tool ends the run with every call answered', async () => {
      const controller = new AbortController();
      const run = await runLoop({
        wireApi,
        signal: controller.signal,
        tools: [blockingTool(() => controller.abort())],
        script: [
          {
            toolCalls: [
              { name: 'block', arguments: {} },
              { name: 'block', arguments: {} },
            ],
          },
        ],
      });
      assert.equal(run.terminal.type, 'run_cancelled');
      assert.equal(terminalCount(run.events), 1);
      const calls = run.history.filter((i) => i.type === 'function_call');
      const outputs = run.history.filter((i) => i.type === 'function_call_output');
      assert.equal(calls.length, 2);
      assert.equal(outputs.length, 2);
      for (const output of outputs) assert.match(output.type === 'function_call_output' ? output.output : '', /CANCELLED/);
      assert.equal(run.provider.requests.length, 1);
    });

    test('a failed model call fails the run and commits nothing of that round', async () => {
      const run = await runLoop({
        wireApi,
        // Cut on every attempt: the loop retries the round three times (stream-retry.test.ts), then fails.
        script: Array.from({ length: 4 }, () => ({
          text: 'partial text that streams',
          chunkSize: 3,
          fault: { kind: 'cut' as const, afterEvents: 7 },
        })),
        loop: { streamRetry: { policy: { baseDelayMs: 1, maxDelayMs: 2, random: () => 0.5 } } },
      });
      assert.equal(run.terminal.type, 'run_failed');
      assert.equal(run.terminal.type === 'run_failed' && run.terminal.error.code, 'STREAM_INTERRUPTED');
      assert.ok(
        run.events.some((e) => e.type === 'assistant_delta'),
        'the stream had started',
      );
      assert.equal(run.history.length, 1);
      assert.equal(run.provider.requests.length, 4, 'a stream that broke after it started is retried as a round, three times');
    });

    test('errors name their cause: truncation, content filter, refusal, auth', async () => {
      const cases = [
        { step: { text: 'cut off', finishReason: 'length' as const }, code: 'OUTPUT_TRUNCATED' },
        // Anthropic's classifiers stop a response as a refusal; it has no content-filter ending.
        {
          step: { text: 'blocked', finishReason: 'content_filter' as const },
          code: wireApi === 'anthropic' ? 'MODEL_REFUSED' : 'CONTENT_FILTERED',
        },
        { step: { refusal: 'I cannot help with that.' }, code: 'MODEL_REFUSED' },
        { step: { fault: { kind: 'status' as const, status: 401, message: 'bad key' } }, code: 'AUTH_FAILED' },
      ];
      for (const { step, code } of cases) {
        const run = await runLoop({ wireApi, script: [step] });
        assert.equal(run.terminal.type, 'run_failed', code);
        assert.equal(run.terminal.type === 'run_failed' && run.terminal.error.code, code);
        assert.equal(run.history.length, 1, `${code}: nothing committed`);
      }
    });

    test('429 with Retry-After is retried and the retry is visible', async () => {
      const run = await runLoop({
        wireApi,
        script: [{ fault: { kind: 'status', status: 429, retryAfter: '0' } }, { text: 'fine now' }],
      });
      assert.equal(run.terminal.type, 'run_succeeded');
      assert.equal(run.provider.requests.length, 2);
      assert.ok(run.events.some((e) => e.type === 'model_retry'));
    });

    test('repetition guard warns on the 3rd identical call and fails on the 5th', async () => {
      const same = { toolCalls: [{ name: 'echo', arguments: { text: 'again' } }] };
      const run = await runLoop({ wireApi, tools: [echoTool()], script: [same, same, same, same, same, { text: 'never reached' }] });
      assert.equal(run.terminal.type, 'run_failed');
      assert.equal(run.terminal.type === 'run_failed' && run.terminal.error.code, 'REPEATED_TOOL_CALL');
      const third = toolOutputsSent(run.provider.requests[3]!.body, wireApi);
      assert.doesNotMatch(third[1]!, /looping/);
      assert.match(third[2]!, /looping/);
      assert.equal(run.provider.requests.length, 5);
    });

    test('argument key order does not hide a repeated call', async () => {
      const run = await runLoop({
        wireApi,
        tools: [
          {
            ...echoTool(),
            schema: z.object({ text: z.string(), n: z.number() }),
          } as Tool<{ text: string; n: number }>,
        ],
        script: [
          { toolCalls: [{ name: 'echo', arguments: '{"text":"x","n":1}' }] },
          { toolCalls: [{ name: 'echo', arguments: '{"n":1,"text":"x"}' }] },
          { toolCalls: [{ name: 'echo', arguments: '{ "n": 1, "text": "x" }' }] },
          { text: 'done' },
        ],
      });
      assert.equal(run.terminal.type, 'run_succeeded');
      const outputs = toolOutputsSent(run.provider.requests[3]!.body, wireApi);
      assert.match(outputs[2]!, /looping/);
    });

    test('--max-rounds ends the run cleanly with a clear message', async () => {
      const step = (n: number) => ({ toolCalls: [{ name: 'echo', arguments: { text: `r${n}` } }] });
      const run = await runLoop({ wireApi, tools: [echoTool()], script: [step(1), step(2), step(3)], loop: { maxRounds: 2 } });
      assert.equal(run.terminal.type, 'run_failed');
      assert.equal(run.terminal.type === 'run_failed' && run.terminal.error.code, 'MAX_ROUNDS_REACHED');
      assert.match(run.terminal.type === 'run_failed' ? run.terminal.error.message : '', /2 rounds/);
      assert.equal(run.provider.requests.length, 2);
      assert.equal(run.history.at(-1)?.type, 'function_call_output');
    });

    test('a token budget ends the run once reached', async () => {
      const step = (n: number) => ({ toolCalls: [{ name: 'echo', arguments: { text: `r${n}` } }], usage: { input: 600, output: 10 } });
      const run = await runLoop({ wireApi, tools: [echoTool()], script: [step(1), step(2), step(3)], loop: { tokenBudget: 1000 } });
      assert.equal(run.terminal.type === 'run_failed' && run.terminal.error.code, 'TOKEN_BUDGET_EXHAUSTED');
      assert.equal(run.provider.requests.length, 2);
    });

    test('an empty response is an error, not an empty answer', async () => {
      const run = await runLoop({ wireApi, script: [{ text: '' }] });
      assert.equal(run.terminal.type === 'run_failed' && run.terminal.error.code, 'EMPTY_RESPONSE');
    });
  });
}
