// The workbench's pure logic, without a browser: SSE parsing, action phrases, the transcript
// built from events and from records, the context chart geometry, audit and event rows.
// (Imports the modules directly: the folders' index files also export React components.)

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RunEvent, StagedUsage } from '../../src/agent/index.js';
import type { SessionRecord } from '../../src/sessions/index.js';
import { SseParser } from '../../src/web/api/sse-parser.js';
import {
  actionPhrase,
  applyRunEvent,
  callPhrase,
  factsOfRecord,
  patchPaths,
  patchTargets,
  phraseText,
  projectRelative,
  reduceTurn,
  reduceTurnAt,
  startLiveTurn,
  type TranscriptTurn,
} from '../../src/views/index.js';
import { mergeLiveTurn, transcriptFromRecords } from '../../src/web/transcript/transcript-turns.js';
import { approvalPreview } from '../../src/web/transcript/approval-preview.js';
import { parseRoute, routeUrl } from '../../src/web/app/route.js';
import { requestDiff } from '../../src/web/inspector/request-diff.js';
import { outputFates } from '../../src/web/inspector/trace-rows.js';
import { carriers, toolDecisions, traceRows, NO_FILTERS } from '../../src/web/inspector/trace-rows.js';
import { groupSessions } from '../../src/web/sidebar/session-groups.js';
import { formatClock, formatUsd } from '../../src/web/format/format-numbers.js';
import type { TraceCall } from '../../src/web/api/api-types.js';
import { chartGeometry, compactionPositions, niceStep } from '../../src/web/inspector/context-geometry.js';
import { collectAudit } from '../../src/web/inspector/audit-rows.js';
import { groupDeltas } from '../../src/web/inspector/event-rows.js';
import { formatTokens } from '../../src/web/format/format-numbers.js';

const usage: StagedUsage = {
  total: { inputTokens: 10, cachedInputTokens: null, outputTokens: 5, reasoningTokens: 0, totalTokens: 15, raw: null },
  byStage: {},
  calls: 1,
};

describe('SseParser', () => {
  test('frames split anywhere across chunks, CRLF lines, comments and multi-line data', () => {
    const text = ': heartbeat\r\n\r\nid: 1\r\nevent: a\r\ndata: {"x":1}\r\n\r\nid: 2\ndata: line one\ndata: line two\n\n';
    for (let size = 1; size <= text.length; size++) {
      const parser = new SseParser();
      const frames = [];
      for (let i = 0; i < text.length; i += size) frames.push(...parser.push(text.slice(i, i + size)));
      assert.deepEqual(
        frames,
        [
          { id: '1', event: 'a', data: '{"x":1}' },
          { id: '2', event: 'message', data: 'line one\nline two' },
        ],
        `chunk size ${size}`,
      );
    }
  });

  test('an unfinished frame is held back until its blank line', () => {
    const parser = new SseParser();
    assert.deepEqual(parser.push('id: 3\ndata: {}\n'), []);
    assert.deepEqual(parser.push('\n'), [{ id: '3', event: 'message', data: '{}' }]);
  });
});

describe('actionPhrase', () => {
  const cases: Array<[string, unknown, string]> = [
    ['read_file', { path: 'src/x.ts' }, 'Read src/x.ts'],
    ['read_file', { path: 'src/x.ts', offset: 10, limit: 31 }, 'Read src/x.ts (lines 10–40)'],
    ['list_dir', {}, 'Listed the project root'],
    ['list_dir', { path: 'src' }, 'Listed src'],
    ['glob', { pattern: '**/*.ts', path: 'src' }, 'Found files matching "**/*.ts" in src'],
    ['grep', { pattern: 'foo' }, 'Searched for "foo"'],
    ['grep', { pattern: 'foo', path: 'src', glob: '*.ts' }, 'Searched for "foo" in src (*.ts)'],
    ['write_file', { path: 'a.txt', content: 'x' }, 'Wrote a.txt'],
    ['edit_file', { path: 'a.txt', old_string: 'a', new_string: 'b' }, 'Edited a.txt'],
    ['shell', { command: 'npm test' }, 'Ran `npm test`'],
    ['shell', { command: 'npm ci\nnpm test' }, 'Ran `npm ci …`'],
    ['mystery', { a: 1 }, 'Called mystery'],
  ];
  for (const [name, args, expected] of cases) {
    test(`${name} ${JSON.stringify(args)}`, () => assert.equal(phraseText(actionPhrase(name, JSON.stringify(args))), expected));
  }

  test('patches name their files; unreadable arguments are said to be so', () => {
    const patch = '*** Begin Patch\n*** Update File: a.ts\n@@\n-x\n+y\n*** Add File: b.ts\n+new\n*** End Patch';
    assert.deepEqual(patchTargets(patch), { added: ['b.ts'], updated: ['a.ts'], deleted: [], movedTo: [] });
    assert.deepEqual(patchPaths(patch), ['a.ts', 'b.ts']);
    assert.equal(phraseText(actionPhrase('apply_patch', JSON.stringify({ patch }))), 'Patched a.ts, b.ts');
    const update = '*** Begin Patch\n*** Update File: a.ts\n*** End Patch';
    assert.equal(phraseText(actionPhrase('apply_patch', JSON.stringify({ patch: update }))), 'Edited a.ts');
    assert.equal(phraseText(actionPhrase('shell', '{"command": "ls"')), 'Called shell (arguments are not valid JSON)');
  });
});

