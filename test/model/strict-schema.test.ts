import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import {
  isModelError,
  jsonNestsDeeperThan,
  MAX_JSON_DEPTH,
  parseToolArguments,
  StrictSchemaError,
  stripStrictNulls,
  toStrictJsonSchema,
  ToolArgumentsError,
  wireParameters,
  type JsonSchema,
} from '../../src/model/index.js';

function schemaOf(type: z.ZodType): JsonSchema {
  const schema = z.toJSONSchema(type, { io: 'input', target: 'draft-7' }) as JsonSchema;
  delete schema.$schema;
  return schema;
}

describe('toStrictJsonSchema', () => {
  it('requires every property, makes optional ones nullable and closes the object', () => {
    const original = schemaOf(z.object({ path: z.string(), limit: z.number().int().optional() }));
    const strict = toStrictJsonSchema(original);
    assert.deepEqual(strict.required, ['path', 'limit']);
    assert.equal(strict.additionalProperties, false);
    const properties = strict.properties as Record<string, JsonSchema>;
    assert.deepEqual(properties.path, { type: 'string' });
    assert.deepEqual(properties.limit!.type, ['integer', 'null']);
    // The input is left alone.
    assert.deepEqual(original.required, ['path']);
    assert.equal(original.additionalProperties, undefined);
  });

  it('adapts nested objects, array items, unions and $defs recursively', () => {
    const original: JsonSchema = {
      type: 'object',
      properties: {
        nested: {
          type: 'object',
          properties: { a: { type: 'string' }, b: { type: 'number' } },
          required: ['a'],
        },
        list: {
          type: 'array',
          items: { type: 'object', properties: { x: { type: 'string' }, y: { type: 'boolean' } }, required: ['x'] },
        },
        choice: {
          anyOf: [{ type: 'object', properties: { k: { type: 'string' } } }, { type: 'string' }],
        },
        ref: { $ref: '#/$defs/Point' },
      },
      required: ['nested', 'list', 'choice'],
      $defs: {
        Point: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } }, required: ['x'] },
      },
    };
    const strict = toStrictJsonSchema(original);
    const properties = strict.properties as Record<string, JsonSchema>;

    const nested = properties.nested!;
    assert.deepEqual(nested.required, ['a', 'b']);
    assert.equal(nested.additionalProperties, false);
    assert.deepEqual((nested.properties as Record<string, JsonSchema>).b, { type: ['number', 'null'] });

    const items = (properties.list as { items: JsonSchema }).items;
    assert.deepEqual(items.required, ['x', 'y']);
    assert.equal(items.additionalProperties, false);
    assert.deepEqual((items.properties as Record<string, JsonSchema>).y, { type: ['boolean', 'null'] });

    const branch = (properties.choice!.anyOf as JsonSchema[])[0]!;
    assert.deepEqual(branch.required, ['k']);
    assert.deepEqual((branch.properties as Record<string, JsonSchema>).k, { type: ['string', 'null'] });

    // An optional $ref cannot take a type list, so it is wrapped.
    assert.deepEqual(properties.ref, { anyOf: [{ $ref: '#/$defs/Point' }, { type: 'null' }] });
    const point = (strict.$defs as Record<string, JsonSchema>).Point!;
    assert.deepEqual(point.required, ['x', 'y']);
    assert.equal(point.additionalProperties, false);
  });

  it('drops default, adds null to enums, wraps const, turns oneOf into anyOf', () => {
    const original = schemaOf(
      z.object({
        flag: z.boolean().default(false),
        mode: z.enum(['fast', 'slow']).optional(),
        literal: z.literal('only').optional(),
        shape: z.discriminatedUnion('kind', [z.object({ kind: z.literal('circle'), r: z.number() }), z.object({ kind: z.literal('dot') })]),
      }),
    );
    const strict = toStrictJsonSchema(original);
    const properties = strict.properties as Record<string, JsonSchema>;
    assert.deepEqual(properties.flag, { type: ['boolean', 'null'] });
    assert.deepEqual(properties.mode, { type: ['string', 'null'], enum: ['fast', 'slow', null] });
    assert.deepEqual(properties.literal, { anyOf: [{ type: 'string', const: 'only' }, { type: 'null' }] });
    assert.equal(properties.shape!.oneOf, undefined);
    assert.equal((properties.shape!.anyOf as JsonSchema[]).length, 2);
    assert.ok(!JSON.stringify(strict).includes('"default"'));
  });

  it('leaves already-nullable optional properties alone', () => {
    const strict = toStrictJsonSchema(schemaOf(z.object({ note: z.string().nullable().optional() })));
    assert.deepEqual((strict.properties as Record<string, JsonSchema>).note, { type: ['string', 'null'] });
  });

  it('refuses records and non-object roots with an error naming the place', () => {
    assert.throws(
      () => toStrictJsonSchema(schemaOf(z.object({ env: z.record(z.string(), z.string()).optional() }))),
      (error: unknown) => error instanceof StrictSchemaError && /record/.test(error.message) && /\$\.properties\.env/.test(error.message),
    );
    assert.throws(() => toStrictJsonSchema({ type: 'string' }), StrictSchemaError);
  });

  it('wireParameters sends non-strict schemas unchanged and reports strict failures as BAD_REQUEST', () => {
    const parameters = schemaOf(z.object({ a: z.string().optional() }));
    assert.equal(wireParameters({ name: 't', description: '', parameters, strict: false }), parameters);
    assert.throws(
      () => wireParameters({ name: 'bad_tool', description: '', parameters: { type: 'array' }, strict: true }),
      (error: unknown) => isModelError(error) && error.code === 'BAD_REQUEST' && error.message.includes('bad_tool'),
    );
  });
});

