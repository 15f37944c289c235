import assert from 'node:assert/strict';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Usage } from '../../src/model/index.js';
import { buildApprovalPreview } from '../../src/tui/approval-preview.js';
import { highlightCode, loadHighlighter } from '../../src/tui/highlight-code.js';
import { markdownToAnsi } from '../../src/tui/markdown-to-ansi.js';
import { compactionText, contextText, formatCost, SessionMeter } from '../../src/tui/session-meter.js';
import { statusLines } from '../../src/tui/status-bar.js';
import { createTheme, stripAnsi } from '../../src/tui/theme.js';
import { withTempDir } from '../helpers/temp-dir.js';

const plain = createTheme(false);
const colour = createTheme(true);

function usage(input: number, output: number, cached = 0): Usage {
  return {
    inputTokens: input,
    cachedInputTokens: cached,
    outputTokens: output,
    reasoningTokens: 0,
    totalTokens: input + output,
    raw: null,
  };
}

describe('markdown and code', () => {
  test('headings, emphasis, lists and code blocks become terminal text; entities come back', () => {
    const text = markdownToAnsi('# Plan\n\n1. read **it**\n2. fix `a < b` & test\n   - nested\n\n```ts\nconst x = 1;\n```', plain);
    assert.equal(stripAnsi(text), '# Plan\n\n1. read it\n2. fix a < b & test\n   • nested\n\n┌─ ts\n│ const x = 1;\n└─');
  });

  test('an unfinished fence while streaming is still a code block', () => {
    assert.match(stripAnsi(markdownToAnsi('Look:\n\n```py\nprint(1)', plain)), /┌─ py\n│ print\(1\)/);
  });

  test('code is highlighted once the grammars are loaded, and never under NO_COLOR', async () => {
    await loadHighlighter();
    const highlighted = highlightCode('const x = "s"; // c', 'ts', colour);
    assert.match(highlighted, /\x1b\[35mconst\x1b\[39m/);
    assert.equal(stripAnsi(highlighted), 'const x = "s"; // c');
    assert.equal(highlightCode('const x = 1;', 'ts', plain), 'const x = 1;');
    assert.equal(highlightCode('whatever', 'no-such-language', colour), 'whatever');
  });
});

describe('status numbers', () => {
  test('context against the window and the compaction threshold; tokens and cost per call', () => {
    const meter = new SessionMeter({
      window: 400_000,
      threshold: 229_500,
      entry: { pricing: { inputPerMillion: 0.25, cachedInputPerMillion: 0.025, outputPerMillion: 2 } },
    });
    meter.addCall(usage(100_000, 1000, 90_000), 'turn');
    meter.addCall(usage(2000, 500), 'compaction');
    const reading = meter.read();
    assert.equal(reading.contextTokens, 101_000, 'a compaction call does not say how full the context is');
    assert.equal(reading.sessionTokens, 103_500);
    // 10k fresh × 0.25 + 90k cached × 0.025 + 1k out × 2, then 2k × 0.25 + 500 × 2 (per million).
    assert.ok(Math.abs(reading.cost! - (0.0025 + 0.00225 + 0.002 + 0.0005 + 0.001)) < 1e-12);
    assert.equal(contextText(reading, meter.getLimits()), 'context 101k/400k (25%) · compacts at 230k (57%)');
    meter.compacted(230_000);
    assert.equal(contextText(meter.read(), meter.getLimits()), 'context 230k/400k (58%) · compacts next turn');
  });

  test('the meter and /status read against one denominator: what a request may hold', () => {
    // gpt-5: 272k input of a 400k window, compaction at 85 % of the input.
    const limits = { window: 272_000, threshold: 231_200, entry: null };
    const reading = { ...new SessionMeter(limits).read(), contextTokens: 7_700 };
    assert.equal(contextText(reading, limits), 'context 7.7k/272k (3%) · compacts at 231k (85%)');
    assert.equal(compactionText(limits), 'automatic at 231k tokens (85% of 272k)');
    assert.equal(compactionText(null), 'unknown window');
  });

  test('an unpriced model shows that the cost is unknown, not zero', () => {
    const meter = new SessionMeter({ window: 128_000, threshold: 108_800, entry: { pricing: null } });
    meter.addCall(usage(10, 10), 'turn');
    assert.equal(formatCost(meter.read().cost, meter.read().costPartial), 'cost n/a');
    assert.equal(formatCost(1.234, true), '≥$1.23');
  });

  test('the status lines fit 80 columns with a full session id', () => {
    const meter = new SessionMeter();
    const [first, second] = statusLines({
      model: 'claude-sonnet-5-5',
      wireApi: 'anthropic',
      sandbox: 'workspace-write',
      approvalPolicy: 'on-request',
      sessionId: '01a231cf-31aa-7000-8000-000000000000',
      meter: meter.read(),
      limits: { window: 1_000_000, threshold: 850_000, entry: null },
    });
    assert.equal(first, 'claude-sonnet-5-5 · anthropic · workspace-write · on-request · 01a231cf-31aa');
    assert.ok(first.length <= 80 && second.length <= 80, `${first}\n${second}`);
  });
});

describe('approval previews and /diff', () => {
  test('write_file and edit_file previews are the diff they would make; shell shows the command', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'a.txt'), 'one\ntwo\nthree\n');
      const write = await buildApprovalPreview('write_file', JSON.stringify({ path: 'a.txt', content: 'one\n2\nthree\n' }), root);
      assert.deepEqual(write.lines, ['--- a.txt', '@@ -1,3 +1,3 @@', ' one', '-two', '+2', ' three']);
      const created = await buildApprovalPreview('write_file', JSON.stringify({ path: 'new.txt', content: 'hi\n' }), root);
      assert.deepEqual(created.lines, ['new file new.txt', '@@ -1,0 +1,1 @@', '+hi']);
      const edit = await buildApprovalPreview(
        'edit_file',
        JSON.stringify({ path: 'a.txt', old_string: 'three', new_string: 'THREE' }),
        root,
      );
      assert.ok(edit.lines.includes('-three') && edit.lines.includes('+THREE'));
      const shell = await buildApprovalPreview('shell', JSON.stringify({ command: 'rm -rf build\necho \u001b[2Jdone' }), root);
      assert.deepEqual(shell.lines, ['$ rm -rf build', '$ echo \\e[2Jdone']);
    });
  });

  test('a preview never reads outside the project, even through a symlink', async () => {
    await withTempDir(async (dir) => {
      const root = join(dir, 'project');
      await mkdir(root);
      await writeFile(join(dir, 'secret.txt'), 'top secret\n');
      await symlink(join(dir, 'secret.txt'), join(root, 'link.txt'));
      const preview = await buildApprovalPreview('write_file', JSON.stringify({ path: 'link.txt', content: 'x\n' }), root);
      assert.ok(!preview.lines.join('\n').includes('top secret'));
      assert.ok(preview.lines.some((line) => line.includes('outside the project')));
    });
  });
});

describe('Markdown tables', () => {
  const color = createTheme(true);
  const source = '| a | b |\n|---|--:|\n| **bold** | 日本 |\n| x | a longer cell of words |\n';
  const separatorsAt = (line: string) => {
    const at: number[] = [];
    let column = 0;
    for (const char of stripAnsi(line)) {
      if (char === '│' || char === '┼') at.push(column);
      column += /[\u2e80-\ua4cf]/.test(char) ? 2 : 1;
    }
    return at;
  };

  test('columns line up by display width, styles and wide characters included', () => {
    const lines = markdownToAnsi(source, color).split('\n');
    assert.equal(lines.length, 4);
    for (const line of lines) assert.deepEqual(separatorsAt(line), separatorsAt(lines[0]!), lines.join('\n'));
  });

  test('a table wider than its room wraps its widest column and stays aligned', () => {
    const lines = markdownToAnsi(source, color, 20).split('\n');
    assert.ok(lines.length > 4, lines.join('\n'));
    for (const line of lines) {
      assert.ok([...stripAnsi(line)].length <= 20, line);
      assert.deepEqual(separatorsAt(line), separatorsAt(lines[0]!), lines.join('\n'));
    }
  });
});
