import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RunEvent, StagedUsage } from '../../src/agent/index.js';
import { emptyTranscript, lastToolEntry, reduceRunEvent, toolStatusText, type TranscriptState } from '../../src/tui/transcript-state.js';
import { commandCompletions, parseInput, SLASH_COMMANDS } from '../../src/tui/slash-commands.js';
import { applyRunEvent, callPhrase, callSubject, startLiveTurn } from '../../src/views/index.js';

const usage: StagedUsage = {
  total: { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, reasoningTokens: 0, totalTokens: 0, raw: null },
  byStage: {},
  calls: 0,
};

function run(events: RunEvent[], state: TranscriptState = emptyTranscript()): TranscriptState {
  return events.reduce(reduceRunEvent, state);
}

describe('transcript', () => {
  test('streamed text stays live until its round completes, then moves to the printed part in order', () => {
    const streaming = run([
      { type: 'reasoning_delta', round: 1, delta: 'let me think' },
      { type: 'assistant_delta', round: 1, delta: 'Hel' },
      { type: 'assistant_delta', round: 1, delta: 'lo' },
    ]);
    assert.deepEqual(
      streaming.done.map((e) => e.kind),
      ['reasoning'],
    );
    assert.deepEqual(
      streaming.live.map((e) => e.kind),
      ['assistant'],
    );
    assert.equal((streaming.live[0] as { text: string }).text, 'Hello');
    const completed = run(
      [{ type: 'model_completed', round: 1, stage: 'turn', usage: null, finishReason: 'stop', durationMs: 1 }],
      streaming,
    );
    assert.deepEqual(completed.live, []);
    assert.deepEqual(
      completed.done.map((e) => e.kind),
      ['reasoning', 'assistant'],
    );
  });

  test('a tool call is one entry that goes queued → approval → running → done, with its duration', () => {
    let state = run([
      { type: 'assistant_delta', round: 1, delta: 'Editing.' },
      {
        type: 'tool_requested',
        round: 1,
        callId: 'c1',
        name: 'edit_file',
        arguments: '{"path":"src/a.ts","old_string":"a","new_string":"b"}',
      },
      { type: 'tool_permission_decided', callId: 'c1', name: 'edit_file', decision: 'ask', reason: 'read-only', rule: 'sandbox-read-only' },
      {
        type: 'approval_requested',
        callId: 'c1',
        name: 'edit_file',
        summary: 'edit_file: write src/a.ts',
        reason: 'read-only',
        arguments: '{"path":"src/a.ts","old_string":"a","new_string":"b"}',
      },
    ]);
    const tool = state.live.find((e) => e.kind === 'tool');
    assert.equal(tool?.kind === 'tool' && tool.status, 'approval');
    assert.equal(tool?.kind === 'tool' && tool.summary, 'src/a.ts');
    assert.equal(state.done.length, 1, 'the text before the call is printed');
    state = run(
      [
        { type: 'approval_resolved', callId: 'c1', name: 'edit_file', decision: 'approve', by: 'user', message: null },
        { type: 'tool_started', callId: 'c1', name: 'edit_file' },
        { type: 'tool_finished', callId: 'c1', name: 'edit_file', isError: false, output: 'ok\ndiff', durationMs: 12 },
      ],
      state,
    );
    const done = state.done.at(-1);
    assert.equal(done?.kind === 'tool' && done.status, 'ok');
    assert.equal(done?.kind === 'tool' && done.durationMs, 12);
    assert.equal(lastToolEntry(state)?.output, 'ok\ndiff');
  });

  test('a denial keeps the reason; a cancelled run ends unfinished calls and says so', () => {
    const state = run([
      { type: 'tool_requested', round: 1, callId: 'c1', name: 'shell', arguments: '{"command":"rm -rf /"}' },
      { type: 'approval_resolved', callId: 'c1', name: 'shell', decision: 'deny', by: 'user', message: 'no way' },
      { type: 'tool_requested', round: 1, callId: 'c2', name: 'shell', arguments: '{"command":"sleep 9"}' },
      { type: 'tool_started', callId: 'c2', name: 'shell' },
      { type: 'run_cancelled', reason: 'Cancelled by the user', usage, rounds: 1 },
    ]);
    const [denied, cut, notice] = state.done;
    assert.ok(denied && cut && notice);
    assert.equal(denied.kind === 'tool' && denied.note, 'denied by you: no way');
    assert.equal(cut.kind === 'tool' && cut.status, 'cancelled');
    assert.equal(cut.kind === 'tool' && toolStatusText(cut), 'cancelled');
    assert.equal(notice.kind === 'notice' && notice.tone, 'warning');
    assert.deepEqual(state.live, []);
  });

  // The web said `cancelled` and the terminal `error` for the same call: one fold now (views/).
  test('a call cancelled while it runs is cancelled, as in the web; one cancelled before it ran was not run', () => {
    const events: RunEvent[] = [
      { type: 'tool_requested', round: 1, callId: 'c1', name: 'shell', arguments: '{"command":"sleep 9"}' },
      { type: 'tool_requested', round: 1, callId: 'c2', name: 'shell', arguments: '{"command":"echo later"}' },
      { type: 'tool_started', callId: 'c1', name: 'shell' },
      {
        type: 'tool_finished',
        callId: 'c1',
        name: 'shell',
        isError: true,
        output: 'Error [CANCELLED]: the run was cancelled',
        durationMs: 40,
      },
      { type: 'run_cancelled', reason: 'Cancelled by the user', usage, rounds: 1 },
    ];
    const tools = run(events).done.filter((entry) => entry.kind === 'tool');
    assert.deepEqual(
      tools.map((entry) => [entry.callId, entry.status, toolStatusText(entry)]),
      [
        ['c1', 'cancelled', 'cancelled · 40ms'],
        ['c2', 'cancelled', 'not run (cancelled)'],
      ],
    );
    let web = startLiveTurn('', null);
    for (const event of events) web = applyRunEvent(web, event);
    const calls = web.entries.flatMap((entry) => (entry.kind === 'tools' ? entry.calls : []));
    assert.deepEqual(
      calls.map((call) => [call.status, callPhrase(call).outcome]),
      [
        ['cancelled', ' — cancelled'],
        ['cancelled', ' — not run (cancelled)'],
      ],
    );
  });

  test('an answer that was not streamed is still shown', () => {
    const state = run([{ type: 'run_succeeded', answer: 'Just this.', usage, rounds: 1 }]);
    assert.equal(state.done[0]!.kind === 'assistant' && state.done[0]!.text, 'Just this.');
  });

  test('tool lines show what the call touches, never raw control characters', () => {
    assert.equal(callSubject('shell', '{"command":"ls -la"}'), 'ls -la');
    assert.equal(callSubject('shell', '{"command":"ls\\n-la"}'), 'ls …');
    assert.equal(callSubject('shell', '{"command":["ls","-la"]}'), 'ls -la');
    assert.equal(callSubject('read_file', '{"path":"a.ts","offset":10,"limit":5}'), 'a.ts (lines 10–14)');
    assert.equal(callSubject('mcp__docs__search', '{"query":"zod"}'), 'zod');
    assert.equal(
      callSubject('apply_patch', JSON.stringify({ patch: '*** Begin Patch\n*** Update File: a.ts\n*** Add File: b.ts\n*** End Patch' })),
      'a.ts, b.ts',
    );
    const line = (name: string, args: string) =>
      run([{ type: 'tool_requested', round: 1, callId: 'c', name, arguments: args }]).live.find((e) => e.kind === 'tool');
    assert.equal(line('read_file', '{"path":"x\\u001b[2Jy"}')?.summary, 'x\\e[2Jy');
    assert.equal(line('mystery', 'not json')?.summary, 'not json');
  });
});

