import assert from 'node:assert/strict';
import { chmod, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { describe, it } from 'node:test';
import { createGrepTool, locateRipgrep } from '../../src/tools/grep/index.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { callTool, expectToolError, makeContext } from './tool-test-context.js';

async function writeTree(root: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
}

const TREE: Record<string, string | Buffer> = {
  '.gitignore': 'dist/\n*.log\n!keep.log\n/anchored.txt\nsrc/deep/skip-me.txt\n',
  'anchored.txt': 'needle\n',
  'sub/anchored.txt': 'needle in sub\n',
  'dist/bundle.js': 'needle in dist\n',
  'dist/.gitignore': '*.map\n',
  'dist/bundle.js.map': 'needle map\n',
  'app.log': 'needle log\n',
  'keep.log': 'needle kept log\n',
  'src/a.ts': 'const x = 1;\n// needle one\nNeedle two\nfoo(needle);\n',
  'src/.gitignore': '*.gen.ts\n/local-only.txt\n',
  'src/model.gen.ts': 'needle generated\n',
  'src/local-only.txt': 'needle local\n',
  'src/deep/local-only.txt': 'needle deep local\n',
  'src/deep/skip-me.txt': 'needle skipped\n',
  'src/sub/.gitignore': '!*.gen.ts\n',
  'src/sub/kept.gen.ts': 'needle regenerated\n',
  '.git/config': 'needle git\n',
  'node_modules/x/index.js': 'needle module\n',
  '.hidden/notes.txt': 'needle hidden\n',
  'bin.dat': Buffer.concat([Buffer.from('needle binary\n'), Buffer.from([0, 1, 2])]),
  'crlf.txt': 'needle\r\nfoo needle\r\nneedle bar\r\n',
  'unicode.txt': 'héllo wörld needle ü\n',
  'long.txt': `${'x'.repeat(1000)}needle${'y'.repeat(1000)}\n`,
  'dash.txt': '--verbose flag\n-x marks\nplain\n',
  'dots.txt': 'a.b\naxb\n(a+b)\n',
  'noeol.txt': 'first\nlast needle',
  'bom.txt': '\uFEFFneedle after a BOM\n',
  'utf16.txt': Buffer.from('\uFEFFneedle in UTF-16\r\nsecond needle\n', 'utf16le'),
};

const EXPECTED_ALL = [
  '.hidden/notes.txt:1:needle hidden',
  'bom.txt:1:needle after a BOM',
  'crlf.txt:1:needle',
  'crlf.txt:2:foo needle',
  'crlf.txt:3:needle bar',
  'keep.log:1:needle kept log',
  `long.txt:1:...${'x'.repeat(100)}needle${'y'.repeat(194)}...`,
  'noeol.txt:2:last needle',
  'src/a.ts:2:// needle one',
  'src/a.ts:4:foo(needle);',
  'src/deep/local-only.txt:1:needle deep local',
  'src/sub/kept.gen.ts:1:needle regenerated',
  'sub/anchored.txt:1:needle in sub',
  'unicode.txt:1:héllo wörld needle ü',
  'utf16.txt:1:needle in UTF-16',
  'utf16.txt:2:second needle',
].join('\n');

describe('grep', () => {
  const tool = createGrepTool();

  it('prints path:line:text sorted by path, honouring root and nested .gitignore files', async () => {
    await withTempDir(async (root) => {
      await writeTree(root, TREE);
      assert.equal(await callTool(tool, { pattern: 'needle' }, makeContext(root)), EXPECTED_ALL);
    });
  });

  it('applies the ancestors’ .gitignore files when searching below the root', async () => {
    await withTempDir(async (root) => {
      await writeTree(root, TREE);
      assert.equal(
        await callTool(tool, { pattern: 'needle', path: 'src/deep' }, makeContext(root)),
        'src/deep/local-only.txt:1:needle deep local',
      );
      // Asked for by name, an ignored directory is searched; its own .gitignore still counts.
      assert.equal(await callTool(tool, { pattern: 'needle', path: 'dist' }, makeContext(root)), 'dist/bundle.js:1:needle in dist');
    });
  });

  it('keeps gitignored files out even when they match the glob filter', async () => {
    await withTempDir(async (root) => {
      await writeTree(root, TREE);
      assert.equal(
        await callTool(tool, { pattern: 'needle', glob: '*.ts' }, makeContext(root)),
        'src/a.ts:2:// needle one\nsrc/a.ts:4:foo(needle);\nsrc/sub/kept.gen.ts:1:needle regenerated',
      );
    });
  });

  it('handles literal text, case folding, CRLF anchors and patterns starting with a dash', async () => {
    await withTempDir(async (root) => {
      await writeTree(root, TREE);
      const context = makeContext(root);
      assert.equal(await callTool(tool, { pattern: '(a+b)', literal: true }, context), 'dots.txt:3:(a+b)');
      assert.equal(await callTool(tool, { pattern: 'a.b', path: 'dots.txt' }, context), 'dots.txt:1:a.b\ndots.txt:2:axb\ndots.txt:3:(a+b)');
      assert.equal(await callTool(tool, { pattern: 'needle$', path: 'crlf.txt' }, context), 'crlf.txt:1:needle\ncrlf.txt:2:foo needle');
      assert.equal(await callTool(tool, { pattern: 'NEEDLE two', ignore_case: true, path: 'src' }, context), 'src/a.ts:3:Needle two');
      assert.equal(await callTool(tool, { pattern: '-x' }, context), 'dash.txt:2:-x marks');
      assert.equal(await callTool(tool, { pattern: '--verbose', literal: true }, context), 'dash.txt:1:--verbose flag');
      assert.equal(await callTool(tool, { pattern: 'absent-everywhere' }, context), 'No matches found.');
    });
  });

  it('caps lines per file and in total, and says how much was left out', async () => {
    await withTempDir(async (root) => {
      const files: Record<string, string> = {};
      for (let index = 0; index < 15; index += 1) {
        files[`f${String(index).padStart(2, '0')}.txt`] = Array.from({ length: 25 }, (_, line) => `hit ${line + 1}\n`).join('');
      }
      files['other.txt'] = 'miss\n';
      await writeTree(root, files);
      const output = await callTool(tool, { pattern: 'hit' }, makeContext(root));
      const expected: string[] = [];
      for (let index = 0; index < 10; index += 1) {
        const path = `f${String(index).padStart(2, '0')}.txt`;
        for (let line = 1; line <= 20; line += 1) expected.push(`${path}:${line}:hit ${line}`);
        expected.push(`${path}: ... 5 more matching lines in this file`);
      }
      expected.push(
        '',
        '[Showing 200 of 375 matching lines from 10 of 15 files; 5 more files with matches not shown. Narrow the search with path, glob or a more specific pattern.]',
      );
      assert.equal(output, expected.join('\n'));
    });
  });

  it('reports an invalid regular expression with the engine’s message', async () => {
    await withTempDir(async (root) => {
      await writeTree(root, { 'a.txt': 'x\n' });
      const message = await expectToolError(tool, { pattern: 'a(' }, makeContext(root), 'INVALID_PATTERN');
      assert.match(message, /unclosed group|Unterminated group/i);
    });
  });

  it('refuses paths leaving the root and never follows symlinks out of it', async () => {
    await withTempDir(async (outside) => {
      await withTempDir(async (root) => {
        await writeTree(outside, { 'secret.txt': 'needle outside\n' });
        await writeTree(root, { 'src/a.txt': 'needle inside\n' });
        await symlink(outside, join(root, 'escape'));
        await symlink(join(outside, 'secret.txt'), join(root, 'secret-link.txt'));
        await symlink('src', join(root, 'inside-link'));
        const context = makeContext(root);
        assert.equal(await callTool(tool, { pattern: 'needle' }, context), 'src/a.txt:1:needle inside');
        assert.equal(await callTool(tool, { pattern: 'needle', path: 'inside-link' }, context), 'src/a.txt:1:needle inside');
        await expectToolError(tool, { pattern: 'needle', path: 'escape' }, context, 'PATH_OUTSIDE_ROOT');
        await expectToolError(tool, { pattern: 'needle', path: 'secret-link.txt' }, context, 'PATH_OUTSIDE_ROOT');
        await expectToolError(tool, { pattern: 'needle', path: '../' }, context, 'PATH_OUTSIDE_ROOT');
        await expectToolError(tool, { pattern: 'root', path: '/etc/passwd' }, context, 'PATH_OUTSIDE_ROOT');
      });
    });
  });

  it('stops when the call is aborted', async () => {
    await withTempDir(async (root) => {
      await writeTree(root, { 'a.txt': 'needle\n'.repeat(50_000) });
      const controller = new AbortController();
      const pending = tool.execute({ pattern: 'needle' }, makeContext(root, controller.signal));
      controller.abort();
      await assert.rejects(pending, (error: Error) => error.name === 'AbortError');
    });
  });
});

describe('grep runs one engine: ripgrep', () => {
  it('uses the binary @vscode/ripgrep installed for this platform', async () => {
    const located = await locateRipgrep();
    assert.ok(located !== null, 'no ripgrep: neither the @vscode/ripgrep platform package nor rg on PATH');
    // Where the npm package covers the platform, its binary wins over whatever is on PATH, so every
    // machine runs the same ripgrep.
    assert.ok(located.includes(`${sep}@vscode${sep}ripgrep-${process.platform}-`), located);
  });

  it('speaks ripgrep’s regex syntax, not JavaScript’s', async () => {
    await withTempDir(async (root) => {
      await writeTree(root, { 'a.txt': 'id 42\nNeedle two\nαβγ greek\nab\n' });
      const tool = createGrepTool();
      const context = makeContext(root);
      assert.equal(await callTool(tool, { pattern: '[[:digit:]]+' }, context), 'a.txt:1:id 42');
      assert.equal(await callTool(tool, { pattern: 'Needle (?i)TWO' }, context), 'a.txt:2:Needle two');
      assert.equal(await callTool(tool, { pattern: '\\p{Greek}+' }, context), 'a.txt:3:αβγ greek');
      const message = await expectToolError(tool, { pattern: '(?<=a)b' }, context, 'INVALID_PATTERN');
      assert.match(message, /look-?around|look-behind/i);
    });
  });

  it('kills ripgrep when the call is aborted', async () => {
    await withTempDir(async (root) => {
      // A stand-in that records its pid and hangs, so the kill is observable.
      const fake = join(root, 'fake-rg');
      await writeFile(fake, `#!/bin/sh\necho $$ > "${join(root, 'pid')}"\nexec sleep 30\n`);
      await chmod(fake, 0o755);
      const tool = createGrepTool({ ripgrepPath: fake });
      const controller = new AbortController();
      const pending = tool.execute({ pattern: 'x' }, makeContext(root, controller.signal));
      let pid = '';
      while (pid === '') {
        pid = await readFile(join(root, 'pid'), 'utf8').then(
          (text) => text.trim(),
          () => '',
        );
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      controller.abort();
      await assert.rejects(pending, (error: Error) => error.name === 'AbortError');
      let alive = true;
      for (let attempt = 0; attempt < 200 && alive; attempt += 1) {
        try {
          process.kill(Number(pid), 0);
          await new Promise((resolve) => setTimeout(resolve, 10));
        } catch {
          alive = false;
        }
      }
      assert.equal(alive, false, 'the ripgrep process must be gone');
    });
  });

  it('fails the call, with no other engine to fall back to, when ripgrep cannot be started', async () => {
    await withTempDir(async (root) => {
      await writeTree(root, { 'a.txt': 'needle\n' });
      const missing = createGrepTool({ ripgrepPath: join(root, 'no-such-rg') });
      const message = await expectToolError(missing, { pattern: 'needle' }, makeContext(root), 'SEARCH_FAILED');
      assert.match(message, /ripgrep could not be started .*no-such-rg/);
    });
  });

  it('describes itself briefly and declares what it reads', () => {
    const tool = createGrepTool();
    assert.ok(tool.description.length < 800);
    assert.deepEqual(tool.access({ pattern: 'x', path: 'src' }, { root: '/project' }), { kind: 'read', paths: ['/project/src'] });
  });
});

it('grep over a directory never shows secret files; naming one searches it', async () => {
  await withTempDir(async (root) => {
    await writeFile(join(root, '.env'), 'API_TOKEN=hunter2\n');
    await writeFile(join(root, 'config.ts'), 'const API_TOKEN = process.env.API_TOKEN;\n');
    const tool = createGrepTool();
    const all = await callTool(tool, { pattern: 'API_TOKEN' }, makeContext(root));
    assert.match(all, /config\.ts/);
    assert.doesNotMatch(all, /hunter2/);
    const named = await callTool(tool, { pattern: 'API_TOKEN', path: '.env' }, makeContext(root));
    assert.match(named, /hunter2/);
  });
});
