// The trace's cached walk (src/server/trace-scan.ts TraceCache): a listing or search of a session
// that did not change reads no record again; any append to the session or to a fork's parent is
// seen at once; prices are applied per request, not frozen into the cache.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createCallPricer } from '../../src/server/call-pricing.js';
import { TraceCache, traceCalls } from '../../src/server/trace-scan.js';
import { forkSession, MemorySessionStore, type SessionStore } from '../../src/sessions/index.js';
import { appendAll, META, toolTurn } from '../sessions/session-fixtures.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/** The store, counting the records its scans hand out. */
function countingStore(): { store: SessionStore; scanned: () => number } {
  const inner = new MemorySessionStore();
  let records = 0;
  const store = new Proxy(inner, {
    get(target, key, receiver) {
      if (key === 'scan')
        return (sessionId: string, onRecord: Parameters<SessionStore['scan']>[1], options?: Parameters<SessionStore['scan']>[2]) =>
          target.scan(
            sessionId,
            (record, line) => {
              records += 1;
              onRecord(record, line);
            },
            options,
          );
      const value: unknown = Reflect.get(target, key, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store, scanned: () => records };
}

const options = { offset: 0, limit: null, payloads: false, query: null };

describe('TraceCache', () => {
  test('lists and searches an unchanged session from one walk; an append is seen at once', async () => {
    const { store, scanned } = countingStore();
    const writer = await store.create(META);
    await appendAll(writer, toolTurn(1, 'first'));
    const pricer = await createCallPricer(await makeTempDir());
    const cache = new TraceCache();

    const first = await traceCalls(store, writer.sessionId, [], pricer, options, cache);
    assert.equal(first.total, 3);
    const afterFirst = scanned();
    assert.ok(afterFirst > 0);
    const again = await traceCalls(store, writer.sessionId, [], pricer, options, cache);
    const searched = await traceCalls(store, writer.sessionId, [], pricer, { ...options, query: 'ANSWER 1' }, cache);
    assert.equal(scanned(), afterFirst, 'no record read again');
    assert.deepEqual(again, first);
    assert.deepEqual(
      searched.calls.map((call) => call.index),
      [2],
    );

    await appendAll(writer, toolTurn(2, 'second'));
    const grown = await traceCalls(store, writer.sessionId, [], pricer, { ...options, query: 'answer 2' }, cache);
    assert.deepEqual(
      grown.calls.map((call) => [call.index, call.turn]),
      [[5, 2]],
    );
    assert.equal((await traceCalls(store, writer.sessionId, [], pricer, options, cache)).total, 6);
    // The same listing without the cache: equal, call for call.
    assert.deepEqual(
      await traceCalls(store, writer.sessionId, [], pricer, options, cache),
      await traceCalls(store, writer.sessionId, [], pricer, options),
    );
    await writer.close();
  });

  test("a fork's listing sees its parent's new records; prices follow the pricer of each request", async () => {
    const { store, scanned } = countingStore();
    const writer = await store.create(META);
    await appendAll(writer, toolTurn(1, 'first'));
    await writer.close();
    const fork = await forkSession(store, writer.sessionId, { atTurn: 1, glassboxVersion: '0.1.0' });
    const cache = new TraceCache();
    const free = async () => (_model: string) => ({ costUsd: 0, priceKnown: true });
    const dear = async () => (_model: string) => ({ costUsd: 2, priceKnown: true });

    const before = await traceCalls(store, fork, [], await free(), options, cache);
    assert.deepEqual(
      before.calls.map((call) => [call.inherited, call.costUsd]),
      [
        [true, 0],
        [true, 0],
        [true, 0],
      ],
    );
    const repriced = await traceCalls(store, fork, [], await dear(), options, cache);
    assert.deepEqual(
      repriced.calls.map((call) => call.costUsd),
      [2, 2, 2],
    );

    // The fork reads its parent up to turn 1; a parent that changed is read again all the same
    // (its revision is part of the key), and what the fork shows stays its own lineage.
    const read = scanned();
    await traceCalls(store, fork, [], await free(), options, cache);
    assert.equal(scanned(), read, 'unchanged: not walked again');
    const parent = await store.openForAppend(writer.sessionId);
    await appendAll(parent, toolTurn(2, 'parent only'));
    await parent.close();
    await traceCalls(store, fork, [], await free(), options, cache);
    assert.ok(scanned() > read, "the parent's append makes the fork's listing walk again");
    const own = await store.openForAppend(fork);
    await appendAll(own, toolTurn(2, 'fork only'));
    await own.close();
    const after = await traceCalls(store, fork, [], await free(), { ...options, query: 'fork only' }, cache);
    assert.deepEqual(
      after.calls.map((call) => [call.index, call.inherited]),
      [[3, false]],
    );
    assert.equal((await traceCalls(store, fork, [], await free(), { ...options, query: 'parent only' }, cache)).total, 0);
  });
});
