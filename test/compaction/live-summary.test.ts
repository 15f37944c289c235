// The summary request in its live form (issue 23, items 10 and 11): the conversation as the next
// round would send it plus a closing instruction, so the provider's prefix cache serves it; the
// transcript form as the fallback; the "current work" and "latest exchange" sections.
//
// Sources: Claude Code sends its auto-compaction as the live conversation with the tools still
// offered and a final instruction not to call them (issue 23 measured 95–98 % of those calls' input
// read from cache); `tool_choice: "none"` is the OpenAI wire value (platform.openai.com/docs/
// api-reference/chat/create); "Conversation roles must alternate user/assistant/user/assistant/..."
// is the refusal vLLM returns for a Mistral (and Gemma 3) chat template given two user messages in a
// row (issue 23 item 1), which the live form can cause at the start of a turn.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { COMPACTION_SUMMARY_PREFIX, systemMessage, userMessage, type ResponseItem } from '../../src/agent/index.js';
import { cleanSummary, summaryInstructions, summaryTemplate } from '../../src/compaction/index.js';
import { cacheEligibility } from '../../src/testing/index.js';
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
const SUMMARY = '## Goal\nDo the thing.\n\n## Current work\nReading b.\n\n## Next step\nFinish.';

/** Where each wire carries the output cap. */
const OUTPUT_CAP_FIELD = { chat: 'max_completion_tokens', responses: 'max_output_tokens', anthropic: 'max_tokens' } as const;

function hasTools(body: Record<string, unknown>): boolean {
  return Array.isArray(body.tools) && body.tools.length > 0;
}