/** One turn: text, a read call allowed, a shell call denied, then an answer — as events and as records. */
const runId = 'run-1';
const events: RunEvent[] = [
  { type: 'run_started', sessionId: 's-1', runId, model: 'm', wireApi: 'chat', resumed: false },
  { type: 'model_requested', round: 1, stage: 'turn', messageCount: 2, toolCount: 8 },
  { type: 'assistant_delta', round: 1, delta: 'Let me ' },
  { type: 'assistant_delta', round: 1, delta: 'look.' },
  { type: 'model_completed', round: 1, stage: 'turn', usage: null, finishReason: 'tool_calls', durationMs: 5 },
  { type: 'tool_requested', round: 1, callId: 'c1', name: 'read_file', arguments: '{"path":"a.txt"}' },
  { type: 'tool_requested', round: 1, callId: 'c2', name: 'shell', arguments: '{"command":"rm a.txt"}' },
  { type: 'tool_permission_decided', callId: 'c1', name: 'read_file', decision: 'allow', reason: 'inside root', rule: 'read-inside-root' },
  { type: 'tool_started', callId: 'c1', name: 'read_file' },
  { type: 'tool_finished', callId: 'c1', name: 'read_file', isError: false, output: '1 hi', durationMs: 3 },
  { type: 'tool_permission_decided', callId: 'c2', name: 'shell', decision: 'ask', reason: 'rm writes', rule: 'policy:untrusted' },
  {
    type: 'approval_requested',
    callId: 'c2',
    name: 'shell',
    summary: 'shell: rm a.txt',
    reason: 'rm writes',
    arguments: '{"command":"rm a.txt"}',
  },
  { type: 'approval_resolved', callId: 'c2', name: 'shell', decision: 'deny', by: 'user', message: 'keep it' },
  { type: 'tool_finished', callId: 'c2', name: 'shell', isError: true, output: 'Error [DENIED]: keep it', durationMs: 0 },
  { type: 'model_requested', round: 2, stage: 'turn', messageCount: 5, toolCount: 8 },
  { type: 'assistant_delta', round: 2, delta: '**Done**' },
  { type: 'model_completed', round: 2, stage: 'turn', usage: null, finishReason: 'stop', durationMs: 5 },
  { type: 'run_succeeded', answer: '**Done**', usage, rounds: 2 },
];
const ts = '2026-01-01T00:00:00.000Z';
const records: SessionRecord[] = [
  {
    type: 'session_meta',
    ts,
    formatVersion: 1,
    sessionId: 's-1',
    createdAt: ts,
    cwd: '/p',
    model: 'm',
    wireApi: 'chat',
    parent: null,
    glassboxVersion: '0',
  },
  {
    type: 'turn_started',
    ts,
    turn: 1,
    runId,
    prompt: 'Tidy up',
    policy: { approvalPolicy: 'untrusted', sandbox: 'read-only' },
    model: 'm',
    wireApi: 'chat',
  },
  { type: 'response_item', ts, turn: 1, item: { type: 'message', role: 'system', content: 'sys' } },
  { type: 'response_item', ts, turn: 1, item: { type: 'message', role: 'user', content: 'Tidy up' } },
  {
    type: 'response_item',
    ts,
    turn: 1,
    item: { type: 'message', role: 'assistant', content: 'Let me look.', runtimeRole: 'working_message' },
  },
  { type: 'response_item', ts, turn: 1, item: { type: 'function_call', callId: 'c1', name: 'read_file', arguments: '{"path":"a.txt"}' } },
  { type: 'response_item', ts, turn: 1, item: { type: 'function_call', callId: 'c2', name: 'shell', arguments: '{"command":"rm a.txt"}' } },
  {
    type: 'audit',
    ts,
    turn: 1,
    event: {
      type: 'tool_permission_decided',
      callId: 'c1',
      name: 'read_file',
      decision: 'allow',
      reason: 'inside root',
      rule: 'read-inside-root',
    },
  },
  { type: 'audit', ts, turn: 1, event: { type: 'tool_finished', callId: 'c1', name: 'read_file', isError: false, durationMs: 3 } },
  {
    type: 'audit',
    ts,
    turn: 1,
    event: { type: 'tool_permission_decided', callId: 'c2', name: 'shell', decision: 'ask', reason: 'rm writes', rule: 'policy:untrusted' },
  },
  {
    type: 'audit',
    ts,
    turn: 1,
    event: { type: 'approval_requested', callId: 'c2', name: 'shell', summary: 'shell: rm a.txt', reason: 'rm writes', arguments: '{}' },
  },
  {
    type: 'audit',
    ts,
    turn: 1,
    event: { type: 'approval_resolved', callId: 'c2', name: 'shell', decision: 'deny', by: 'user', message: 'keep it' },
  },
  {
    type: 'response_item',
    ts,
    turn: 1,
    item: { type: 'function_call_output', callId: 'c1', name: 'read_file', output: '1 hi', isError: false },
  },
  {
    type: 'response_item',
    ts,
    turn: 1,
    item: { type: 'function_call_output', callId: 'c2', name: 'shell', output: 'Error [DENIED]: keep it', isError: true },
  },
  { type: 'response_item', ts, turn: 1, item: { type: 'message', role: 'assistant', content: '**Done**', runtimeRole: 'final_response' } },
  { type: 'turn_completed', ts, turn: 1, runId, usage, rounds: 2 },
];

