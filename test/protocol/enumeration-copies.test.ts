// Every closed set of names that crosses a layer is written once, in src/protocol/enumerations.ts;
// the layers that use one import it (or re-export it). A copy would drift without anything noticing
// (the web's wire API list once had to be updated by hand), so this reads every source file
// outside protocol/ and fails on an array of string literals, a call with only string literal
// arguments, or a union of string literal types, that names exactly the values of one of
// protocol's enumerations, in any order.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import * as enumerations from '../../src/protocol/enumerations.js';
import { sourceFiles } from '../architecture/module-references.js';

const SRC = resolve(fileURLToPath(new URL('../../src', import.meta.url)));
const PROTOCOL = join(SRC, 'protocol');

const ENUMERATIONS: ReadonlyArray<[string, readonly string[]]> = Object.entries(enumerations as Record<string, unknown>).filter(
  (entry): entry is [string, readonly string[]] => Array.isArray(entry[1]),
);

const STRING = String.raw`(?:'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")`;
/** `['a', 'b']`, `z.enum(['a', 'b'])`, `new Set(['a', 'b'])`: only string literals between the brackets. */
const ARRAY = new RegExp(String.raw`\[\s*${STRING}(?:\s*,\s*${STRING})*\s*,?\s*\]`, 'g');
/** `oneOf('a', 'b')`: a call whose arguments are only string literals. */
const ARGUMENTS = new RegExp(String.raw`\(\s*${STRING}(?:\s*,\s*${STRING})+\s*,?\s*\)`, 'g');
/** `'a' | 'b'`, with or without a leading `|`. */
const UNION = new RegExp(String.raw`${STRING}(?:\s*\|\s*${STRING})+`, 'g');

function literals(text: string): string[] {
  return [...text.matchAll(new RegExp(STRING, 'g'))].map((match) => match[0].slice(1, -1));
}

/** Comments name values in prose; they are not copies. */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/(^|[^:\\'"`])\/\/[^\n]*/g, '$1');
}

const sameSet = (a: readonly string[], b: readonly string[]): boolean => {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((value) => right.has(value));
};

/** Where a text writes out one of the enumerations again: `NAME: the copy` per finding. */
export function enumerationCopies(text: string): string[] {
  const found: string[] = [];
  const code = withoutComments(text);
  for (const pattern of [ARRAY, ARGUMENTS, UNION]) {
    for (const match of code.matchAll(pattern)) {
      const values = literals(match[0]);
      if (new Set(values).size < 2) continue;
      for (const [name, members] of ENUMERATIONS) {
        if (sameSet(values, members)) found.push(`${name}: ${match[0].replace(/\s+/g, ' ')}`);
      }
    }
  }
  return found;
}

describe('protocol enumerations are written once', () => {
  test('the enumerations are read (the check is live)', () => {
    assert.ok(ENUMERATIONS.length >= 10, `only ${ENUMERATIONS.length} enumerations found`);
    assert.ok(ENUMERATIONS.some(([name]) => name === 'WIRE_APIS'));
  });

  test('a copy is seen in every spelling, in any order, and prose or other sets are not', () => {
    const planted = [
      "export const WIRE_API_NAMES: readonly WireApi[] = ['chat', 'responses', 'anthropic'];",
      "const modes = ['workspace-write', 'read-only', 'danger-full-access'] as const;",
      "decision: z.enum(['approve', 'approve_session', 'deny']),",
      "export type RunStatus =\n  | 'running'\n  | 'succeeded'\n  | 'failed'\n  | 'cancelled';",
      'export type ApprovalPolicyName = "untrusted" | "on-request" | "never";',
      "stage: oneOf('compaction', 'turn'),",
    ];
    for (const text of planted) assert.equal(enumerationCopies(text).length, 1, text);
    const innocent = [
      "// the wire APIs: 'chat' | 'responses' | 'anthropic'",
      "/* ['untrusted', 'on-request', 'never'] */",
      "type LiveRunStatus = 'starting' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'lost';",
      "const two = ['chat', 'responses'];",
    ];
    for (const text of innocent) assert.deepEqual(enumerationCopies(text), [], text);
  });

  test('no source file outside protocol/ writes one out again', () => {
    const copies = sourceFiles(SRC)
      .filter((file) => !file.startsWith(`${PROTOCOL}/`))
      .flatMap((file) => enumerationCopies(readFileSync(file, 'utf8')).map((copy) => `${relative(SRC, file)}: ${copy}`));
    assert.deepEqual(copies, []);
  });
});
