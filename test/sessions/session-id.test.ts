import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createSessionIdGenerator, isSessionId, newSessionId, sessionIdTimestamp } from '../../src/sessions/index.js';

describe('session ids (UUIDv7)', () => {
  it('have the UUIDv7 layout and carry their creation time', () => {
    const before = Date.now();
    const id = newSessionId();
    const after = Date.now();
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.ok(isSessionId(id));
    const stamp = sessionIdTimestamp(id);
    assert.ok(stamp >= before && stamp <= after + 1, `timestamp ${stamp} outside [${before}, ${after}]`);
  });

  it('sort as strings in creation order, even many per millisecond', () => {
    const generate = createSessionIdGenerator();
    const ids = Array.from({ length: 5000 }, () => generate());
    assert.equal(new Set(ids).size, ids.length);
    for (let index = 1; index < ids.length; index += 1) assert.ok(ids[index - 1]! < ids[index]!, `${ids[index - 1]} !< ${ids[index]}`);
  });

  it('stay increasing when the clock is frozen or steps back', () => {
    const clock = 1_700_000_000_000;
    const times = [clock, clock, clock - 5000, clock - 5000, clock + 1];
    let tick = 0;
    const generate = createSessionIdGenerator({ now: () => times[Math.min(tick++, times.length - 1)]! });
    const ids = Array.from({ length: 10 }, () => generate());
    for (let index = 1; index < ids.length; index += 1) assert.ok(ids[index - 1]! < ids[index]!);
    // A clock that went back does not drag the timestamp with it.
    assert.ok(sessionIdTimestamp(ids[3]!) >= clock);
  });

  it('advance the timestamp when one millisecond runs out of counter values', () => {
    const frozen = 1_700_000_000_000;
    // All-ones entropy seeds the counter as high as allowed, so overflow comes quickly.
    const generate = createSessionIdGenerator({ now: () => frozen, random: (size) => new Uint8Array(size).fill(0xff) });
    const ids = Array.from({ length: 3000 }, () => generate());
    for (let index = 1; index < ids.length; index += 1) assert.ok(ids[index - 1]! < ids[index]!);
    assert.equal(sessionIdTimestamp(ids[0]!), frozen);
    assert.ok(sessionIdTimestamp(ids[ids.length - 1]!) > frozen);
  });

  it('reject clocks outside 48 bits and recognise non-ids', () => {
    assert.throws(() => createSessionIdGenerator({ now: () => -1 })(), RangeError);
    assert.throws(() => createSessionIdGenerator({ now: () => 2 ** 48 })(), RangeError);
    assert.equal(isSessionId('0190a4b2-7c3d-4e5f-8a6b-7c8d9e0f1a2b'), false, 'version 4 nibble');
    assert.equal(isSessionId('../../etc/passwd'), false);
    assert.throws(() => sessionIdTimestamp('nope'), RangeError);
  });
});
