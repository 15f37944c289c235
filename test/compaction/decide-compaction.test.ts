import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decideCompaction, MIN_COMPACTABLE_ITEMS } from '../../src/compaction/index.js';

describe('Decision (pure)', () => {
  test('no usage data and no estimate possible: does not compact', () => {
    const decision = decideCompaction({ tokens: null, threshold: 8000, historyLength: 40, estimated: false });
    assert.equal(decision.compact, false);
    assert.match(decision.reason, /no estimate/);
  });

  test('count below threshold: does not compact, and says by how much', () => {
    const decision = decideCompaction({ tokens: 7999, threshold: 8000, historyLength: 40, estimated: false });
    assert.equal(decision.compact, false);
    assert.match(decision.reason, /7999 is below the compaction threshold 8000/);
  });

  test('fewer than 4 history items: does not compact even far over the threshold', () => {
    assert.equal(MIN_COMPACTABLE_ITEMS, 4);
    for (const historyLength of [0, 1, 2, 3]) {
      const decision = decideCompaction({ tokens: 50_000, threshold: 8000, historyLength, estimated: false });
      assert.equal(decision.compact, false, `length ${historyLength}`);
      assert.match(decision.reason, /nothing worth compacting/);
    }
  });

  test('otherwise compacts, with a reason carrying the actual count and the threshold', () => {
    const decision = decideCompaction({ tokens: 8000, threshold: 8000, historyLength: 4, estimated: false });
    assert.equal(decision.compact, true);
    assert.equal(decision.reason, 'Reported token usage 8000 reached the compaction threshold 8000.');
    assert.equal(decision.compact && decision.tokens, 8000);
    assert.equal(decision.compact && decision.estimated, false);
  });

  test('an estimated count compacts too, and says it was estimated', () => {
    const decision = decideCompaction({ tokens: 9123, threshold: 8000, historyLength: 10, estimated: true });
    assert.equal(decision.compact, true);
    assert.equal(decision.compact && decision.estimated, true);
    assert.equal(decision.reason, 'Estimated token count 9123 reached the compaction threshold 8000.');
  });

  test('the unknown-size check comes before the length check', () => {
    const decision = decideCompaction({ tokens: null, threshold: 1, historyLength: 1, estimated: false });
    assert.match(decision.reason, /unknown/);
  });
});
