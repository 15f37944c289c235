// Glassbox as a library: the example in examples/ embeds it through the package's public entry
// points only (resolved through package.json "exports" to the built dist/, with its .d.ts), and
// runs a real turn against the scripted fake provider: its own tool, its own approval handler.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startFakeProvider } from '../../src/testing/index.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { buildReady } from '../helpers/build-ready.js';

const EXAMPLE = new URL('../../examples/custom-tool.ts', import.meta.url);
await buildReady();

describe('the embedding example', () => {
  test('imports nothing but the public entry points (and zod and node:)', async () => {
    const source = await readFile(EXAMPLE, 'utf8');
    const specifiers = [...source.matchAll(/from '([^']+)'/g)].map((match) => match[1]!);
    assert.ok(specifiers.length >= 5);
    for (const specifier of specifiers) assert.match(specifier, /^(glassbox(\/(agent|model|testing))?|zod|node:[a-z/]+)$/, specifier);
    // Each entry point resolves through package.json "exports" to built code with declarations.
    for (const entry of ['glassbox', 'glassbox/agent', 'glassbox/model', 'glassbox/testing']) {
      const resolved = fileURLToPath(import.meta.resolve(entry));
      assert.match(resolved, /\/dist\/(index|public\/(agent|model|testing))\.js$/, entry);
      await readFile(resolved.replace(/\.js$/, '.d.ts'), 'utf8');
    }
  });

  test('its types check against the built declarations under strict, without skipLibCheck', async () => {
    await withTempDir(async (dir) => {
      const config = join(dir, 'tsconfig.json');
      await writeFile(
        config,
        JSON.stringify({
          compilerOptions: {
            strict: true,
            skipLibCheck: false,
            noEmit: true,
            module: 'nodenext',
            moduleResolution: 'nodenext',
            target: 'es2022',
            types: ['node'],
            typeRoots: [fileURLToPath(new URL('../../node_modules/@types', import.meta.url))],
          },
          files: [fileURLToPath(EXAMPLE)],
        }),
      );
      const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
      const result = spawnSync(process.execPath, [tsc, '-p', config], { encoding: 'utf8', timeout: 120_000 });
      assert.equal(result.status, 0, `${result.stdout}${result.stderr}`);
    });
  });

  test('runs a turn with its own tool and approval handler', async () => {
    await withTempDir(async (root) => {
      const provider = await startFakeProvider({
        script: [{ toolCalls: [{ name: 'note', arguments: { line: 'embedding works' } }] }, { text: 'Noted it.' }],
      });
      try {
        const { runExample } = (await import(EXAMPLE.href)) as typeof import('../../examples/custom-tool.js');
        const asked: string[] = [];
        const result = await runExample(
          { root, home: join(root, '.home'), baseURL: provider.baseURL, apiKey: 'k', model: 'acme', prompt: 'note it' },
          asked,
        );
        assert.equal(result.terminal.type, 'run_succeeded', JSON.stringify(result.terminal));
        assert.equal(await readFile(join(root, 'NOTES.md'), 'utf8'), 'embedding works\n');
        assert.equal(asked.length, 1, 'the approval handler was asked once');
        assert.match(asked[0]!, /note: write .*NOTES\.md/);
      } finally {
        await provider.close();
      }
    });
  });
});