function replay(list: RunEvent[], until = list.length): TranscriptTurn {
  return list.slice(0, until).reduce((turn, event) => applyRunEvent(turn, event), startLiveTurn('Tidy up', 1));
}

describe('transcript model', () => {
  test('live: deltas stream, then become the working text or the final answer', () => {
    const streaming = replay(events, 4);
    assert.deepEqual(streaming.entries, [{ kind: 'assistant', key: 'text-0', text: 'Let me look.', role: 'streaming' }]);
    assert.deepEqual(streaming.outcome, { status: 'running', phase: 'streaming' });
    const waiting = replay(events, 12);
    assert.equal(waiting.entries[0]!.kind === 'assistant' && waiting.entries[0]!.role, 'working');
    assert.deepEqual(waiting.outcome, { status: 'running', phase: 'approval' });
    const tools = waiting.entries[1]!;
    assert.ok(tools.kind === 'tools');
    assert.deepEqual(
      tools.calls.map((call) => call.status),
      ['succeeded', 'awaiting_approval'],
    );
  });

  test('live and recorded copies of a turn agree, key for key', () => {
    const live = replay(events);
    const [recorded] = transcriptFromRecords(records);
    assert.ok(recorded);
    assert.equal(live.key, recorded.key);
    assert.deepEqual(live.outcome, { status: 'succeeded', rounds: 2, totalTokens: 15 });
    assert.deepEqual(recorded.outcome, live.outcome);
    const shape = (turn: TranscriptTurn) =>
      turn.entries.map((entry) =>
        entry.kind === 'tools'
          ? {
              key: entry.key,
              calls: entry.calls.map(({ callId, status, output, permission, approval }) => ({
                callId,
                status,
                output,
                permission,
                approval,
              })),
            }
          : // Times differ by nature (written vs received); the timestamp test covers them.
            { ...entry, at: undefined },
      );
    assert.deepEqual(shape(recorded), shape(live));
    const calls = live.entries[1]!.kind === 'tools' ? live.entries[1]!.calls : [];
    assert.equal(calls[1]!.status, 'denied');
    assert.deepEqual(calls[1]!.approval?.resolution, { decision: 'deny', by: 'user', message: 'keep it' });
    assert.deepEqual(live.entries[2], { kind: 'assistant', key: 'text-1', text: '**Done**', role: 'final' });
  });

  test('a failed run leaves no call looking like it still runs', () => {
    const failed = applyRunEvent(replay(events, 9), { type: 'run_failed', error: { code: 'X', message: 'boom' }, usage, rounds: 1 });
    const tools = failed.entries[1]!;
    assert.ok(tools.kind === 'tools');
    assert.deepEqual(
      tools.calls.map((call) => call.status),
      ['cancelled', 'cancelled'],
    );
    assert.deepEqual(failed.outcome, { status: 'failed', code: 'X', message: 'boom' });
  });

  test('the live turn stands in for its recorded copy only until that copy has ended', () => {
    const live = replay(events, 6);
    const incomplete = transcriptFromRecords(records.slice(0, 7));
    assert.equal(incomplete[0]!.outcome.status, 'incomplete');
    const merged = mergeLiveTurn(incomplete, live);
    assert.equal(merged.length, 1);
    assert.equal(merged[0]!.outcome.status, 'running');
    assert.equal(merged[0]!.key, incomplete[0]!.key);
    const complete = transcriptFromRecords(records);
    assert.equal(mergeLiveTurn(complete, live)[0], complete[0]);
    assert.equal(mergeLiveTurn([], live).length, 1);
  });

  test('compactions appear once, from the event or the record, with their numbers', () => {
    const compacted: RunEvent = {
      type: 'history_compacted',
      compactionId: 'cmp_1',
      trigger: 'auto',
      phase: 'mid_turn',
      kind: 'summary',
      tokensBefore: 6500,
      tokensAfter: 1900,
      itemsRemoved: 4,
      itemsKept: 2,
      reason: 'over the threshold',
      summary: 'did things',
      estimated: false,
    };
    const live = applyRunEvent(replay(events, 10), compacted);
    const entry = live.entries[live.entries.length - 1]!;
    assert.ok(entry.kind === 'compaction');
    assert.equal(entry.compaction.tokensBefore, 6500);
    const { type: _type, ...payload } = compacted;
    const compactionRecord = { type: 'compaction', ts, turn: 1, ...payload } as SessionRecord;
    const summaryItem: SessionRecord = {
      type: 'response_item',
      ts,
      turn: 1,
      item: { type: 'compaction_summary', compactionId: 'cmp_1', summary: 'did things' },
    };
    const [recorded] = transcriptFromRecords([...records.slice(0, 13), compactionRecord, summaryItem, ...records.slice(13)]);
    assert.ok(recorded);
    const compactions = recorded.entries.filter((item) => item.kind === 'compaction');
    assert.equal(compactions.length, 1);
    assert.equal(compactions[0]!.kind === 'compaction' && compactions[0]!.compaction.tokensAfter, 1900);
  });
});

