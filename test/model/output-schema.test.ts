// The local check behind `exec --output-schema`: what it accepts, what it says about what it does
// not, and the strict-mode form the OpenAI wires get.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compileOutputSchema, wireResponseFormat } from '../../src/model/index.js';

const schema = {
  type: 'object',
  properties: { verdict: { type: 'string', enum: ['approve', 'reject'] }, note: { type: 'string' } },
  required: ['verdict'],
  additionalProperties: false,
};

describe('output schema', () => {
  test('accepts a matching answer, also in one code fence, and drops strict mode nulls for absent keys', () => {
    const compiled = compileOutputSchema(schema);
    assert.deepEqual(compiled.check('{"verdict":"approve","note":"fine"}'), { ok: true, value: { verdict: 'approve', note: 'fine' } });
    assert.deepEqual(compiled.check('```json\n{"verdict":"reject"}\n```'), { ok: true, value: { verdict: 'reject' } });
    // Strict mode made `note` required-but-nullable on the wire; null there means "not given".
    assert.deepEqual(compiled.check('{"verdict":"reject","note":null}'), { ok: true, value: { verdict: 'reject' } });
  });

  test('says what is wrong with a mismatch', () => {
    const compiled = compileOutputSchema(schema);
    const notJson = compiled.check('Looks good');
    assert.equal(notJson.ok, false);
    assert.match(notJson.ok ? '' : notJson.error, /not JSON/);
    const wrong = compiled.check('{"verdict":"maybe","extra":1}');
    assert.equal(wrong.ok, false);
    assert.match(wrong.ok ? '' : wrong.error, /Unrecognized key: "extra"[\s\S]*expected one of "approve"\|"reject"[\s\S]*at verdict/);
    const deep = compiled.check(`${'['.repeat(300)}${']'.repeat(300)}`);
    assert.match(deep.ok ? '' : deep.error, /nests deeper/);
  });

  test('refuses what is not a usable schema', () => {
    assert.throws(() => compileOutputSchema([]), /must be a JSON object/);
    assert.throws(() => compileOutputSchema({ type: 'bogus' }), /not a usable JSON Schema: Unsupported type: bogus/);
    assert.throws(() => compileOutputSchema({ $ref: '#/$defs/missing' }), /Reference not found/);
  });

  test('strict on the wire when strict mode can express the schema, as written otherwise', () => {
    const strict = wireResponseFormat(compileOutputSchema(schema).format);
    assert.equal(strict.strict, true);
    assert.deepEqual((strict.schema as { required: string[] }).required, ['verdict', 'note']);
    const open = { type: 'object', additionalProperties: { type: 'number' } };
    const loose = wireResponseFormat(compileOutputSchema(open).format);
    assert.equal(loose.strict, false);
    assert.deepEqual(loose.schema, open);
  });
});
