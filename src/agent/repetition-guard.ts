// Models sometimes repeat the same call forever. We count identical (name, canonical args, output)
// triples: the third time the model is told it is looping, the fifth time the run fails. Outputs
// are kept as digests: a key holding the output itself kept a copy of every distinct tool output
// of the run (the key is flattened to be hashed), as much memory again as the history's outputs.

import { createHash } from 'node:crypto';
import { jsonNestsDeeperThan } from '../model/index.js';

export const REPETITION_WARN_AT = 3;
export const REPETITION_FAIL_AT = 5;

export type RepetitionVerdict = { kind: 'ok' } | { kind: 'warn'; count: number } | { kind: 'fail'; count: number };

/** JSON with object keys sorted, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are the same call. */
export function canonicalJson(raw: string): string {
  // Sorting recurses: a text nested deeper than any tool accepts is compared as written.
  if (jsonNestsDeeperThan(raw)) return raw.trim();
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return raw.trim();
  }
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value as Record<string, unknown>)
        .sort()
        .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

export class RepetitionGuard {
  private readonly counts = new Map<string, number>();

  record(name: string, rawArguments: string, output: string): RepetitionVerdict {
    const key = createHash('sha256')
      .update(name)
      .update('\u0000')
      .update(canonicalJson(rawArguments))
      .update('\u0000')
      .update(output)
      .digest('base64');
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    if (count >= REPETITION_FAIL_AT) return { kind: 'fail', count };
    if (count >= REPETITION_WARN_AT) return { kind: 'warn', count };
    return { kind: 'ok' };
  }
}

export function loopingNotice(count: number): string {
  return `\n\n[Glassbox: this is the ${count}th identical call with an identical result. You are looping. Do not repeat it; use the result above, try a different approach, or give your answer. At ${REPETITION_FAIL_AT} identical calls the run is stopped.]`;
}