describe('context chart geometry', () => {
  const points = [
    { turn: 1, round: 1, callIndex: 0, tokens: 2550, estimated: false },
    { turn: 1, round: 2, callIndex: 1, tokens: 6550, estimated: false },
    { turn: 1, round: 3, callIndex: 3, tokens: 2130, estimated: false },
  ];
  const compaction = { compactionId: 'cmp_1', turn: 1, tokensBefore: 6550, tokensAfter: 1900 };

  test('a compaction is marked between the points where the line drops', () => {
    const geometry = chartGeometry({ window: 10_000, threshold: 6000, points, compactions: [compaction] }, { width: 400, height: 200 });
    const [a, b, c] = geometry.dots;
    assert.ok(a && b && c);
    assert.ok(b.y < a.y && c.y > b.y);
    assert.ok(geometry.markers[0]!.x > b.x && geometry.markers[0]!.x < c.x);
    assert.ok(geometry.thresholdY !== null && geometry.windowY !== null && geometry.windowY < geometry.thresholdY);
    assert.equal(geometry.yMax, 12_500);
    assert.match(geometry.path, /^M[\d.]+,[\d.]+ L[\d.]+,[\d.]+ L[\d.]+,[\d.]+$/);
  });

  test('a compaction with no visible drop goes after its turn; a huge window stays off the chart', () => {
    assert.deepEqual(compactionPositions(points.slice(0, 2), [compaction]), [2]);
    assert.deepEqual(compactionPositions(points, [compaction, { ...compaction, compactionId: 'cmp_2' }]), [2, 3]);
    const geometry = chartGeometry({ window: 1_000_000, threshold: 6000, points, compactions: [] }, { width: 400, height: 200 });
    assert.equal(geometry.windowY, null);
    assert.equal(geometry.windowOffChart, true);
    assert.ok(geometry.yMax < 20_000);
  });

  test('no points: no line, still axes', () => {
    const geometry = chartGeometry({ window: null, threshold: null, points: [], compactions: [] }, { width: 400, height: 200 });
    assert.equal(geometry.path, '');
    assert.ok(geometry.yTicks.length >= 2);
  });

  test('nice steps and token labels', () => {
    assert.deepEqual([0.3, 1, 3, 2400, 2600, 9000].map(niceStep), [1, 1, 5, 2500, 5000, 10_000]);
    assert.deepEqual([999, 1000, 12_500, 128_000, 1_500_000].map(formatTokens), ['999', '1k', '12.5k', '128k', '1.5M']);
  });
});

