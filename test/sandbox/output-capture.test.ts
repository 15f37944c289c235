import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { OutputCapture, formatOmission } from '../../src/sandbox/index.js';

function countNewlines(text: string): number {
  return text.split('\n').length - 1;
}

test('short output is kept whole', () => {
  const capture = new OutputCapture(100);
  capture.append('hello\n');
  capture.append('world\n');
  assert.deepEqual(capture.result(), { text: 'hello\nworld\n', totalChars: 12, omittedChars: 0, omittedLines: 0 });
});

test('long output keeps head and tail with an exact marker', () => {
  const lines = Array.from({ length: 1000 }, (_, i) => `line ${i}\n`);
  const full = lines.join('');
  const capture = new OutputCapture(200);
  for (const line of lines) capture.append(line);
  const result = capture.result();
  const omitted = full.slice(100, full.length - 100);
  assert.equal(result.omittedChars, omitted.length);
  assert.equal(result.omittedLines, countNewlines(omitted));
  assert.ok(result.text.startsWith(full.slice(0, 100)));
  assert.ok(result.text.endsWith(full.slice(-100)));
  assert.ok(result.text.includes(formatOmission(omitted.length, countNewlines(omitted))));
});

test('rejects a nonsensical limit', () => {
  assert.throws(() => new OutputCapture(1), /Output limit/);
  assert.throws(() => new OutputCapture(2.5), /Output limit/);
});

test('any chunking keeps the same head, tail and counts', () => {
  fc.assert(
    fc.property(
      fc.array(fc.string({ unit: 'grapheme-ascii', maxLength: 40 }), { maxLength: 60 }),
      fc.integer({ min: 2, max: 120 }),
      (chunks, limit) => {
        const full = chunks.join('');
        const capture = new OutputCapture(limit);
        for (const chunk of chunks) capture.append(chunk);
        const result = capture.result();
        assert.equal(result.totalChars, full.length);
        if (full.length <= limit) {
          assert.equal(result.text, full);
          return;
        }
        const headLength = Math.floor(limit / 2);
        const tailLength = limit - headLength;
        const omitted = full.slice(headLength, full.length - tailLength);
        assert.equal(result.omittedChars, omitted.length);
        assert.equal(result.omittedLines, countNewlines(omitted));
        assert.ok(result.text.startsWith(full.slice(0, headLength)));
        assert.ok(result.text.endsWith(full.slice(full.length - tailLength)));
      },
    ),
  );
});

test('never splits a surrogate pair', () => {
  const capture = new OutputCapture(10);
  for (let i = 0; i < 20; i += 1) capture.append('a😀');
  const text = capture.result().text;
  assert.ok(!/[\ud800-\udbff](?![\udc00-\udfff])/.test(text), 'no lone high surrogate');
  assert.ok(!/(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text), 'no lone low surrogate');
});
