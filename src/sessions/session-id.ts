// Session ids are UUIDv7 (RFC 9562): a 48-bit millisecond timestamp first, so ids sort by creation
// time as plain strings and file listings come out in order without reading anything.

import { randomBytes } from 'node:crypto';

const SESSION_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const MAX_TIMESTAMP = 2 ** 48 - 1;
const COUNTER_MAX = 0xfff;
/** Seeds leave the top counter bit clear so a burst in one millisecond has room to count up. */
const COUNTER_SEED_MASK = 0x7ff;

export interface SessionIdGeneratorOptions {
  /** Milliseconds since the epoch; injected by tests to freeze or rewind the clock. */
  now?: () => number;
  random?: (size: number) => Uint8Array;
}

/**
 * A generator of strictly increasing UUIDv7 strings. Within one millisecond (or when the clock
 * steps back) the 12-bit `rand_a` field works as a counter (RFC 9562, method 1), and when it
 * overflows the timestamp is advanced by one, so every id is greater than the one before.
 */
export function createSessionIdGenerator(options: SessionIdGeneratorOptions = {}): () => string {
  const now = options.now ?? Date.now;
  const random = options.random ?? ((size: number) => randomBytes(size));
  let lastMs = -1;
  let counter = 0;

  return () => {
    const clock = now();
    if (!Number.isInteger(clock) || clock < 0 || clock > MAX_TIMESTAMP) {
      throw new RangeError(`UUIDv7 needs a millisecond timestamp between 0 and 2^48-1, got ${clock}`);
    }
    const entropy = random(10);
    if (entropy.length < 10) throw new RangeError('the random source returned fewer than 10 bytes');
    const seed = ((entropy[0]! << 8) | entropy[1]!) & COUNTER_SEED_MASK;
    if (clock > lastMs) {
      lastMs = clock;
      counter = seed;
    } else if (counter < COUNTER_MAX) {
      counter += 1;
    } else {
      lastMs += 1;
      counter = seed;
    }

    const bytes = new Uint8Array(16);
    let ms = lastMs;
    for (let index = 5; index >= 0; index -= 1) {
      bytes[index] = ms % 256;
      ms = Math.floor(ms / 256);
    }
    bytes[6] = 0x70 | (counter >> 8);
    bytes[7] = counter & 0xff;
    bytes[8] = 0x80 | (entropy[2]! & 0x3f);
    bytes.set(entropy.subarray(3, 10), 9);
    return formatUuid(bytes);
  };
}

function formatUuid(bytes: Uint8Array): string {
  const hex = Buffer.from(bytes).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const defaultGenerator = createSessionIdGenerator();

/** A new session id from the process-wide generator (monotonic within this process). */
export function newSessionId(): string {
  return defaultGenerator();
}

/** True for a lowercase UUIDv7 string, the only shape a session id (and so a file name) may take. */
export function isSessionId(value: string): boolean {
  return SESSION_ID_PATTERN.test(value);
}

/** The creation time encoded in a session id, in milliseconds since the epoch. */
export function sessionIdTimestamp(sessionId: string): number {
  if (!isSessionId(sessionId)) throw new RangeError(`not a session id: ${sessionId}`);
  return Number.parseInt(sessionId.slice(0, 8) + sessionId.slice(9, 13), 16);
}