describe('inspector rows', () => {
  test('audit rows come from records, then from live events the records lack', () => {
    const live: RunEvent[] = [
      { type: 'tool_requested', round: 1, callId: 'c9', name: 'shell', arguments: '{"command":"ls"}' },
      { type: 'tool_permission_decided', callId: 'c9', name: 'shell', decision: 'allow', reason: 'safe', rule: 'classifier:safe' },
      {
        type: 'tool_permission_decided',
        callId: 'c1',
        name: 'read_file',
        decision: 'allow',
        reason: 'inside root',
        rule: 'read-inside-root',
      },
    ];
    const { rows, calls } = collectAudit(records, live);
    assert.deepEqual(
      rows.map((row) => `${row.turn}:${row.event.type}:${row.event.callId}`),
      [
        '1:tool_permission_decided:c1',
        '1:tool_permission_decided:c2',
        '1:approval_requested:c2',
        '1:approval_resolved:c2',
        'null:tool_permission_decided:c9',
      ],
    );
    assert.equal(calls.get('c9')?.name, 'shell');
    assert.equal(calls.get('c2')?.arguments, '{"command":"rm a.txt"}');
  });

  test('consecutive deltas of a round collapse into one row', () => {
    const rows = groupDeltas(events.map((event, index) => ({ id: index + 1, event })));
    const deltas = rows.filter((row) => row.kind === 'deltas');
    assert.deepEqual(
      deltas.map((row) => row.kind === 'deltas' && [row.firstId, row.lastId, row.text]),
      [
        [3, 4, 'Let me look.'],
        [16, 16, '**Done**'],
      ],
    );
    assert.equal(rows.length, events.length - 1);
  });
});

