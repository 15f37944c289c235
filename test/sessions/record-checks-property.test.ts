// The fast checks of the frequent records (record-fast-checks.ts) must accept exactly what the
// zod schemas of the format (protocol/session-records.ts) accept. Checked on arbitrary records that went
// through JSON, as a session file's lines do: valid ones with fields a newer writer might add, and
// the same records broken (a field dropped or given another JSON value, nested ones included).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseSessionRecord, SESSION_RECORD_TYPES } from '../../src/sessions/index.js';
import { RECORD_SCHEMAS } from '../../src/protocol/index.js';

const SEED = Number(process.env.GLASSBOX_FUZZ_SEED ?? 20261201);
const schemas = new Map<string, { safeParse(value: unknown): { success: boolean } }>(Object.entries(RECORD_SCHEMAS));

/** What the zod schema of the value's type alone says, in parseSessionRecord's terms. */
function schemaVerdict(value: unknown): 'record' | 'unknown' | 'invalid' {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'invalid';
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string' || type === '') return 'invalid';
  const schema = schemas.get(type);
  if (schema === undefined) return 'unknown';
  return schema.safeParse(value).success ? 'record' : 'invalid';
}

// Numbers at the edges the two must treat alike: negative zero, fractions, the last safe integer
// and the first unsafe ones, huge doubles.
const edgeNumber = fc.constantFrom(0, -0, 1, -1, 0.5, 2 ** 53 - 1, 2 ** 53, 2 ** 60, 1e21, 1e308, -1e308);
const anyNumber = fc.oneof(edgeNumber, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }));
const count = fc.oneof(fc.nat(), fc.constant(Number.MAX_SAFE_INTEGER));
const turn = fc.oneof(fc.integer({ min: 1, max: 1_000 }), fc.constant(Number.MAX_SAFE_INTEGER));
const amount = fc.oneof(fc.nat(), fc.double({ min: 0, max: 1e15, noNaN: true }), fc.constant(0));
const text = fc.string({ maxLength: 12 });
const wireApi = fc.constantFrom('chat', 'responses', 'anthropic');
/** Keys a newer writer might add, and names that would reach Object.prototype through a plain lookup. */
const extraKey = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('__proto__', 'constructor', 'toString', 'raw', 'type'));
const extras = fc.dictionary(extraKey, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 });
const jsonObject = fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });

function withExtras<T>(arbitrary: fc.Arbitrary<T>, chance: number): fc.Arbitrary<T> {
  return fc
    .tuple(arbitrary, fc.option(extras, { freq: chance }))
    .map(([value, added]) => (added === null ? value : { ...added, ...value }));
}

const usage = withExtras(
  fc.record(
    {
      inputTokens: amount,
      cachedInputTokens: fc.option(amount),
      cacheWriteInputTokens: amount,
      outputTokens: amount,
      reasoningTokens: amount,
      totalTokens: amount,
      raw: fc.jsonValue({ maxDepth: 2 }),
    },
    { requiredKeys: ['inputTokens', 'cachedInputTokens', 'outputTokens', 'reasoningTokens', 'totalTokens', 'raw'] },
  ),
  3,
);

const item = withExtras(
  fc.oneof(
    fc.record({ type: fc.constant('message'), role: fc.constantFrom('system', 'user'), content: text }),
    fc.record({
      type: fc.constant('message'),
      role: fc.constant('assistant'),
      content: text,
      runtimeRole: fc.constantFrom('working_message', 'final_response'),
    }),
    fc.record({ type: fc.constant('reasoning'), format: wireApi, text, state: fc.option(jsonObject) }),
    fc.record(
      {
        type: fc.constant('function_call'),
        callId: text,
        name: text,
        arguments: text,
        providerCallId: text,
        providerFields: fc.record({ format: wireApi, fields: jsonObject }),
      },
      { requiredKeys: ['type', 'callId', 'name', 'arguments'] },
    ),
    fc.record({ type: fc.constant('function_call_output'), callId: text, name: text, output: text, isError: fc.boolean() }),
    fc.record({ type: fc.constant('compaction_summary'), compactionId: text, summary: text }),
  ),
  3,
);

const event = withExtras(
  fc.oneof(
    fc.record({
      type: fc.constant('tool_permission_decided'),
      callId: text,
      name: text,
      decision: fc.constantFrom('allow', 'ask', 'deny'),
      reason: text,
      rule: text,
    }),
    fc.record({ type: fc.constant('approval_requested'), callId: text, name: text, summary: text, reason: text, arguments: text }),
    fc.record({
      type: fc.constant('approval_resolved'),
      callId: text,
      name: text,
      decision: fc.constantFrom('approve', 'approve_session', 'deny'),
      by: text,
      message: fc.option(text),
    }),
    fc.record({ type: fc.constant('tool_started'), callId: text, name: text }),
    fc.record({ type: fc.constant('tool_finished'), callId: text, name: text, isError: fc.boolean(), durationMs: amount }),
  ),
  3,
);

