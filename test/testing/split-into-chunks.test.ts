// The fake provider cuts streamed text into deltas of `chunkSize` code points. The split walks the
// string (answers of several MiB are streamed); here it is held to the obvious definition, a
// spread into code points, on strings full of surrogate pairs and lone surrogates.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { splitIntoChunks } from '../../src/testing/scripted-turn.js';

function byCodePoints(text: string, size: number): string[] {
  const codePoints = Array.from(text);
  const chunks: string[] = [];
  for (let i = 0; i < codePoints.length; i += size) chunks.push(codePoints.slice(i, i + size).join(''));
  return chunks;
}

const unit = fc.oneof(
  fc.constantFrom('a', 'é', '\n', '😀', '𝄞', '\uD83D', '\uDE00', '\uDC00\uD800'),
  fc.string({ unit: 'grapheme', maxLength: 3 }),
  fc.string({ unit: 'binary', maxLength: 3 }),
);

test('splitIntoChunks cuts exactly where a split into code points would', () => {
  fc.assert(
    fc.property(
      fc.array(unit, { maxLength: 40 }).map((parts) => parts.join('')),
      fc.integer({ min: 1, max: 7 }),
      (text, size) => {
        assert.deepEqual(splitIntoChunks(text, size), byCodePoints(text, size));
      },
    ),
    { numRuns: 2_000, seed: 20261201 },
  );
  assert.deepEqual(splitIntoChunks('', 3), []);
  assert.deepEqual(splitIntoChunks('a😀b😀', 2), ['a😀', 'b😀']);
});