describe('one transcript reducer', () => {
  test('records fold through the same reducer as events: the facts of a record are what reduceTurn takes', () => {
    const byHand = records
      .flatMap((record) => factsOfRecord(record).map((fact) => ({ fact, at: record.ts })))
      .reduce((turn, { fact, at }) => reduceTurnAt(turn, fact, at), startLiveTurn('', 1));
    const [recorded] = transcriptFromRecords(records);
    assert.ok(recorded);
    assert.deepEqual(byHand.entries, recorded.entries);
    assert.equal(records.flatMap(factsOfRecord).reduce(reduceTurn, startLiveTurn('', 1)).entries.length, recorded.entries.length);
  });

  test("messages carry their time: the record's ts, live the arrival time, and the records' time once they have the entry", () => {
    const at = (index: number) => `2026-01-02T03:04:${String(index).padStart(2, '0')}.000Z`;
    const stamped = records.map((record, index) => ({ ...record, ts: at(index) }) as SessionRecord);
    const [recorded] = transcriptFromRecords(stamped);
    assert.ok(recorded);
    const opened = stamped.findIndex((record) => record.type === 'turn_started');
    assert.equal(recorded.startedAt, at(opened), "the prompt's time is the turn_started record's");
    const times = (turn: TranscriptTurn) =>
      turn.entries.flatMap((entry) => (entry.kind === 'assistant' || entry.kind === 'user' ? [[entry.key, entry.at ?? null]] : []));
    const finalIndex = stamped.findIndex(
      (record) =>
        record.type === 'response_item' &&
        record.item.type === 'message' &&
        record.item.role === 'assistant' &&
        record.item.runtimeRole === 'final_response',
    );
    assert.deepEqual(times(recorded).at(-1), ['text-1', at(finalIndex)]);

    // Live: the time the page received the event that began the message.
    const live = events.reduce(
      (turn, event, index) => applyRunEvent(turn, event, `2026-01-02T05:00:${String(index).padStart(2, '0')}.000Z`),
      startLiveTurn('Tidy up', 1, null, '2026-01-02T04:59:59.000Z'),
    );
    assert.equal(live.startedAt, '2026-01-02T04:59:59.000Z');
    const firstDelta = events.findIndex((event) => event.type === 'assistant_delta');
    assert.deepEqual(times(live)[0], ['text-0', `2026-01-02T05:00:${String(firstDelta).padStart(2, '0')}.000Z`]);

    // A live copy shown over an unfinished recorded copy takes the records' times where they have the entry.
    const unfinished = transcriptFromRecords(stamped.filter((record) => record.type !== 'turn_completed'));
    const merged = mergeLiveTurn(unfinished, { ...live, runId: recorded.runId, outcome: { status: 'running', phase: 'waiting' } });
    assert.equal(merged[0]!.startedAt, at(opened));
    assert.deepEqual(times(merged[0]!), times(recorded));
  });

  test('text streaming when the run was cancelled is kept as partial (not sent), also once the records win', () => {
    const streaming = replay(events, 4);
    const cancelled = applyRunEvent(streaming, { type: 'run_cancelled', reason: 'stop', usage, rounds: 1 });
    assert.deepEqual(cancelled.entries[0], { kind: 'assistant', key: 'text-0', text: 'Let me look.', role: 'partial' });
    const recordedCancel: SessionRecord[] = [
      ...records.slice(0, 4),
      { type: 'turn_cancelled', ts, turn: 1, runId, usage, rounds: 1, reason: 'stop' },
    ];
    const merged = mergeLiveTurn(transcriptFromRecords(recordedCancel), cancelled);
    const partial = merged[0]!.entries.filter((entry) => entry.kind === 'assistant' && entry.role === 'partial');
    assert.equal(partial.length, 1);
    assert.equal(merged[0]!.outcome.status, 'cancelled');
  });

  test('calls are worded by outcome: only calls that ran are in the past tense', () => {
    const base = { name: 'write_file', arguments: JSON.stringify({ path: 'notes.md', content: 'x' }), started: false };
    assert.equal(phraseText(callPhrase({ ...base, status: 'denied' })), 'Write notes.md — denied');
    assert.equal(phraseText(callPhrase({ ...base, status: 'succeeded', started: true })), 'Wrote notes.md');
    assert.equal(
      phraseText(callPhrase({ name: 'shell', arguments: '{"command":"touch a"}', status: 'awaiting_approval', started: false })),
      'Run `touch a` — awaiting approval',
    );
    assert.equal(
      phraseText(callPhrase({ name: 'shell', arguments: '{"command":"sleep 9"}', status: 'cancelled', started: false })),
      'Run `sleep 9` — not run (cancelled)',
    );
  });
});

describe('approval previews', () => {
  test('paths relative to the project; edit as a diff; patch hunks; write as new content', () => {
    assert.equal(projectRelative('/work/p/src/a.ts', '/work/p'), 'src/a.ts');
    assert.equal(projectRelative('./a.ts', '/work/p'), 'a.ts');
    const edit = approvalPreview(
      'edit_file',
      JSON.stringify({ path: '/work/p/a.txt', old_string: 'one\ntwo\n', new_string: 'one\n2\n' }),
      '/work/p',
    );
    assert.deepEqual(edit?.paths, ['a.txt']);
    // The model's own text, old then new: the arguments alone (the server's dry run diffs the file).
    assert.deepEqual(edit?.lines, [
      { kind: 'del', text: 'one' },
      { kind: 'del', text: 'two' },
      { kind: 'add', text: 'one' },
      { kind: 'add', text: '2' },
    ]);
    const write = approvalPreview('write_file', JSON.stringify({ path: 'notes.md', content: '# Notes\nhi\n' }), '/work/p');
    assert.deepEqual(
      write?.lines.map((line) => line.kind),
      ['add', 'add'],
    );
    const patch = approvalPreview(
      'apply_patch',
      JSON.stringify({ patch: '*** Begin Patch\n*** Update File: /work/p/b.ts\n@@\n-x\n+y\n*** End Patch' }),
      '/work/p',
    );
    assert.deepEqual(patch?.paths, ['b.ts']);
    assert.deepEqual(
      patch?.lines.map((line) => line.kind),
      ['file', 'hunk', 'del', 'add'],
    );
    assert.equal(approvalPreview('shell', '{"command":"ls"}', '/work/p'), null);
  });
});

