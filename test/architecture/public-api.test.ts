// The package's public surface, pinned: the names each entry of package.json "exports" offers,
// values and types apart, as test/fixtures/public-api.json lists them. An entry is a hand-written
// list (no `export *`), so a change to what embedders can import is a visible diff here and in the
// fixture, never a side effect of adding a file to a layer. To change the surface on purpose,
// change the entry file and the fixture together (the failure prints the new list).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, string | { types?: string; import?: string }>;
};
const PINNED = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'public-api.json'), 'utf8')) as Record<
  string,
  { values: string[]; types: string[] }
>;

/** The source file behind an export target (`./dist/public/agent.js` → src/public/agent.ts). */
function sourceOf(target: string): string {
  return join(ROOT, target.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'));
}

/** The names of an entry file's `export { … } from` lists: `type X` and `export type {…}` are types. */
function declaredNames(text: string): { values: string[]; types: string[] } {
  const values: string[] = [];
  const types: string[] = [];
  for (const match of text.matchAll(/export\s+(type\s+)?\{([^}]*)\}\s+from/g)) {
    for (const raw of match[2]!.split(',')) {
      const part = raw.trim();
      if (part === '') continue;
      const isType = match[1] !== undefined || part.startsWith('type ');
      const name = part
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .pop()!;
      (isType ? types : values).push(name);
    }
  }
  return { values: values.sort(), types: types.sort() };
}

const entries = Object.entries(PACKAGE.exports)
  .filter(([name]) => name !== './package.json')
  .map(([name, target]) => [name, sourceOf(typeof target === 'string' ? target : (target.import ?? ''))] as const);

test('every package entry is a hand-written list, and its values are what the module really exports', async () => {
  assert.ok(entries.length >= 4, 'the entries are read');
  for (const [name, file] of entries) {
    const text = readFileSync(file, 'utf8');
    assert.doesNotMatch(text, /export\s+\*/, `${name} (${file}) re-exports a whole module`);
    const module = (await import(file)) as Record<string, unknown>;
    assert.deepEqual(Object.keys(module).sort(), declaredNames(text).values, `${name}: the runtime exports`);
  }
});

test('the public surface is the pinned one', () => {
  const actual = Object.fromEntries(entries.map(([name, file]) => [name, declaredNames(readFileSync(file, 'utf8'))]));
  assert.deepEqual(
    actual,
    PINNED,
    `the public API changed; if on purpose, test/fixtures/public-api.json becomes:\n${JSON.stringify(actual, null, 2)}`,
  );
});

test('no internal helper is public', () => {
  // Named by the review that asked for the curated surface (issue 24).
  const everything = Object.values(PINNED).flatMap((entry) => [...entry.values, ...entry.types]);
  for (const internal of ['CallIdAllocator', 'containedEmit', 'sleepAbortable', 'UsageTracker', 'RepetitionGuard', 'boundedFetch']) {
    assert.ok(!everything.includes(internal), internal);
  }
});
