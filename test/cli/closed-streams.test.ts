// `glassbox exec` when the reader of its output goes away (`| head -1`, a closed terminal): no
// stack trace, the run cancelled like Ctrl-C, the session finalised, and a documented exit code.
// The pipes are real: the child's stdout/stderr are destroyed on the parent's side, so the child's
// next write fails with EPIPE exactly as it does under a shell pipeline.

import assert from 'node:assert/strict';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startFakeProvider } from '../../src/testing/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { cliEnv, startCli } from '../helpers/run-cli.js';

const BROKEN_PIPE = 141;
const STACK_TRACE = /\n\s+at |node:events|Unhandled 'error'/;

async function project(): Promise<{ root: string; home: string }> {
  const base = await makeTempDir();
  const root = join(base, 'project');
  await mkdir(root, { recursive: true });
  await writeFile(join(root, 'README.md'), '# Sample\n');
  return { root, home: join(base, 'home') };
}

/** The records of the only session under `home`. */
async function sessionRecords(home: string): Promise<Array<Record<string, unknown>>> {
  const files = (await readdir(join(home, 'sessions'))).filter((name) => name.endsWith('.jsonl') && name !== 'index.jsonl');
  assert.equal(files.length, 1, `sessions: ${files.join(', ')}`);
  const text = await readFile(join(home, 'sessions', files[0]!), 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

// Own temp dirs and provider each: the tests run side by side.
describe('glassbox exec: closed output streams', { concurrency: true }, () => {
  test('--json | head -1: a closed stdout cancels the run, the turn is finalised, exit 141, no stack trace', async () => {
    const { root, home } = await project();
    // Slow enough that the run is still streaming when stdout goes away, so a later write fails.
    const provider = await startFakeProvider({ script: [{ text: 'streaming slowly '.repeat(200), chunkSize: 3, chunkDelayMs: 25 }] });
    try {
      const { child, done } = startCli(
        ['exec', '--json', '--base-url', provider.baseURL, '-C', root, 'hi'],
        cliEnv({ OPENAI_API_KEY: 'x', GLASSBOX_HOME: home }),
      );
      let seen = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        // What `head -1` does: read the first line, then close the pipe.
        if (seen.includes('\n') && !child.stdout!.destroyed) child.stdout!.destroy();
      });
      const result = await done;
      assert.doesNotMatch(result.stderr, STACK_TRACE);
      assert.equal(result.code, BROKEN_PIPE, result.stderr);
      assert.match(result.stderr, /stdout was closed/);
      const records = await sessionRecords(home);
      const last = records.at(-1)!;
      assert.equal(last.type, 'turn_cancelled', JSON.stringify(last));
      assert.match(String(last.reason), /stdout was closed/);
    } finally {
      await provider.close();
    }
  });

  test('exec "…" | head -c 10: an answer nobody can read still leaves a finalised session, exit 141, no stack trace', async () => {
    const { root, home } = await project();
    const provider = await startFakeProvider({ script: [{ text: 'The answer, which nobody reads.' }] });
    try {
      const { child, done } = startCli(
        ['exec', '--base-url', provider.baseURL, '-C', root, 'hi'],
        cliEnv({ OPENAI_API_KEY: 'x', GLASSBOX_HOME: home }),
      );
      // Without --json nothing goes to stdout before the answer, so the reader is gone by then.
      child.stdout!.destroy();
      const result = await done;
      assert.doesNotMatch(result.stderr, STACK_TRACE);
      assert.equal(result.code, BROKEN_PIPE, result.stderr);
      assert.match(result.stderr, /stdout was closed/);
      assert.equal((await sessionRecords(home)).at(-1)!.type, 'turn_completed');
    } finally {
      await provider.close();
    }
  });

  for (const json of [false, true]) {
    test(`a closed stderr${json ? ' (--json)' : ''} does not stop the run: the answer still reaches stdout, exit 0`, async () => {
      const { root, home } = await project();
      const provider = await startFakeProvider({ script: [{ text: 'Answer despite stderr.' }] });
      try {
        const args = ['exec', ...(json ? ['--json'] : []), '--base-url', provider.baseURL, '-C', root, 'hi'];
        const { child, done } = startCli(args, cliEnv({ OPENAI_API_KEY: 'x', GLASSBOX_HOME: home }));
        child.stderr!.destroy();
        const result = await done;
        assert.equal(result.code, 0, result.stdout);
        assert.match(result.stdout, /Answer despite stderr\./);
        assert.equal((await sessionRecords(home)).at(-1)!.type, 'turn_completed');
      } finally {
        await provider.close();
      }
    });
  }
});