describe('routes', () => {
  const id = '01977a1e-3c1f-7a42-9d1e-5c3b2a1f0e9d';
  test('session, tab and call round-trip through the address', () => {
    for (const route of [
      { sessionId: null, tab: 'debug', call: null },
      { sessionId: id, tab: 'debug', call: null },
      { sessionId: id, tab: 'audit', call: null },
      { sessionId: id, tab: 'debug', call: 4 },
    ] as const) {
      const url = new URL(routeUrl(route), 'http://x');
      assert.deepEqual(parseRoute(url.pathname, url.search), route);
    }
    assert.equal(routeUrl({ sessionId: id, tab: 'debug', call: 0 }), `/sessions/${id}/calls/1`);
    assert.equal(parseRoute('/sessions/../../etc', '').sessionId, null);
  });
});

describe('trace rows', () => {
  const call = (index: number, turn: number, tools: string[], carried: string[] = [], extra: Partial<TraceCall> = {}): TraceCall => ({
    index,
    turn,
    round: index + 1,
    stage: 'turn',
    usage: { inputTokens: 1000, cachedInputTokens: 400, outputTokens: 100, reasoningTokens: 0, totalTokens: 1100, raw: null },
    durationMs: 10,
    finishReason: tools.length > 0 ? 'tool_calls' : 'stop',
    error: null,
    contextTokens: 1100,
    model: 'm',
    costUsd: 0.002,
    priceKnown: true,
    origin: 's',
    inherited: false,
    historyItems: 3,
    newItems: 1,
    droppedItems: 0,
    carriedOutputs: carried.map((callId) => ({ callId, name: 'shell', isError: false })),
    response: {
      text: '',
      reasoningItems: 0,
      toolCalls: tools.map((callId) => ({ callId, name: callId === 'c2' ? 'shell' : 'read_file', arguments: '{}' })),
    },
    request: null,
    requestError: null,
    ...extra,
  });
  const calls = [call(0, 1, ['c1', 'c2']), call(1, 1, [], ['c1', 'c2']), call(2, 2, [], [], { costUsd: null, priceKnown: false })];

  test('a tool call links to the request that carried its output; turns total tokens and price', () => {
    assert.deepEqual(
      [...carriers(calls)],
      [
        ['c1', 1],
        ['c2', 1],
      ],
    );
    const decisions = toolDecisions(records);
    const rows = traceRows(calls, decisions, NO_FILTERS);
    assert.deepEqual(
      rows.map((row) => row.kind),
      ['turn', 'call', 'tool', 'tool', 'call', 'turn', 'call'],
    );
    const first = rows[0]!;
    assert.ok(first.kind === 'turn');
    assert.equal(first.total.inputTokens, 2000);
    assert.equal(first.total.costUsd, 0.004);
    const second = rows[5]!;
    assert.ok(second.kind === 'turn' && second.total.costUsd === null && second.total.unpriced === 1);
    const tool = rows[3]!;
    assert.ok(tool.kind === 'tool' && tool.carriedBy === 1 && tool.decision === 'denied');
  });

  test('filters: denials, tool, stage', () => {
    const decisions = toolDecisions(records);
    assert.deepEqual(traceRows(calls, decisions, { ...NO_FILTERS, deniedOnly: true }).filter((row) => row.kind === 'call').length, 1);
    assert.deepEqual(traceRows(calls, decisions, { ...NO_FILTERS, tool: 'shell' }).filter((row) => row.kind === 'call').length, 1);
    assert.equal(traceRows(calls, decisions, { ...NO_FILTERS, stage: 'compaction' }).length, 0);
  });

  test('consecutive requests: unchanged prefix, added, and what a compaction replaced', () => {
    assert.deepEqual(requestDiff(['s', 'u', 'a'], ['s', 'u', 'a', 't', 'b']), { unchanged: 3, removed: [], added: ['t', 'b'] });
    assert.deepEqual(requestDiff(['s', 'u', 'a', 't'], ['s', 'summary']), { unchanged: 1, removed: ['u', 'a', 't'], added: ['summary'] });
  });

  test('sessions group by date; prices read at their size', () => {
    const now = Date.parse('2026-03-10T12:00:00');
    const at = (iso: string) => ({
      sessionId: iso,
      createdAt: iso,
      updatedAt: iso,
      title: '',
      cwd: '',
      model: '',
      wireApi: 'chat' as const,
      turns: 1,
      totalTokens: 0,
      parent: null,
    });
    const groups = groupSessions(
      [at('2026-03-10T09:00:00'), at('2026-03-09T09:00:00'), at('2026-03-06T09:00:00'), at('2026-01-02T09:00:00')],
      now,
    );
    assert.deepEqual(
      groups.map((group) => group.label),
      ['Today', 'Yesterday', 'This week', 'January 2026'],
    );
    assert.deepEqual([0.0042, 0.31, 12.4].map(formatUsd), ['$0.0042', '$0.310', '$12.40']);
  });

  test('message times: the clock on the same day, the date before, nothing for a non-time', () => {
    const local = (y: number, mo: number, d: number, h: number, mi: number, se: number) => new Date(y, mo, d, h, mi, se).getTime();
    const now = local(2026, 11, 1, 18, 0, 0);
    assert.equal(formatClock(new Date(local(2026, 11, 1, 9, 5, 7)).toISOString(), now), '09:05:07');
    assert.equal(formatClock(new Date(local(2026, 10, 30, 23, 59, 1)).toISOString(), now), '30 Nov 23:59');
    assert.equal(formatClock(new Date(local(2025, 0, 2, 3, 4, 5)).toISOString(), now), '2 Jan 2025 03:04');
    assert.equal(formatClock('not a time', now), '');
  });
});