const ts = fc.constantFrom('2026-12-01T09:00:00.000Z', '');
const frequentRecord = withExtras(
  fc.oneof(
    fc.record(
      { type: fc.constant('response_item'), ts, turn, item, repaired: fc.constant(true) },
      { requiredKeys: ['type', 'ts', 'turn', 'item'] },
    ),
    fc.record({
      type: fc.constant('model_call'),
      ts,
      turn,
      round: count,
      stage: fc.constantFrom('turn', 'compaction'),
      usage: fc.option(usage),
      durationMs: amount,
      finishReason: fc.option(fc.constantFrom('stop', 'tool_calls')),
      error: fc.option(fc.record({ code: text, message: text })),
    }),
    fc.record({ type: fc.constant('audit'), ts, turn, event }),
  ),
  4,
);

/** Every path to a value in `value` (objects only; arrays are leaves), the root excluded. */
function paths(value: unknown, prefix: string[] = []): string[][] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  return Object.keys(value).flatMap((key) => [[...prefix, key], ...paths((value as Record<string, unknown>)[key], [...prefix, key])]);
}

function replaceAt(root: Record<string, unknown>, path: string[], replacement: unknown): void {
  let target = root;
  for (const key of path.slice(0, -1)) target = target[key] as Record<string, unknown>;
  const last = path[path.length - 1] as string;
  if (replacement === undefined) delete target[last];
  else target[last] = replacement;
}

// Values a broken record may hold instead: wrong types, edge numbers, similar-looking strings,
// nothing at all (the field dropped).
const replacement = fc.oneof(
  fc.constant(undefined),
  anyNumber,
  fc.constantFrom(null, true, false, '', 'message', 'assistant', 'function_call', 'audit', 'tool_finished', 'turn', 'stop', 'chat', [], {}),
  fc.jsonValue({ maxDepth: 2 }),
);

const brokenRecord = fc
  .tuple(frequentRecord, fc.array(fc.tuple(fc.nat(), replacement), { minLength: 1, maxLength: 3 }))
  .map(([record, edits]) => {
    const copy = structuredClone(record) as Record<string, unknown>;
    for (const [pick, value] of edits) {
      const all = paths(copy);
      if (all.length === 0) break;
      replaceAt(copy, all[pick % all.length] as string[], value);
    }
    return copy;
  });

/** As a session line holds it: JSON.parse gives own `__proto__` keys and no undefined fields. */
const throughJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

function agree(value: unknown, seen: Record<string, number>): boolean {
  const line = throughJson(value);
  const fast = parseSessionRecord(line).kind;
  const schema = schemaVerdict(line);
  seen[schema] = (seen[schema] ?? 0) + 1;
  if (fast !== schema) throw new Error(`fast check says ${fast}, schema says ${schema}: ${JSON.stringify(line)}`);
  return true;
}

describe('session record fast checks', () => {
  it('accept exactly what the zod schemas accept, on valid records with added fields', () => {
    const seen: Record<string, number> = {};
    fc.assert(
      fc.property(frequentRecord, (record) => agree(record, seen)),
      { numRuns: 3_000, seed: SEED },
    );
    // The empty `ts` and the extras keep every one valid: nothing here should be refused.
    assert.deepEqual(Object.keys(seen), ['record']);
  });

  it('accept exactly what the zod schemas accept, on records broken anywhere', () => {
    const seen: Record<string, number> = {};
    fc.assert(
      fc.property(brokenRecord, (record) => agree(record, seen)),
      { numRuns: 10_000, seed: SEED + 1 },
    );
    // Not vacuous: both verdicts occur often.
    assert.ok((seen.record ?? 0) > 500 && (seen.invalid ?? 0) > 3_000, JSON.stringify(seen));
  });

  it('accept exactly what the zod schemas accept, on arbitrary JSON given a record type', () => {
    const typed = fc
      .tuple(fc.constantFrom(...SESSION_RECORD_TYPES, 'constructor', '__proto__', ''), fc.jsonValue({ maxDepth: 3 }))
      .map(([type, value]) => (typeof value === 'object' && value !== null && !Array.isArray(value) ? { ...value, type } : value));
    fc.assert(
      fc.property(typed, (value) => agree(value, {})),
      { numRuns: 3_000, seed: SEED + 2 },
    );
  });

  it('cover every record type of the format', () => {
    assert.deepEqual([...SESSION_RECORD_TYPES].sort(), Object.keys(RECORD_SCHEMAS).sort());
    for (const type of ['response_item', 'model_call', 'audit']) assert.ok(SESSION_RECORD_TYPES.includes(type as never), type);
  });
});
