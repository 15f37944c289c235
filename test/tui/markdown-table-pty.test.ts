// A Markdown table in an answer lines up in the terminal (item 9 of issue 25): at 200 columns
// each column is as wide as its widest cell, counted in display columns (styles, wide characters
// and emoji included); at 80 columns the table is fitted to the screen, its widest column wrapped
// onto more lines, and every separator still sits in the same column on every row.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startFakeProvider } from '../../src/testing/index.js';
import { ptyEnv, ptyProject, requireTmux } from './pty-fixtures.js';
import { TmuxScreen } from './tmux-screen.js';

const skip = requireTmux();

const TABLE = [
  'Here:',
  '',
  '| Tool | What it does | Notes |',
  '|:-----|-------------:|-------|',
  '| **read_file** | reads a file at `path` | 日本語 ok |',
  '| shell | runs a command in the sandbox, with a long description that goes on and on for quite a while longer | emoji 🚀 |',
  '| grep | searches | - |',
  '',
  'Done.',
].join('\n');

/** Display columns of each `mark` in a screen row (wide characters take two). */
function columnsOf(row: string, mark: string): number[] {
  const at: number[] = [];
  let column = 0;
  for (const char of row) {
    if (char === mark) at.push(column);
    const code = char.codePointAt(0)!;
    column += (code >= 0x2e80 && code <= 0xa4cf) || (code >= 0x1f300 && code <= 0x1faff) ? 2 : 1;
  }
  return at;
}

async function tableRows(width: number, height: number): Promise<string[]> {
  const { root, home } = await ptyProject();
  const provider = await startFakeProvider({ script: [{ text: TABLE }] });
  const screen = await TmuxScreen.start({
    args: ['--base-url', provider.baseURL],
    env: ptyEnv({ GLASSBOX_HOME: home }),
    cwd: root,
    width,
    height,
  });
  try {
    await screen.waitFor('new session');
    await screen.submit('list the tools');
    await screen.waitFor('Done.');
    await screen.waitIdle();
    const rows = (await screen.capture({ raw: true, history: true })).split('\n');
    const first = rows.findIndex((row) => /Tool\s+│/.test(row));
    const last = rows.findIndex((row) => row.includes('Done.'));
    assert.ok(first !== -1 && last > first, rows.join('\n'));
    return rows.slice(first, last).filter((row) => row.trim() !== '');
  } finally {
    await screen.close();
    await provider.close();
  }
}

describe('a Markdown table in the terminal (tmux)', { skip, concurrency: true }, () => {
  for (const [width, height] of [
    [200, 50],
    [80, 40],
  ] as const) {
    test(`its columns line up at ${width} columns`, async () => {
      const rows = await tableRows(width, height);
      const text = rows.join('\n');
      const separators = columnsOf(rows[0]!, '│');
      assert.equal(separators.length, 2, text);
      for (const row of rows) {
        assert.ok(columnsOf(row, '│').length + columnsOf(row, '┼').length > 0, text);
        const marks = row.includes('┼') ? columnsOf(row, '┼') : columnsOf(row, '│');
        assert.deepEqual(marks, separators, `a separator out of line:\n${text}`);
        // Fitted to the screen: no row wraps (a wrapped row would start mid-table).
        assert.ok(columnsOf(row, '').length === 0);
      }
      assert.match(text, /日本語 ok/);
      if (width === 200) assert.equal(rows.length, 5, `one line per row at 200 columns:\n${text}`);
      else assert.ok(rows.length > 5, `the long cell wraps at 80 columns:\n${text}`);
      // The right-aligned column ends its cells at the separator.
      const grep = rows.find((row) => row.includes('grep'))!;
      assert.match(grep, /searches │/, text);
    });
  }
});