describe('stream retry in the workbench', () => {
  test('the streamed text of a cut round is replaced by a notice, and the retried round streams anew', () => {
    const events: RunEvent[] = [
      { type: 'model_requested', round: 1, stage: 'turn', messageCount: 2, toolCount: 0 },
      { type: 'reasoning_delta', round: 1, delta: 'thinking' },
      { type: 'assistant_delta', round: 1, delta: 'Foo' },
      {
        type: 'stream_retry',
        round: 1,
        attempt: 1,
        maxAttempts: 3,
        delayMs: 500,
        discardedChars: 11,
        error: { code: 'STREAM_INTERRUPTED', message: 'The stream ended before the model finished.' },
      },
      { type: 'model_requested', round: 1, stage: 'turn', messageCount: 2, toolCount: 0 },
      { type: 'assistant_delta', round: 1, delta: 'Foo!' },
    ];
    const turn = events.reduce((state, event) => applyRunEvent(state, event), startLiveTurn('Say foo', 1));
    assert.deepEqual(
      turn.entries.map((entry) =>
        entry.kind === 'notice' ? `notice:${entry.title}` : `${entry.kind}:${'text' in entry ? entry.text : ''}`,
      ),
      ['notice:Retrying (stream interrupted) 1/3', 'assistant:Foo!'],
    );
  });
});

describe('what became of tool outputs no request carried', () => {
  test('pending while the turn runs; compacted after a compaction; ended once its turn ended', () => {
    const ts = '2026-01-01T00:00:00.000Z';
    const output = (callId: string, turn: number) =>
      ({ type: 'response_item', ts, turn, item: { type: 'function_call_output', callId, output: 'x', isError: false } }) as SessionRecord;
    const usage = { total: { inputTokens: 0, outputTokens: 0, totalTokens: 0 }, byStage: {}, calls: 0 };
    const history = [
      output('a', 1),
      { type: 'compaction', ts, turn: 1 } as unknown as SessionRecord,
      output('b', 1),
      {
        type: 'turn_failed',
        ts,
        turn: 1,
        runId: 'r',
        usage,
        rounds: 1,
        error: { code: 'MAX_ROUNDS_REACHED', message: 'm' },
      } as unknown as SessionRecord,
      output('c', 2),
    ];
    assert.deepEqual(
      [...outputFates(history)],
      [
        ['a', 'compacted'],
        ['b', 'ended'],
        ['c', 'pending'],
      ],
    );
  });
});
