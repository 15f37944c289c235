// Codex's own apply-patch scenario suite (test/fixtures/apply-patch/codex-scenarios, see its README) run
// through our real apply_patch tool on real temp dirs: each scenario's input tree plus its patch must
// leave exactly its expected tree. Models are trained on Codex's format, so its behaviour is the
// reference; where Glassbox deliberately differs (docs/apply-patch.md) the scenario asserts our
// behaviour explicitly instead of being skipped. The second block pins Codex behaviours its unit
// tests cover but the scenario suite does not.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ToolError } from '../../src/agent/index.js';
import { createApplyPatchTool } from '../../src/tools/apply-patch/index.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { listTree, makeWriteContext } from './tool-test-context.js';

const SCENARIOS = fileURLToPath(new URL('../fixtures/apply-patch/codex-scenarios/', import.meta.url));
const tool = createApplyPatchTool();

/**
 * Scenarios Codex rejects too (its expected tree is the input tree): the error code the model sees.
 * Every scenario not listed here or in DELIBERATE must apply cleanly.
 */
const REJECTED: Readonly<Record<string, string>> = {
  '005_rejects_empty_patch': 'PATCH_PARSE_ERROR',
  '006_rejects_missing_context': 'PATCH_HUNK_FAILED',
  '007_rejects_missing_file_delete': 'PATCH_FILE_NOT_FOUND',
  '008_rejects_empty_update_hunk': 'PATCH_PARSE_ERROR',
  '009_requires_existing_file_for_update': 'PATCH_FILE_NOT_FOUND',
  '012_delete_directory_fails': 'PATCH_FILE_EXISTS',
  '013_rejects_invalid_hunk_header': 'PATCH_PARSE_ERROR',
};

/**
 * Scenarios whose expected tree is Codex's behaviour but not ours, on purpose. For each, the patch must
 * fail with `code` and leave the input tree untouched.
 */
const DELIBERATE: Readonly<Record<string, { code: string; why: string }>> = {
  // Codex replaces the existing destination; a Move never overwrites here, because the model has not
  // shown it knows that file's content and the overwrite would silently lose it.
  '010_move_overwrites_existing_destination': { code: 'PATCH_FILE_EXISTS', why: 'a Move never overwrites an existing file' },
  // Codex replaces the existing file; an Add never overwrites here, for the same reason (Update it instead).
  '011_add_overwrites_existing_file': { code: 'PATCH_FILE_EXISTS', why: 'an Add never overwrites an existing file' },
  // Codex writes the Add and then fails on the Update, leaving half a patch applied; here a patch is
  // all-or-nothing, so the failing Update means the Add is not written either.
  '015_failure_after_partial_success_leaves_changes': { code: 'PATCH_FILE_NOT_FOUND', why: 'a patch is all-or-nothing' },
};

/** Every file (with its exact text) and directory under `dir`, as Codex's scenario runner compares them. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  if (!existsSync(dir)) return result;
  for (const name of await listTree(dir)) {
    const stats = await stat(join(dir, name));
    result[name] = stats.isDirectory() ? '<dir>' : await readFile(join(dir, name), 'utf8');
  }
  return result;
}

/** Run one scenario in a fresh copy of its input; returns the tree left behind and the error, if any. */
async function runScenario(name: string): Promise<{ tree: Record<string, string>; error: ToolError | null }> {
  return withTempDir(async (root) => {
    const input = join(SCENARIOS, name, 'input');
    if (existsSync(input)) await cp(input, root, { recursive: true });
    const patch = await readFile(join(SCENARIOS, name, 'patch.txt'), 'utf8');
    let error: ToolError | null = null;
    try {
      await tool.execute(tool.schema.parse({ patch }), makeWriteContext(root));
    } catch (caught) {
      if (!(caught instanceof ToolError)) throw caught;
      error = caught;
    }
    return { tree: await snapshot(root), error };
  });
}

const scenarioNames = (await readdir(SCENARIOS, { withFileTypes: true }))
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

describe('apply_patch against the Codex scenario suite', () => {
  it('has every scenario, and every listed exception names one', () => {
    assert.equal(scenarioNames.length, 23);
    for (const name of [...Object.keys(REJECTED), ...Object.keys(DELIBERATE)]) assert.ok(scenarioNames.includes(name), name);
  });

  for (const name of scenarioNames) {
    const deliberate = DELIBERATE[name];
    if (deliberate !== undefined) {
      it(`${name}: differs on purpose (${deliberate.why})`, async () => {
        const input = await snapshot(join(SCENARIOS, name, 'input'));
        // The difference is real: Codex's expected tree is not the untouched input.
        assert.notDeepEqual(await snapshot(join(SCENARIOS, name, 'expected')), input);
        const { tree, error } = await runScenario(name);
        assert.equal(error?.code, deliberate.code, error?.message ?? 'the patch applied');
        assert.deepEqual(tree, input);
      });
      continue;
    }
    it(name, async () => {
      const { tree, error } = await runScenario(name);
      const rejected = REJECTED[name];
      if (rejected === undefined) assert.equal(error, null, error?.message);
      else assert.equal(error?.code, rejected, error?.message ?? 'the patch applied');
      assert.deepEqual(tree, await snapshot(join(SCENARIOS, name, 'expected')));
    });
  }
});

function patch(...lines: string[]): string {
  return ['*** Begin Patch', ...lines, '*** End Patch'].join('\n');
}

