import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { systemMessage, userMessage, type ResponseItem } from '../../src/agent/index.js';
import { COMPACTION_SUMMARY_PREFIX } from '../../src/agent/index.js';
import { PRUNED_OUTPUT_MARKER, createCompactionHooks } from '../../src/compaction/index.js';
import { WIRE_APIS_UNDER_TEST } from '../helpers/loop-harness.js';
import {
  bigOutputTool,
  compactedEvents,
  filler,
  runWithCompaction,
  scriptedWithSummaries,
  sentMessages,
  summaryRequests,
  testSettings,
  turnRequests,
  warnings,
} from './compaction-harness.js';

const readBig = (label: string) => ({ name: 'read_big', arguments: { label } });
const SUMMARY = '## Goal\nDo the thing.\n\n## Next step\nFinish.';

for (const wireApi of WIRE_APIS_UNDER_TEST) {
  describe(`compaction in the sampling loop (${wireApi})`, () => {
    test('Boundary: compacts mid-turn after a committed round; the next request has the summary and the prompt, no calls or outputs', async () => {
      const run = await runWithCompaction({
        wireApi,
        whenExhausted: scriptedWithSummaries(
          [
            { toolCalls: [readBig('a')], usage: { input: 1000, output: 20 } },
            { toolCalls: [readBig('b')], usage: { input: 4000, output: 20, cached: 3500 } },
            { text: 'Done.', usage: { input: 900, output: 5 } },
          ],
          () => ({ text: SUMMARY, usage: { input: 700, output: 40 } }),
        ),
      });
      assert.equal(run.terminal.type, 'run_succeeded');
      const summaries = summaryRequests(run.provider);
      assert.equal(summaries.length, 1, 'one summary call for one threshold crossing');

      // The summary request is the live conversation: non-streaming, the same tools, the last
      // round's messages as its prefix, then the instruction; tool calls forbidden where that costs
      // no cache (Chat and Responses `tool_choice: "none"`; Anthropic keeps `auto`, see below).
      const body = summaries[0]!.body;
      assert.notEqual(body.stream, true);
      assert.deepEqual(body.tools, turnRequests(run.provider)[1]!.body.tools);
      assert.deepEqual(body.tool_choice, wireApi === 'anthropic' ? { type: 'auto' } : 'none');
      const lastRound = sentMessages(turnRequests(run.provider)[1]!);
      const summarySent = sentMessages(summaries[0]!);
      assert.deepEqual(summarySent.slice(0, lastRound.length), lastRound);
      assert.equal(summarySent.at(-1)!.kind, 'user');
      assert.ok(summarySent.at(-1)!.text.startsWith('You are compacting the working history of a coding agent: the conversation above.'));

      // The request after compaction carries the summary and the user prompt, and nothing else.
      const after = turnRequests(run.provider)[2]!;
      const sent = sentMessages(after);
      assert.deepEqual(
        sent.map((message) => message.kind),
        ['user'],
      );
      assert.ok(sent[0]!.text.startsWith(COMPACTION_SUMMARY_PREFIX));
      assert.ok(sent[0]!.text.includes(SUMMARY));
      assert.ok(sent[0]!.text.endsWith('</conversation_summary>\n\ndo the thing'));

      const [event] = compactedEvents(run.events);
      assert.ok(event);
      assert.equal(event.trigger, 'auto');
      assert.equal(event.phase, 'mid_turn');
      assert.equal(event.kind, 'summary');
      assert.equal(event.summary, SUMMARY);
      assert.equal(event.estimated, false);
      assert.equal(event.itemsRemoved, 4);
      assert.equal(event.itemsKept, 1);
      assert.ok(event.tokensBefore >= 5000 && event.tokensBefore > 4020, String(event.tokensBefore));
      assert.ok(event.tokensAfter < 100, String(event.tokensAfter));
      assert.ok(
        event.reason.startsWith(`Reported token usage ${event.tokensBefore} reached the compaction threshold 5000. `),
        event.reason,
      );
      assert.ok(event.reason.endsWith(' Summarized from the live conversation.'), event.reason);

      // The summary call counts in the run's totals under its own stage, and is recorded.
      assert.equal(run.terminal.usage.byStage.compaction?.inputTokens, 700);
      assert.equal(run.terminal.usage.total.inputTokens, 1000 + 4000 + 900 + 700);
      assert.deepEqual(
        run.modelCalls.map((call) => call.stage),
        ['turn', 'turn', 'compaction', 'turn'],
      );
      assert.equal(run.entries.length, 1);
      assert.deepEqual(
        run.history.map((item) => item.type),
        ['compaction_summary', 'message', 'message'],
      );
    });

    test('Counting: a provider that reports no usage still compacts, on an estimate marked as such', async () => {
      const run = await runWithCompaction({
        wireApi,
        settings: testSettings({ threshold: 5000 }),
        whenExhausted: scriptedWithSummaries(
          [
            { toolCalls: [readBig('a')], usage: null },
            { toolCalls: [readBig('b')], usage: null },
            { toolCalls: [readBig('c')], usage: null },
            { text: 'Done.', usage: null },
          ],
          () => ({ text: SUMMARY, usage: null }),
        ),
      });
      assert.equal(run.terminal.type, 'run_succeeded');
      const [event] = compactedEvents(run.events);
      assert.ok(event, 'compacted');
      assert.equal(event.estimated, true);
      assert.match(
        event.reason,
        /^Estimated token count \d+ reached the compaction threshold 5000\. .*Summarized from the live conversation\.$/,
      );
      assert.equal(summaryRequests(run.provider).length, 1);
      assert.equal(run.terminal.usage.calls, turnRequests(run.provider).length + 1);
    });

    test('Check points: a provider context-overflow error compacts and the round is retried once, successfully', async () => {
      const overflow = await runWithCompaction({
        wireApi,
        contextWindow: 4000,
        settings: testSettings({ threshold: 1_000_000 }),
        tools: [bigOutputTool(20_000)],
        whenExhausted: scriptedWithSummaries([{ toolCalls: [readBig('a')] }, { text: 'Done after compaction.' }], () => ({
          text: SUMMARY,
        })),
      });
      assert.equal(overflow.terminal.type, 'run_succeeded');
      assert.equal(overflow.terminal.type === 'run_succeeded' && overflow.terminal.answer, 'Done after compaction.');
      const [event] = compactedEvents(overflow.events);
      assert.ok(event);
      assert.equal(event.trigger, 'overflow');
      assert.equal(event.phase, 'mid_turn');
      assert.match(event.reason, /rejected the request as too long/);
      // The rejected request, the summary, and the retried round.
      const turns = turnRequests(overflow.provider);
      assert.equal(turns.length, 3);
      assert.equal(
        sentMessages(turns[2]!).some((message) => message.kind === 'function_call_output'),
        false,
      );
      assert.deepEqual(
        overflow.modelCalls.map((call) => `${call.stage}:${call.error?.code ?? 'ok'}`),
        ['turn:ok', 'turn:CONTEXT_OVERFLOW', 'compaction:ok', 'turn:ok'],
      );
    });

    test('Guards: the breaker stops a scripted failure loop after 3 failed compactions; the run continues', async () => {
      const rounds = Array.from({ length: 6 }, (_, n) => ({ toolCalls: [readBig(`r${n}`)], usage: { input: 6000, output: 10 } }));
      const run = await runWithCompaction({
        wireApi,
        settings: testSettings({ threshold: 1000, summaryAttempts: 2 }),
        whenExhausted: scriptedWithSummaries([...rounds, { text: 'Finished anyway.', usage: { input: 6000, output: 5 } }], () => ({
          fault: { kind: 'status', status: 400, message: 'summaries are broken today' },
        })),
      });
      assert.equal(run.terminal.type, 'run_succeeded');
      assert.equal(run.terminal.type === 'run_succeeded' && run.terminal.answer, 'Finished anyway.');
      // 3 episodes × (the live form once, then 2 attempts at the transcript form), then nothing more.
      assert.equal(summaryRequests(run.provider).length, 9);
      const codes = warnings(run.events).map((warning) => warning.code);
      assert.deepEqual(codes, ['COMPACTION_FAILED', 'COMPACTION_FAILED', 'COMPACTION_FAILED', 'COMPACTION_DISABLED']);
      assert.match(warnings(run.events)[0]!.message, /summaries are broken today/);
      assert.equal(run.hooks?.disabled, true);
      // Each failed episode fell back to the cheap pass (whatever it reclaims, no cost rule).
      assert.deepEqual(
        compactedEvents(run.events).map((event) => event.kind),
        ['prune', 'prune', 'prune'],
      );
      assert.ok(compactedEvents(run.events).every((event) => /Fell back to the cheap pass/.test(event.reason)));
      // Failed summary calls still count as calls in the run's totals.
      assert.equal(run.terminal.usage.calls, turnRequests(run.provider).length + 9);
    });

    test('Cheap pass first: eliding a stale large output gets under the threshold and pays for its cache miss, so no summary call is made', async () => {
      // One 12,000-character output early in a long turn, then small rounds: eliding it saves
      // ~3,000 tokens on each of the many rounds before the threshold comes back, against a miss
      // on the small rounds after it.
      const history: ResponseItem[] = [
        systemMessage('You are a test agent.'),
        userMessage('first'),
        { type: 'function_call', callId: 'old', name: 'read_big', arguments: '{"label":"old"}' },
        { type: 'function_call_output', callId: 'old', name: 'read_big', output: filler('old:', 12_000), isError: false },
      ];
      for (let n = 0; n < 4; n += 1) {
        history.push(
          { type: 'function_call', callId: `s${n}`, name: 'read_big', arguments: `{"label":"s${n}"}` },
          { type: 'function_call_output', callId: `s${n}`, name: 'read_big', output: filler(`s${n}:`, 300), isError: false },
        );
      }
      history.push({ type: 'message', role: 'assistant', content: 'Read them.', runtimeRole: 'final_response' });
      const run = await runWithCompaction({
        wireApi,
        history,
        prompt: 'third',
        resumed: true,
        settings: testSettings({ threshold: 3000 }),
        whenExhausted: scriptedWithSummaries([{ text: 'Answer.', usage: { input: 300, output: 3 } }], () => ({ text: SUMMARY })),
      });
      assert.equal(run.terminal.type, 'run_succeeded');
      assert.equal(summaryRequests(run.provider).length, 0);
      const [event] = compactedEvents(run.events);
      assert.ok(event);
      assert.equal(event.kind, 'prune');
      assert.equal(event.phase, 'pre_turn');
      assert.equal(event.estimated, true);
      assert.equal(event.itemsRemoved, 1);
      assert.ok(event.tokensAfter < 3000);
      assert.match(event.reason, /Eliding pays for its cache miss \(saving .* over \d+ rounds against a cache miss of/);
      assert.deepEqual(
        run.entries.map((entry) => entry.kind === 'prune' && entry.prunedCallIds),
        [['old']],
      );
      const outputs = sentMessages(turnRequests(run.provider)[0]!).filter((message) => message.kind === 'function_call_output');
      assert.equal(outputs.length, 5, 'calls and outputs stay paired');
      assert.ok(outputs[0]!.text.startsWith(`${PRUNED_OUTPUT_MARKER} read_big {"label":"old"} returned 12,000 characters`));
      assert.ok(outputs[4]!.text.startsWith('s3:'), 'the latest round is untouched');
    });

    test('Cheap pass declined: when eliding would not pay for the cache miss it causes, the history is summarized instead', async () => {
      // Every round is large: the elided outputs come back within a round or two, while the miss
      // re-sends nearly the whole history uncached (gpt-5 prices: cached input is 10 % of input).
      const history: ResponseItem[] = [systemMessage('You are a test agent.'), userMessage('first')];
      for (let n = 0; n < 4; n += 1) {
        history.push(
          { type: 'function_call', callId: `b${n}`, name: 'read_big', arguments: `{"label":"b${n}"}` },
          { type: 'function_call_output', callId: `b${n}`, name: 'read_big', output: filler(`b${n}:`, 4_000), isError: false },
        );
      }
      const run = await runWithCompaction({
        wireApi,
        history,
        prompt: 'continue',
        resumed: true,
        settings: testSettings({
          threshold: 3500,
          pricing: { inputPerMillion: 1.25, cachedInputPerMillion: 0.125, outputPerMillion: 10 },
          promptCaching: 'automatic',
        }),
        whenExhausted: scriptedWithSummaries([{ text: 'Answer.', usage: { input: 300, output: 3 } }], () => ({ text: SUMMARY })),
      });
      assert.equal(run.terminal.type, 'run_succeeded');
      assert.equal(summaryRequests(run.provider).length, 1);
      assert.deepEqual(
        run.entries.map((entry) => entry.kind),
        ['summary'],
      );
      assert.match(run.entries[0]!.reason, /Eliding would not pay for its cache miss/);
    });

    test('two compactions in one turn keep only the latest summary, which merged the previous one', async () => {
      const run = await runWithCompaction({
        wireApi,
        whenExhausted: scriptedWithSummaries(
          [
            // Round 1 leaves 3 items: too few to compact. Round 2 crosses, round 3 crosses again.
            { toolCalls: [readBig('a')], usage: { input: 6000, output: 10 } },
            { toolCalls: [readBig('b')], usage: { input: 6000, output: 10 } },
            { toolCalls: [readBig('c')], usage: { input: 6000, output: 10 } },
            { text: 'Done.', usage: { input: 500, output: 2 } },
          ],
          (_request, index) => ({ text: `summary number ${index + 1}` }),
        ),
      });
      assert.equal(run.terminal.type, 'run_succeeded');
      const summaries = summaryRequests(run.provider);
      assert.equal(summaries.length, 2);
      // The live form sends the conversation as it is, the first summary in its place; the
      // instruction asks for it to be merged.
      const second = sentMessages(summaries[1]!);
      assert.ok(second.some((message) => message.text.startsWith(COMPACTION_SUMMARY_PREFIX) && message.text.includes('summary number 1')));
      assert.match(second.at(-1)!.text, /merge it into your new summary/);
      const kept = run.history.filter((item) => item.type === 'compaction_summary');
      assert.deepEqual(kept, [{ type: 'compaction_summary', compactionId: 'cmp-2', summary: 'summary number 2' }]);
    });

    test('Guards: a summary that is not smaller than what it replaces is refused, and the cheap pass is the fallback', async () => {
      const history: ResponseItem[] = [
        userMessage('first'),
        { type: 'function_call', callId: 'old', name: 'read_big', arguments: '{"label":"old"}' },
        { type: 'function_call_output', callId: 'old', name: 'read_big', output: filler('old:', 3_000), isError: false },
        userMessage('second'),
      ];
      const run = await runWithCompaction({
        wireApi,
        history,
        prompt: 'third',
        // The cheap pass alone would not count as meaningful; only the fallback may use it.
        settings: testSettings({ threshold: 500, pruneMinimumTokens: 100_000 }),
        whenExhausted: scriptedWithSummaries([{ text: 'Answer.', usage: { input: 100, output: 2 } }], () => ({
          text: filler('bloated:', 40_000),
        })),
      });
      assert.equal(run.terminal.type, 'run_succeeded');
      assert.equal(summaryRequests(run.provider).length, 1, 'an inflated summary is not retried');
      assert.deepEqual(
        run.entries.map((entry) => entry.kind),
        ['prune'],
      );
      assert.match(run.entries[0]!.reason, /would not shrink the history/);
      assert.equal(run.history.filter((item) => item.type === 'compaction_summary').length, 0);
      const [warning] = warnings(run.events);
      assert.ok(warning);
      assert.equal(warning.code, 'COMPACTION_FAILED');
      assert.match(warning.message, /would not shrink/);
    });

    test('seed mode: reported usage only, between rounds only; no usage means no compaction', async () => {
      const settings = testSettings({ mode: 'seed', threshold: 1000 });
      const run = await runWithCompaction({
        wireApi,
        settings,
        whenExhausted: scriptedWithSummaries(
          [
            { toolCalls: [readBig('a')], usage: null },
            { toolCalls: [readBig('b')], usage: null },
            { text: 'Done.', usage: null },
          ],
          () => ({ text: SUMMARY }),
        ),
      });
      assert.equal(run.terminal.type, 'run_succeeded');
      assert.equal(summaryRequests(run.provider).length, 0);
      const overflowHandled = await createCompactionHooks(settings, {
        gateway: { createResponse: async () => assert.fail('no summary in seed mode on overflow') },
        persist: async () => {},
      }).onContextOverflow(
        {
          history: [userMessage('a'), userMessage('b'), userMessage('c'), userMessage('d')],
          lastUsage: null,
          lastUsageHistoryLength: 0,
          round: 2,
          signal: new AbortController().signal,
          emit: () => {},
          recordUsage: () => {},
          commit: async () => {},
        },
        new (await import('../../src/model/index.js')).ModelError('CONTEXT_OVERFLOW', 'too long'),
      );
      assert.equal(overflowHandled, false);
    });
  });
}