describe('stripStrictNulls', () => {
  const tool = z.object({
    path: z.string(),
    limit: z.number().optional(),
    note: z.string().nullable().optional(),
    flag: z.boolean().default(true),
    nested: z.object({ a: z.string(), b: z.number().optional() }).optional(),
    list: z.array(z.object({ x: z.string(), y: z.string().optional() })).optional(),
  });
  const original = schemaOf(tool);

  it('removes nulls only where the original property was optional and not nullable', () => {
    const value = {
      path: 'a.txt',
      limit: null,
      note: null,
      flag: null,
      nested: { a: 'x', b: null },
      list: [
        { x: '1', y: null },
        { x: '2', y: 'z' },
      ],
    };
    const stripped = stripStrictNulls(original, value);
    assert.deepEqual(stripped, {
      path: 'a.txt',
      note: null,
      nested: { a: 'x' },
      list: [{ x: '1' }, { x: '2', y: 'z' }],
    });
    // The tool's own schema now accepts it and applies its default.
    assert.deepEqual(tool.parse(stripped), { ...(stripped as object), flag: true });
  });

  it('keeps a null for a required property so validation reports it', () => {
    const stripped = stripStrictNulls(original, { path: null });
    assert.deepEqual(stripped, { path: null });
    assert.equal(tool.safeParse(stripped).success, false);
  });

  it('follows $ref and picks the matching anyOf branch', () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: {
        p: { $ref: '#/$defs/P' },
        u: { anyOf: [{ type: 'string' }, { type: 'object', properties: { q: { type: 'string' } } }] },
      },
      required: ['p', 'u'],
      $defs: { P: { type: 'object', properties: { x: { type: 'number' } } } },
    };
    assert.deepEqual(stripStrictNulls(schema, { p: { x: null }, u: { q: null } }), { p: {}, u: {} });
    assert.deepEqual(stripStrictNulls(schema, { p: { x: 1 }, u: 'text' }), { p: { x: 1 }, u: 'text' });
  });
});

describe('parseToolArguments', () => {
  const original = schemaOf(z.object({ path: z.string(), limit: z.number().optional() }));

  it('maps strict nulls back only in strict mode', () => {
    assert.deepEqual(parseToolArguments('{"path":"a","limit":null}', original, true), { path: 'a' });
    assert.deepEqual(parseToolArguments('{"path":"a","limit":null}', original, false), { path: 'a', limit: null });
  });

  it('treats an empty argument string as an empty object', () => {
    assert.deepEqual(parseToolArguments('  ', original, false), {});
  });

  it('throws a clear error for invalid JSON and for non-objects', () => {
    assert.throws(
      () => parseToolArguments('{"path": "a",', original, true),
      (error: unknown) =>
        error instanceof ToolArgumentsError && /not valid JSON/.test(error.message) && error.message.includes('{"path": "a",'),
    );
    assert.throws(
      () => parseToolArguments('[1,2]', original, false),
      (error: unknown) => error instanceof ToolArgumentsError && /must be a JSON object, got an array/.test(error.message),
    );
  });
});

describe('jsonNestsDeeperThan', () => {
  /** The oracle: the depth of the value JSON.parse builds, measured without recursion. */
  function parsedDepth(text: string): number {
    let deepest = 0;
    const stack: Array<[unknown, number]> = [[JSON.parse(text), 0]];
    while (stack.length > 0) {
      const [value, depth] = stack.pop()!;
      if (value === null || typeof value !== 'object') continue;
      deepest = Math.max(deepest, depth + 1);
      for (const child of Object.values(value as object)) stack.push([child, depth + 1]);
    }
    return deepest;
  }

  it('agrees with the parsed value for generated texts whose strings hold brackets, quotes and escapes', () => {
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const tricky = ['[', ']', '{', '}', '"', '\\', '\\"', '"]', '\\[', 'x'];
    const value = (depth: number): unknown => {
      if (depth === 0 || random(4) === 0) return Array.from({ length: random(3) }, () => tricky[random(tricky.length)]).join('');
      const children = Array.from({ length: 1 + random(2) }, () => value(depth - 1 - random(2)));
      return random(2) === 0 ? children : Object.fromEntries(children.map((child, i) => [tricky[random(tricky.length)]! + i, child]));
    };
    for (let round = 0; round < 300; round++) {
      const text = JSON.stringify(value(random(12)));
      const depth = parsedDepth(text);
      for (const limit of [0, 1, depth - 1, depth, depth + 1]) {
        if (limit < 0) continue;
        assert.equal(jsonNestsDeeperThan(text, limit), depth > limit, `${text} at limit ${limit} (depth ${depth})`);
      }
    }
  });

  it('makes parseToolArguments refuse arguments nested past the limit, and accept them at it', () => {
    const nested = (depth: number) => `{"a":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
    assert.deepEqual(Object.keys(parseToolArguments(nested(MAX_JSON_DEPTH), { type: 'object' }, false) as object), ['a']);
    assert.throws(
      () => parseToolArguments(nested(100_000), { type: 'object' }, true),
      (error: unknown) => error instanceof ToolArgumentsError && /more than 256 levels deep/.test(error.message),
    );
  });
});
