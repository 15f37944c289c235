// The faces' reading of a patch (views/) and the tool's own parser agree on what it touches:
// before views/ the terminal read headers with a line-anchored pattern and missed indented ones
// and CRLF line ends, which the tool accepts, so its transcript named fewer files than the patch
// changed.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parsePatch } from '../../src/tools/apply-patch/index.js';
import { callSubject, patchPaths, patchTargets } from '../../src/views/index.js';

const PATCHES = [
  '*** Begin Patch\n*** Update File: a.ts\n@@\n-x\n+y\n*** Add File: b.ts\n+new\n*** Delete File: c.ts\n*** End Patch',
  '*** Begin Patch\n  *** Update File: src/indented.ts\n@@\n-x\n+y\n*** End Patch',
  '*** Begin Patch\r\n*** Add File: crlf.txt\r\n+line\r\n*** End Patch\r\n',
  '*** Begin Patch\n*** Update File: old/name.ts\n*** Move to: new/name.ts\n@@\n-x\n+y\n*** End Patch',
];

test('every file the tool would touch is named by views/, in every header spelling the tool accepts', () => {
  for (const patch of PATCHES) {
    const operations = parsePatch(patch);
    const expected = operations.flatMap((op) => (op.kind === 'update' && op.moveTo !== null ? [op.path, op.moveTo] : [op.path]));
    assert.deepEqual(patchPaths(patch), expected, patch);
    const targets = patchTargets(patch);
    assert.deepEqual(
      targets.added,
      operations.filter((op) => op.kind === 'add').map((op) => op.path),
    );
    assert.deepEqual(
      targets.deleted,
      operations.filter((op) => op.kind === 'delete').map((op) => op.path),
    );
    assert.deepEqual(
      targets.movedTo,
      operations.flatMap((op) => (op.kind === 'update' && op.moveTo !== null ? [{ from: op.path, to: op.moveTo }] : [])),
    );
  }
});

test("the terminal's one-liner names an indented header's file, as the tool applies it", () => {
  assert.equal(callSubject('apply_patch', JSON.stringify({ patch: PATCHES[1] })), 'src/indented.ts');
  assert.equal(callSubject('apply_patch', JSON.stringify({ patch: PATCHES[2] })), 'crlf.txt');
});
