// The repetition guard counts identical (name, arguments, output) calls; it keeps a digest of each,
// never the output itself (a key holding the output kept a copy of every distinct tool output of
// the run: as much memory again as the history's outputs).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { REPETITION_FAIL_AT, REPETITION_WARN_AT, RepetitionGuard } from '../../src/agent/repetition-guard.js';

test('identical calls warn, then fail; arguments compare in any key order; another output is another call', () => {
  const guard = new RepetitionGuard();
  const verdicts = Array.from(
    { length: REPETITION_FAIL_AT },
    (_, index) => guard.record('read_file', index % 2 ? '{"b":2,"a":1}' : '{"a":1,"b":2}', 'same output').kind,
  );
  assert.equal(verdicts.indexOf('warn'), REPETITION_WARN_AT - 1);
  assert.equal(verdicts.at(-1), 'fail');
  assert.equal(guard.record('read_file', '{"a":1,"b":2}', 'another output').kind, 'ok');
  assert.equal(guard.record('grep', '{"a":1,"b":2}', 'same output').kind, 'ok');
});

test('what it keeps per call is small whatever the output', () => {
  const guard = new RepetitionGuard();
  for (let index = 0; index < 20; index += 1) guard.record('read_file', `{"path":"f${index}"}`, `${index}`.repeat(200_000));
  const counts = (guard as unknown as { counts: Map<string, number> }).counts;
  assert.equal(counts.size, 20);
  for (const key of counts.keys()) assert.ok(key.length <= 64, `a key of ${key.length} characters`);
});
