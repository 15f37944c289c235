// The CLI bundle finds a source's data files only when the source names them by a literal relative
// URL (scripts/bundle-cli.js rewrites those); any other form builds and then fails with ENOENT at
// run time, as the summary prompts once did in the interactive /compact.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { sourceFiles } from './module-references.js';

interface BundleCli {
  nonLiteralDataUrls(source: string): string[];
}
const scriptUrl = new URL('../../scripts/bundle-cli.js', import.meta.url).href;
const { nonLiteralDataUrls } = (await import(scriptUrl)) as BundleCli;
const src = fileURLToPath(new URL('../../src/', import.meta.url));

describe('data file URLs (what the CLI bundle can follow)', () => {
  test('a literal relative URL passes; a template literal, a variable or a bare name is refused', () => {
    assert.deepEqual(nonLiteralDataUrls("new URL('./prompts/a.md', import.meta.url)"), []);
    assert.deepEqual(nonLiteralDataUrls('new URL("../../package.json", import.meta.url)'), []);
    const refused = [
      'new URL(`./prompts/${name}`, import.meta.url)',
      'new URL(file, import.meta.url)',
      "new URL('prompts/a.md', import.meta.url)",
      "new URL('./a' + b, import.meta.url)",
    ];
    for (const source of refused) assert.equal(nonLiteralDataUrls(source).length, 1, source);
  });

  // src/web/ is built by Vite, not bundled into the CLI.
  test('every source under src/ the CLI bundles names its data files literally', () => {
    const offenders: string[] = [];
    for (const path of sourceFiles(src)) {
      if (path.startsWith(join(src, 'web'))) continue;
      for (const url of nonLiteralDataUrls(readFileSync(path, 'utf8'))) offenders.push(`${path}: ${url}`);
    }
    assert.deepEqual(offenders, []);
  });
});
