import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { systemMessage, userMessage, type ResponseItem } from '../../src/agent/index.js';
import {
  PRUNED_OUTPUT_MARKER,
  applyCompactionRecord,
  applyPrune,
  applySummaryCompaction,
  cheapItemTokens,
  isPrunedOutput,
  selectPruneCandidates,
} from '../../src/compaction/index.js';

const assistant = (content: string): ResponseItem => ({ type: 'message', role: 'assistant', content, runtimeRole: 'working_message' });
const call = (callId: string, args = '{"path":"src/a.ts"}', name = 'read_file'): ResponseItem => ({
  type: 'function_call',
  callId,
  name,
  arguments: args,
});
const output = (callId: string, text: string, name = 'read_file'): ResponseItem => ({
  type: 'function_call_output',
  callId,
  name,
  output: text,
  isError: false,
});
const summaryOf = (compactionId: string, summary: string) => ({ compactionId, summary });
const big = (label: string, size = 4000): string => `${label}:`.padEnd(size, 'x');

function transcript(): ResponseItem[] {
  return [
    systemMessage('You are Glassbox.'),
    userMessage('first request'),
    assistant('Looking.'),
    call('c1'),
    output('c1', big('one')),
    assistant('Done with the first.'),
    userMessage('second request'),
    call('c2'),
    output('c2', big('two')),
    userMessage('third request'),
    call('c3'),
    output('c3', big('three')),
  ];
}

describe('Full replacement', () => {
  test('keeps the leading system message, one summary, and the recent user messages in order', () => {
    const history = transcript();
    const result = applySummaryCompaction(history, summaryOf('cmp-1', 'Summary text.'), { userBudgetTokens: 20_000 });
    assert.deepEqual(result, [
      history[0],
      { type: 'compaction_summary', compactionId: 'cmp-1', summary: 'Summary text.' },
      userMessage('first request'),
      userMessage('second request'),
      userMessage('third request'),
    ]);
  });

  test('drops every assistant message, function_call and function_call_output, so no orphan call survives', () => {
    const result = applySummaryCompaction(transcript(), summaryOf('cmp-1', 'S'), { userBudgetTokens: 20_000 });
    assert.equal(result.filter((item) => item.type === 'function_call').length, 0);
    assert.equal(result.filter((item) => item.type === 'function_call_output').length, 0);
    assert.equal(result.filter((item) => item.type === 'message' && item.role === 'assistant').length, 0);
  });

  test('always keeps the newest user message, even when it alone is over the budget', () => {
    const huge = userMessage('h'.repeat(10_000));
    const history = [userMessage('older'), assistant('ok'), huge];
    const result = applySummaryCompaction(history, summaryOf('cmp-1', 'S'), { userBudgetTokens: 10 });
    assert.deepEqual(result.slice(1), [huge]);
  });

  test('drops older user messages once the token budget is exceeded, newest first', () => {
    const messages = ['a'.repeat(400), 'b'.repeat(400), 'c'.repeat(400)].map(userMessage);
    const cost = cheapItemTokens(messages[0]!);
    const result = applySummaryCompaction(messages, summaryOf('cmp-1', 'S'), { userBudgetTokens: cost * 2 });
    assert.deepEqual(result.slice(1), messages.slice(1));
    const tighter = applySummaryCompaction(messages, summaryOf('cmp-1', 'S'), { userBudgetTokens: cost * 2 - 1 });
    assert.deepEqual(tighter.slice(1), messages.slice(2));
  });

  test('works with no system message', () => {
    const history = transcript().slice(1);
    const result = applySummaryCompaction(history, summaryOf('cmp-1', 'S'), { userBudgetTokens: 20_000 });
    assert.equal(result[0]!.type, 'compaction_summary');
    assert.equal(result.length, 4);
  });

  test('two compactions keep only the latest summary', () => {
    const once = applySummaryCompaction(transcript(), summaryOf('cmp-1', 'first summary'), { userBudgetTokens: 20_000 });
    const grown = [...once, assistant('more work'), call('c9'), output('c9', 'result')];
    const twice = applySummaryCompaction(grown, summaryOf('cmp-2', 'merged summary'), { userBudgetTokens: 20_000 });
    const summaries = twice.filter((item) => item.type === 'compaction_summary');
    assert.deepEqual(summaries, [{ type: 'compaction_summary', compactionId: 'cmp-2', summary: 'merged summary' }]);
  });

  test('is pure: the input is untouched and the same inputs give the same output', () => {
    const history = transcript();
    const copy = structuredClone(history);
    const a = applySummaryCompaction(history, summaryOf('cmp-1', 'S'), { userBudgetTokens: 100 });
    const b = applySummaryCompaction(history, summaryOf('cmp-1', 'S'), { userBudgetTokens: 100 });
    assert.deepEqual(history, copy);
    assert.deepEqual(a, b);
  });

  test('property: output is [system?] + one summary + a non-empty suffix of the user messages', () => {
    const itemArbitrary: fc.Arbitrary<ResponseItem> = fc.oneof(
      fc.string({ maxLength: 300 }).map((text) => userMessage(text)),
      fc.string({ maxLength: 50 }).map((text) => assistant(text)),
      fc.nat(5).map((n) => call(`c${n}`)),
      fc.nat(5).map((n) => output(`c${n}`, 'out')),
      fc.string({ maxLength: 40 }).map((text): ResponseItem => ({ type: 'compaction_summary', compactionId: 'old', summary: text })),
    );
    fc.assert(
      fc.property(fc.boolean(), fc.array(itemArbitrary, { maxLength: 30 }), fc.nat(400), (withSystem, body, budget) => {
        const history = withSystem ? [systemMessage('sys'), ...body] : body;
        const result = applySummaryCompaction(history, summaryOf('new', 'S'), { userBudgetTokens: budget });
        let rest = result;
        if (withSystem) {
          assert.equal(result[0], history[0]);
          rest = result.slice(1);
        }
        assert.deepEqual(rest[0], { type: 'compaction_summary', compactionId: 'new', summary: 'S' });
        const keptUsers = rest.slice(1);
        const users = body.filter((item) => item.type === 'message' && item.role === 'user');
        assert.ok(keptUsers.every((item) => item.type === 'message' && item.role === 'user'));
        assert.deepEqual(keptUsers, users.slice(users.length - keptUsers.length));
        if (users.length > 0) assert.equal(keptUsers.at(-1), users.at(-1));
      }),
      { seed: 42, numRuns: 300 },
    );
  });
});