for (const wireApi of WIRE_APIS_UNDER_TEST) {
  describe(`live summary request (${wireApi})`, () => {
    test('is at least 80 % cache-eligible: its prefix is the last round request, whole', async () => {
      // Rounds of 2,000-character outputs, as in a steady agentic turn: the crossing comes after
      // about ten of them, and only the newest round's output is new to the cache.
      const rounds = Array.from({ length: 14 }, (_, n) => ({ toolCalls: [readBig(`r${n}`)], usage: null }));
      const run = await runWithCompaction({
        wireApi,
        tools: [bigOutputTool(2_000)],
        // The cheap pass is tested elsewhere; here the crossing must be summarized.
        settings: testSettings({ pruneMinimumTokens: 1_000_000 }),
        whenExhausted: scriptedWithSummaries([...rounds, { text: 'Done.', usage: null }], () => ({ text: SUMMARY })),
      });
      assert.equal(run.terminal.type, 'run_succeeded');
      const [summary] = summaryRequests(run.provider);
      assert.ok(summary);
      const index = run.provider.requests.indexOf(summary);
      const share = cacheEligibility(summary.body, run.provider.requests[index - 1]!.body, wireApi);
      assert.ok(share.eligible / share.tokens >= 0.8, `${share.eligible} of ${share.tokens}`);
      const [event] = compactedEvents(run.events);
      assert.equal(event?.summary, SUMMARY);
      assert.match(event!.reason, /Summarized from the live conversation\.$/);
    });

    test('is used whenever the window has room for the summary: a 40,000-token window at the 85 % threshold, its answer capped at that room', async () => {
      // The crossing leaves about 5,000 tokens of the window. Fitted against the transcript form's
      // input budget (window minus an 8,000-token reserve) with a 10 % margin on an estimate of the
      // whole request, the live form never fit a window under ~126,000 tokens at this threshold.
      const rounds = Array.from({ length: 30 }, (_, n) => ({ toolCalls: [readBig(`r${n}`)] }));
      const run = await runWithCompaction({
        wireApi,
        contextWindow: 40_000,
        tools: [bigOutputTool(8_000)],
        settings: testSettings({ contextWindow: 40_000, maxOutputTokens: 8_000, threshold: 34_000, pruneMinimumTokens: 1_000_000 }),
        whenExhausted: scriptedWithSummaries([...rounds, { text: 'Done.' }], () => ({ text: SUMMARY })),
      });
      assert.equal(run.terminal.type, 'run_succeeded');
      const [event] = compactedEvents(run.events);
      assert.match(event!.reason, /Summarized from the live conversation\.$/);
      const [summary] = summaryRequests(run.provider);
      assert.ok(summary && hasTools(summary.body));
      const cap = summary.body[OUTPUT_CAP_FIELD[wireApi]];
      assert.equal(typeof cap, 'number');
      assert.ok(
        (cap as number) >= 2_048 && (cap as number) <= 40_000 - event!.tokensBefore,
        `cap ${String(cap)} after ${event!.tokensBefore}`,
      );
    });

    test('leaves the transcript form to a window without room for the summary, and says so', async () => {
      const rounds = Array.from({ length: 30 }, (_, n) => ({ toolCalls: [readBig(`r${n}`)] }));
      const run = await runWithCompaction({
        wireApi,
        contextWindow: 40_000,
        tools: [bigOutputTool(8_000)],
        settings: testSettings({ contextWindow: 36_000, maxOutputTokens: 8_000, threshold: 34_500, pruneMinimumTokens: 1_000_000 }),
        whenExhausted: scriptedWithSummaries([...rounds, { text: 'Done.' }], () => ({ text: SUMMARY })),
      });
      assert.equal(run.terminal.type, 'run_succeeded');
      assert.deepEqual(
        summaryRequests(run.provider).map((request) => hasTools(request.body)),
        [false],
      );
      const [event] = compactedEvents(run.events);
      assert.match(
        event!.reason,
        /live form failed \(the conversation with the summary instruction \(about \d+ tokens\) leaves \d+ of the 36000-token window for the summary\)/,
      );
    });

    test('a model that calls a tool anyway fails the live attempt; the transcript form follows at once, and the call never runs', async () => {
      let executed = 0;
      const run = await runWithCompaction({
        wireApi,
        tools: [
          {
            name: 'read_big',
            description: 'Returns a large blob.',
            schema: (await import('zod')).z.object({ label: (await import('zod')).z.string() }),
            readOnly: true,
            strict: false,
            access: () => ({ kind: 'none' }),
            async execute(args: { label: string }) {
              executed += 1;
              return { output: filler(`${args.label}:`, 8_000) };
            },
          },
        ],
        whenExhausted: scriptedWithSummaries(
          [
            { toolCalls: [readBig('a')], usage: { input: 1000, output: 20 } },
            { toolCalls: [readBig('b')], usage: { input: 4000, output: 20 } },
            { text: 'Done.', usage: { input: 900, output: 5 } },
          ],
          (request) => (hasTools(request.body) ? { toolCalls: [readBig('sneaky')] } : { text: SUMMARY }),
        ),
      });
      assert.equal(run.terminal.type, 'run_succeeded');
      const summaries = summaryRequests(run.provider);
      assert.deepEqual(
        summaries.map((request) => hasTools(request.body)),
        [true, false],
      );
      assert.equal(executed, 2, 'only the two rounds ran the tool');
      assert.match(sentMessages(summaries[1]!).at(-1)!.text, /<transcript>/);
      const [event] = compactedEvents(run.events);
      assert.equal(event?.summary, SUMMARY);
      assert.match(event!.reason, /the live form failed \(the model called read_big instead of summarizing\)/);
      assert.deepEqual(warnings(run.events), []);
    });

    test('a provider that refuses the live form ("Conversation roles must alternate") gets the transcript form', async () => {
      const history: ResponseItem[] = [
        systemMessage('You are a test agent.'),
        userMessage('first'),
        { type: 'function_call', callId: 'c1', name: 'read_big', arguments: '{"label":"a"}' },
        { type: 'function_call_output', callId: 'c1', name: 'read_big', output: filler('a:', 30_000), isError: false },
        { type: 'message', role: 'assistant', content: 'Read it.', runtimeRole: 'final_response' },
      ];
      const run = await runWithCompaction({
        wireApi,
        history,
        prompt: 'second',
        resumed: true,
        // No prune: the one output is in the latest rounds.
        settings: testSettings({ threshold: 5000 }),
        whenExhausted: scriptedWithSummaries([{ text: 'Answer.', usage: { input: 300, output: 3 } }], (request) =>
          hasTools(request.body)
            ? {
                fault: {
                  kind: 'status',
                  status: 400,
                  message: 'Conversation roles must alternate user/assistant/user/assistant/...',
                },
              }
            : { text: SUMMARY },
        ),
      });
      assert.equal(run.terminal.type, 'run_succeeded');
      const summaries = summaryRequests(run.provider);
      assert.deepEqual(
        summaries.map((request) => hasTools(request.body)),
        [true, false],
      );
      const [event] = compactedEvents(run.events);
      assert.equal(event?.phase, 'pre_turn');
      assert.match(event!.reason, /live form failed \(the provider answered: .*Conversation roles must alternate/);
      assert.ok(sentMessages(turnRequests(run.provider)[0]!).some((message) => message.text.startsWith(COMPACTION_SUMMARY_PREFIX)));
    });

    test('after a context overflow the conversation itself does not fit: the transcript form only', async () => {
      const run = await runWithCompaction({
        wireApi,
        contextWindow: 4000,
        settings: testSettings({ threshold: 1_000_000 }),
        tools: [bigOutputTool(20_000)],
        whenExhausted: scriptedWithSummaries([{ toolCalls: [readBig('a')] }, { text: 'Done after compaction.' }], () => ({
          text: SUMMARY,
        })),
      });
      assert.equal(run.terminal.type, 'run_succeeded');
      assert.deepEqual(
        summaryRequests(run.provider).map((request) => hasTools(request.body)),
        [false],
      );
    });

    test('liveSummary off: the transcript form, without tools or tool_choice, as before', async () => {
      const run = await runWithCompaction({
        wireApi,
        settings: testSettings({ liveSummary: false }),
        whenExhausted: scriptedWithSummaries(
          [
            { toolCalls: [readBig('a')], usage: { input: 1000, output: 20 } },
            { toolCalls: [readBig('b')], usage: { input: 4000, output: 20 } },
            { text: 'Done.', usage: { input: 900, output: 5 } },
          ],
          () => ({ text: SUMMARY }),
        ),
      });
      const [summary] = summaryRequests(run.provider);
      assert.ok(summary);
      assert.equal('tools' in summary.body, false);
      assert.equal('tool_choice' in summary.body, false);
    });
  });
}

describe('the state at the cut (issue 23 item 11)', () => {
  test('both forms ask for the current work and verbatim quotes of the latest exchange, with the safety wording', () => {
    for (const form of ['live', 'transcript'] as const) {
      const text = summaryTemplate(form);
      assert.ok(text.startsWith('You are compacting the working history of a coding agent'));
      const order = [
        '## Goal',
        '## Files',
        '## Done',
        '## Current work',
        '## Remaining',
        '## Errors',
        '## Latest exchange',
        '## Next step',
      ].map((heading) => text.indexOf(heading));
      assert.ok(
        order.every((at, i) => at > 0 && (i === 0 || at > order[i - 1]!)),
        `${form}: ${order}`,
      );
      assert.match(text, /files being edited/);
      assert.match(text, /commands or tool calls in flight/);
      assert.match(text, /Verbatim quotes of the most recent user message/);
      assert.match(text, /never as instructions/);
      assert.match(text, /No preamble/);
    }
    assert.match(summaryTemplate('live'), /Do not call any tool/);
    assert.match(summaryInstructions(['Keep ticket numbers.'], 'live'), /- Keep ticket numbers\.$/);
  });

  test('the installed summary keeps every section, the current work and the quotes included, and drops a preamble', () => {
    const body =
      '## Goal\nFix it.\n\n## Current work\nEditing src/a.ts: `npm test` was running.\n\n## Latest exchange\n> User: "fix the parser"';
    assert.equal(cleanSummary(`Sure! Here is the summary you asked for.\n\n${body}\n`), body);
    assert.equal(cleanSummary(body), body);
    assert.equal(cleanSummary('No headings at all.'), 'No headings at all.');
  });
});
