// `glassbox exec` reads stdin as scripts use it with other agents: the prompt when none is given
// (or `-`), context after the prompt when one is. Through the built CLI: what the process reads is
// the point (a pipe, /dev/null, a pipe left open).

import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startFakeProvider, type CapturedRequest } from '../../src/testing/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { cliEnv, runCli, startCli } from '../helpers/run-cli.js';

async function project(): Promise<{ root: string; home: string }> {
  const base = await makeTempDir();
  const root = join(base, 'project');
  await mkdir(root, { recursive: true });
  await writeFile(join(root, 'README.md'), '# Sample\n');
  return { root, home: join(base, 'home') };
}

/** The user's message of the first request (Chat Completions: the last `user` message). */
function userMessage(request: CapturedRequest): string {
  const messages = (request.body as { messages: Array<{ role: string; content: unknown }> }).messages;
  const content = messages.filter((m) => m.role === 'user').at(-1)!.content;
  return typeof content === 'string' ? content : (content as Array<{ text: string }>).map((part) => part.text).join('');
}

const DIFF = 'diff --git a/x.ts b/x.ts\n--- a/x.ts\n+++ b/x.ts\n@@ -1 +1 @@\n-const a = 1;\n+const a = 2;\n';

describe('glassbox exec reads stdin', { concurrency: true }, () => {
  /** One exec against a fake provider; the user message it sent, if it sent one. */
  async function execWith(args: string[], stdin: string | Buffer): Promise<{ code: number | null; stderr: string; sent: string | null }> {
    const { root, home } = await project();
    const provider = await startFakeProvider({ script: [{ text: 'ok' }] });
    try {
      const result = await runCli(
        ['exec', '--base-url', provider.baseURL, '-C', root, ...args],
        cliEnv({ OPENAI_API_KEY: 'sk-test', GLASSBOX_HOME: home }),
        undefined,
        stdin,
      );
      const first = provider.requests[0];
      return { code: result.code, stderr: result.stderr, sent: first === undefined ? null : userMessage(first) };
    } finally {
      await provider.close();
    }
  }

  test('with no prompt, and with "-", stdin is the prompt', async () => {
    const [none, dash] = await Promise.all([execWith([], 'what is the answer?\n'), execWith(['-'], 'what is the answer?\n')]);
    for (const result of [none, dash]) {
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.sent, 'what is the answer?', 'without the line ending echo adds');
    }
  });

  test('with a prompt, what is piped follows it as delimited context', async () => {
    const result = await execWith(['review', 'this'], DIFF);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.sent, `review this\n\n<stdin>\n${DIFF}</stdin>`);
  });

  test('an empty stdin adds nothing to a prompt, and is no prompt by itself', async () => {
    const [withPrompt, alone] = await Promise.all([execWith(['hi'], ''), execWith([], '  \n')]);
    assert.equal(withPrompt.code, 0, withPrompt.stderr);
    assert.equal(withPrompt.sent, 'hi');
    assert.equal(alone.code, 2);
    assert.match(alone.stderr, /no prompt: stdin was empty/);
    assert.equal(alone.sent, null);
  });

  test('binary input and input over the size limit are usage errors that say why, and nothing is sent', async () => {
    const cases: Array<[string[], Buffer, RegExp]> = [
      [['look'], Buffer.from('PNG\x00\x01\x02', 'latin1'), /stdin is not text \(a NUL byte at offset 3\)/],
      [[], Buffer.from([0x68, 0x69, 0xff, 0xfe, 0x0a]), /stdin is not valid UTF-8 text/],
      [['summarize'], Buffer.alloc(1024 * 1024 + 1, 'a'), /stdin is over the 1 MiB limit for context for the prompt/],
    ];
    const results = await Promise.all(cases.map(([args, input]) => execWith(args, input)));
    for (const [index, [, , pattern]] of cases.entries()) {
      const result = results[index]!;
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, pattern);
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
      assert.equal(result.sent, null);
    }
    // Exactly the limit is accepted. Text like a real diff's: one 1 MiB run of a single letter takes
    // the o200k tokenizer minutes (its merges are quadratic in the length of one word).
    const lines = Array.from({ length: 40_000 }, (_, i) => `+const value${i} = compute(${i});\n`).join('');
    const atLimit = await execWith(['summarize'], Buffer.from(lines.slice(0, 1024 * 1024)));
    assert.equal(atLimit.code, 0, atLimit.stderr);
    assert.equal(atLimit.sent?.length, 'summarize\n\n<stdin>\n\n</stdin>'.length + 1024 * 1024);
  });

  test('a pipe left open and silent is waited for, and the wait is explained on stderr', async () => {
    const { root, home } = await project();
    const provider = await startFakeProvider({ script: [{ text: 'ok' }] });
    try {
      const { child, done } = startCli(
        ['exec', '--base-url', provider.baseURL, '-C', root, 'review', 'this'],
        cliEnv({ OPENAI_API_KEY: 'sk-test', GLASSBOX_HOME: home }),
        undefined,
        'open-pipe',
      );
      // Written only once glassbox says it waits: what comes later is still read, not dropped.
      const waiting = new Promise<boolean>((resolve) => {
        let stderr = '';
        child.stderr!.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          if (/waiting for stdin to end/.test(stderr)) resolve(true);
        });
      });
      // A CLI that does not wait for stdin ends first (and fails the test) instead of hanging it.
      assert.equal(await Promise.race([waiting, done.then(() => false)]), true, 'exec ended without waiting for stdin');
      child.stdin!.end(DIFF);
      const result = await done;
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stderr, /Use <\/dev\/null to skip it/);
      assert.equal(userMessage(provider.requests[0]!), `review this\n\n<stdin>\n${DIFF}</stdin>`);
    } finally {
      await provider.close();
    }
  });
});
