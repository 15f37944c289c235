// `npm test` skips its build only while dist/ was built from exactly the current inputs
// (scripts/build-inputs.js): any edited, added, removed or renamed source, or a changed lock file,
// makes it rebuild; a build that never finished does not count.
import assert from 'node:assert/strict';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { withTempDir } from '../helpers/temp-dir.js';

interface BuildInputs {
  buildInputsDigest(root: string): string;
  buildIsCurrent(root: string): boolean;
  recordedInputsFile(root: string): string;
}
// A plain JavaScript build script, loaded by URL (the type-checker does not read scripts/*.js).
const scriptUrl = new URL('../../scripts/build-inputs.js', import.meta.url).href;
const { buildInputsDigest, buildIsCurrent, recordedInputsFile } = (await import(scriptUrl)) as BuildInputs;

/** A project that was built: sources, a lock file, dist/bundle/cli.js and the recorded digest. */
function builtProject(root: string): void {
  mkdirSync(join(root, 'src', 'tools'), { recursive: true });
  writeFileSync(join(root, 'src', 'index.ts'), 'export const a = 1;\n');
  writeFileSync(join(root, 'src', 'tools', 'read.md'), 'Reads a file.\n');
  writeFileSync(join(root, 'package-lock.json'), '{"lockfileVersion":3}\n');
  mkdirSync(join(root, 'dist', 'bundle'), { recursive: true });
  writeFileSync(join(root, 'dist', 'bundle', 'cli.js'), '');
  writeFileSync(recordedInputsFile(root), `${buildInputsDigest(root)}\n`);
}

describe('build inputs (npm test rebuilds only when they changed)', () => {
  test('a finished build of the current inputs is current', async () => {
    await withTempDir(async (root) => {
      builtProject(root);
      assert.equal(buildIsCurrent(root), true);
    });
  });

  const changes: Array<[string, (root: string) => void]> = [
    ['an edited source', (root) => writeFileSync(join(root, 'src', 'index.ts'), 'export const a = 2;\n')],
    ['an edited data file', (root) => writeFileSync(join(root, 'src', 'tools', 'read.md'), 'Reads files.\n')],
    ['a new source', (root) => writeFileSync(join(root, 'src', 'tools', 'new.ts'), '')],
    ['a removed source', (root) => rmSync(join(root, 'src', 'tools', 'read.md'))],
    ['a renamed source', (root) => renameSync(join(root, 'src', 'index.ts'), join(root, 'src', 'main.ts'))],
    ['a changed lock file', (root) => writeFileSync(join(root, 'package-lock.json'), '{"lockfileVersion":3,"x":1}\n')],
    ['a new build config', (root) => writeFileSync(join(root, 'tsconfig.build.json'), '{}\n')],
    ['no recorded digest (a build that did not finish)', (root) => rmSync(recordedInputsFile(root))],
    ['no bundle', (root) => rmSync(join(root, 'dist', 'bundle', 'cli.js'))],
  ];
  for (const [what, change] of changes) {
    test(`${what} makes it stale`, async () => {
      await withTempDir(async (root) => {
        builtProject(root);
        change(root);
        assert.equal(buildIsCurrent(root), false);
      });
    });
  }

  test("the file's name and content are told apart (moving bytes between them changes the digest)", async () => {
    await withTempDir(async (root) => {
      mkdirSync(join(root, 'src'));
      writeFileSync(join(root, 'src', 'ab'), 'c');
      const first = buildInputsDigest(root);
      rmSync(join(root, 'src', 'ab'));
      writeFileSync(join(root, 'src', 'a'), 'bc');
      assert.notEqual(buildInputsDigest(root), first);
    });
  });
});