describe('cheap pass (prune)', () => {
  test('elides old large outputs with a placeholder naming tool, arguments and size; keeps the pairing', () => {
    const history = transcript();
    const ids = selectPruneCandidates(history);
    // c1 and c2 are older than the latest round; c3 is the latest round's.
    assert.deepEqual(ids, ['c1', 'c2']);
    const pruned = applyPrune(history, ids);
    const elided = pruned[4]!;
    assert.equal(elided.type, 'function_call_output');
    assert.ok(isPrunedOutput(elided));
    assert.equal(
      elided.type === 'function_call_output' && elided.output,
      `${PRUNED_OUTPUT_MARKER} read_file {"path":"src/a.ts"} returned 4,000 characters (1 line). Re-run the tool to see it again.]`,
    );
    assert.equal(elided.type === 'function_call_output' && elided.callId, 'c1');
    // Everything else is the very same object.
    pruned.forEach((item, index) => {
      if (index !== 4 && index !== 8) assert.equal(item, history[index]);
    });
  });

  test('decides by rounds, not user turns: inside one long turn every round but the latest is a candidate (issue 23 item 12)', () => {
    // The shape of the five real sessions issue 23 replayed: one prompt, then a hundred rounds.
    const history: ResponseItem[] = [userMessage('only turn')];
    for (let n = 0; n < 10; n += 1) history.push(assistant(`step ${n}`), call(`r${n}`), output(`r${n}`, big(`r${n}`)));
    assert.deepEqual(
      selectPruneCandidates(history),
      Array.from({ length: 9 }, (_, n) => `r${n}`),
    );
    assert.deepEqual(selectPruneCandidates(history, { protectedRounds: 3 }).length, 7);
    // A parallel batch is one round.
    const batch = [userMessage('u'), call('a'), output('a', big('a')), call('b'), call('c'), output('b', big('b')), output('c', big('c'))];
    assert.deepEqual(selectPruneCandidates(batch), ['a']);
  });

  test('protects the most recent protectTokens of output; the output that crosses the budget is the newest given up', () => {
    const history: ResponseItem[] = [userMessage('u')];
    for (let n = 0; n < 6; n += 1) history.push(call(`r${n}`), output(`r${n}`, big(`r${n}`, 4000)));
    const each = cheapItemTokens(history[2]!);
    // 2.5 outputs' worth: r5 and r4 are protected, r3 crosses the budget and may go.
    assert.deepEqual(selectPruneCandidates(history, { protectTokens: Math.round(each * 2.5) }), ['r0', 'r1', 'r2', 'r3']);
    assert.deepEqual(selectPruneCandidates(history, { protectTokens: each * 100 }), []);
  });

  test('skips small outputs, already elided outputs, and ids that recur in the protected tail', () => {
    const history = [
      userMessage('u1'),
      call('small'),
      output('small', 'tiny'),
      call('dup'),
      output('dup', big('dup')),
      call('keep'),
      output('keep', big('keep')),
      userMessage('u2'),
      call('dup'),
      output('dup', big('dup again')),
      userMessage('u3'),
      call('late'),
      output('late', 'tiny'),
    ];
    assert.deepEqual(selectPruneCandidates(history, { protectedRounds: 2 }), ['keep']);
    const once = applyPrune(history, ['keep']);
    assert.deepEqual(selectPruneCandidates(once, { protectedRounds: 2 }), []);
    assert.deepEqual(applyPrune(once, ['keep']), once, 'pruning twice changes nothing');
  });

  test('an error output says so in its placeholder', () => {
    const history: ResponseItem[] = [
      call('e', '{}', 'shell'),
      { type: 'function_call_output', callId: 'e', name: 'shell', output: 'boom\n'.repeat(200), isError: true },
    ];
    const [, elided] = applyPrune(history, ['e']);
    assert.ok(elided);
    assert.match(
      elided.type === 'function_call_output' ? elided.output : '',
      /shell \{\} returned 1,000 characters \(201 lines\) as an error/,
    );
  });
});

describe('applyCompactionRecord (replay)', () => {
  test('re-applies a summary record exactly as the live transform did', () => {
    const history = transcript();
    const live = applySummaryCompaction(history, summaryOf('cmp-7', 'S7'), { userBudgetTokens: 50 });
    const replayed = applyCompactionRecord(history, { kind: 'summary', compactionId: 'cmp-7', summary: 'S7', userBudgetTokens: 50 });
    assert.deepEqual(replayed, live);
  });

  test('re-applies a prune record exactly as the live transform did', () => {
    const history = transcript();
    const live = applyPrune(history, ['c1']);
    assert.deepEqual(applyCompactionRecord(history, { kind: 'prune', prunedCallIds: ['c1'] }), live);
  });
});