describe('slash commands', () => {
  test('parsing: commands with arguments, aliases, unknown names, and // for a literal slash', () => {
    assert.deepEqual(parseInput('/compact keep the tests'), { kind: 'command', name: 'compact', args: 'keep the tests' });
    assert.deepEqual(parseInput('/fork 2'), { kind: 'command', name: 'fork', args: '2' });
    assert.deepEqual(parseInput('/exit'), { kind: 'command', name: 'quit', args: '' });
    assert.deepEqual(parseInput('/nope'), { kind: 'unknown', name: 'nope' });
    assert.deepEqual(parseInput('//etc/hosts is odd'), { kind: 'prompt', text: '/etc/hosts is odd' });
    assert.deepEqual(parseInput('fix /src please'), { kind: 'prompt', text: 'fix /src please' });
  });

  test('completion offers commands while only the name is typed, and every issue command exists', () => {
    assert.deepEqual(
      commandCompletions('/co').map((c) => c.name),
      ['compact'],
    );
    assert.deepEqual(commandCompletions('/compact x'), []);
    const names = SLASH_COMMANDS.map((c) => c.name);
    for (const wanted of [
      'compact',
      'status',
      'resume',
      'fork',
      'model',
      'sandbox',
      'approvals',
      'clear',
      'sessions',
      'diff',
      'debug',
      'help',
    ]) {
      assert.ok(names.includes(wanted as never), wanted);
    }
  });
});

describe('stream retry', () => {
  test('the text of a cut stream leaves the live transcript and a notice says the round is retried', () => {
    const retry: RunEvent = {
      type: 'stream_retry',
      round: 1,
      attempt: 1,
      maxAttempts: 3,
      delayMs: 500,
      discardedChars: 3,
      error: { code: 'STREAM_INTERRUPTED', message: 'The stream ended before the model finished (no finish_reason was sent).' },
    };
    const state = run([{ type: 'assistant_delta', round: 1, delta: 'Foo' }, retry, { type: 'assistant_delta', round: 1, delta: 'Foo!' }]);
    const texts = [...state.done, ...state.live].map((entry) => `${entry.kind}:${(entry as { text: string }).text}`);
    assert.equal(texts.length, 2, texts.join('\n'));
    assert.match(texts[0]!, /^notice:retrying \(stream interrupted\) 1\/3 in 0\.5s; the 3 characters it had shown are discarded/);
    assert.equal(texts[1], 'assistant:Foo!');
  });
});