/** Write `files`, apply `text`, and return the whole tree afterwards. */
async function applyTo(files: Record<string, string>, text: string): Promise<Record<string, string>> {
  return withTempDir(async (root) => {
    for (const [name, content] of Object.entries(files)) await writeFile(join(root, name), content);
    await tool.execute({ patch: text }, makeWriteContext(root));
    return snapshot(root);
  });
}

describe('apply_patch matches Codex beyond the scenario suite', () => {
  it('ends every updated file with a newline, in the file’s own line ending', async () => {
    assert.deepEqual(await applyTo({ 'a.txt': 'one\ntwo\nthree' }, patch('*** Update File: a.txt', ' one', '-two', '+2')), {
      'a.txt': 'one\n2\nthree\n',
    });
    // The hunk touching the unterminated last line is the usual case.
    assert.deepEqual(await applyTo({ 'b.txt': 'x\r\ny' }, patch('*** Update File: b.txt', ' x', '-y', '+why')), {
      'b.txt': 'x\r\nwhy\r\n',
    });
    // Deleting every line leaves an empty file, not a lone newline.
    assert.deepEqual(await applyTo({ 'c.txt': 'gone' }, patch('*** Update File: c.txt', '-gone')), { 'c.txt': '' });
  });

  it('matches lines whose typographic punctuation differs from the patch (dashes, quotes, odd spaces)', async () => {
    // Codex's matcher maps these to ASCII, after the exact and whitespace-tolerant passes fail.
    const dashes = ['\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212'];
    const singles = ['\u2018', '\u2019', '\u201A', '\u201B'];
    const doubles = ['\u201C', '\u201D', '\u201E', '\u201F'];
    const spaces = [
      '\u00A0',
      '\u2002',
      '\u2003',
      '\u2004',
      '\u2005',
      '\u2006',
      '\u2007',
      '\u2008',
      '\u2009',
      '\u200A',
      '\u202F',
      '\u205F',
      '\u3000',
    ];
    const fileLines = [
      ...dashes.map((dash) => `a${dash}b`),
      ...singles.map((quote) => `say ${quote}hi${quote}`),
      ...doubles.map((quote) => `say ${quote}hi${quote}`),
      ...spaces.map((space) => `x${space}y`),
    ];
    const asciiLines = [
      ...dashes.map(() => 'a-b'),
      ...singles.map(() => "say 'hi'"),
      ...doubles.map(() => 'say "hi"'),
      ...spaces.map(() => 'x y'),
    ];
    const original = `${fileLines.join('\n')}\nlast\n`;
    const tree = await applyTo(
      { 'u.txt': original },
      patch('*** Update File: u.txt', ...asciiLines.map((line) => ` ${line}`), '-last', '+LAST'),
    );
    // Context lines keep the file's own characters; only the changed line is rewritten.
    assert.deepEqual(tree, { 'u.txt': `${fileLines.join('\n')}\nLAST\n` });
    // The folding pass is the last resort: an exact match further down wins over a folded one above.
    assert.deepEqual(await applyTo({ 'v.txt': 'a\u2013b\nmid\na-b\n' }, patch('*** Update File: v.txt', '-a-b', '+A-B')), {
      'v.txt': 'a\u2013b\nmid\nA-B\n',
    });
  });

  it('replaces a line written with ASCII dashes that the file spells with Unicode ones, and finds @@ lines the same way', async () => {
    // The case from Codex's unit tests: an EN DASH and a NON-BREAKING HYPHEN in the file.
    assert.deepEqual(
      await applyTo(
        { 'unicode.py': 'import asyncio  # local import \u2013 avoids top\u2011level dep\n' },
        patch('*** Update File: unicode.py', '@@', '-import asyncio  # local import - avoids top-level dep', '+import asyncio  # HELLO'),
      ),
      { 'unicode.py': 'import asyncio  # HELLO\n' },
    );
    // Both ways round, and for the `@@` line that narrows the search.
    assert.deepEqual(
      await applyTo(
        { 'q.py': 'def a():\n    x = 1\ndef b():  # it\'s "b"\n    x = 1\n' },
        patch('*** Update File: q.py', '@@ def b():  # it\u2019s \u201Cb\u201D', '-    x = 1', '+    x = 2'),
      ),
      { 'q.py': 'def a():\n    x = 1\ndef b():  # it\'s "b"\n    x = 2\n' },
    );
  });

  it('applies a chunk placed before an earlier pure-addition chunk, as Codex does', async () => {
    // A chunk of only '+' lines and no @@ text appends to the end of the file without moving the
    // search position, so the next chunk may still be found above it.
    assert.deepEqual(
      await applyTo(
        { 'p.txt': 'line1\nline2\nline3\n' },
        patch('*** Update File: p.txt', '@@', '+after-context', '+second-line', '@@', ' line1', '-line2', '-line3', '+line2-replacement'),
      ),
      { 'p.txt': 'line1\nline2-replacement\nafter-context\nsecond-line\n' },
    );
    // Two appending chunks keep their patch order.
    assert.deepEqual(await applyTo({ 'q.txt': 'a\nb\n' }, patch('*** Update File: q.txt', '@@', '+c', '@@', '-a', '+A', '@@', '+d')), {
      'q.txt': 'A\nb\nc\nd\n',
    });
  });
});
