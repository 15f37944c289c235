import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startFakeProvider, type CapturedRequest, type ScriptedTurn } from '../../src/testing/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { execTurn } from '../helpers/exec-turn.js';
import { cliEnv, jsonLines, runCli, startCli } from '../helpers/run-cli.js';

/** Three rounds: two tools side by side, then a read, then the answer. */
const MULTI_ROUND_TASK: ScriptedTurn[] = [
  {
    text: 'Looking.',
    toolCalls: [
      { name: 'list_dir', arguments: { path: '.' } },
      { name: 'grep', arguments: { pattern: 'answer' } },
    ],
  },
  { toolCalls: [{ name: 'read_file', arguments: { path: 'src/main.ts' } }] },
  { text: 'The answer is 42.' },
];

/** What MULTI_ROUND_TASK must produce, through the CLI or in process: every event, in order, and each request. */
function assertMultiRoundTask(events: ReadonlyArray<Record<string, unknown>>, requests: readonly CapturedRequest[], wireApi: string): void {
  assert.equal(events[0]!.type, 'run_started');
  assert.equal(events[0]!.wireApi, wireApi);
  assert.equal(events.at(-1)!.type, 'run_succeeded');
  assert.equal(events.at(-1)!.answer, 'The answer is 42.');
  assert.equal(requests.length, 3);
  const finished = events.filter((e) => e.type === 'tool_finished');
  assert.equal(finished.length, 3);
  assert.ok(
    finished.every((e) => e.isError === false),
    JSON.stringify(finished),
  );
  assert.match(JSON.stringify(requests[2]!.body), /export const answer = 42/);
  // The prompt is sent as the user message.
  assert.match(JSON.stringify(requests[0]!.body), /what is the answer\?/);
  // The first message is the system prompt with the environment block.
  assert.match(JSON.stringify(requests[0]!.body), /<environment>/);
}

async function project(): Promise<{ root: string; home: string }> {
  const base = await makeTempDir();
  const root = join(base, 'project');
  await mkdir(join(root, 'src'), { recursive: true });
  await writeFile(join(root, 'README.md'), '# Sample\n\nA sample project.\n');
  await writeFile(join(root, 'src', 'main.ts'), 'export const answer = 42;\n');
  return { root, home: join(base, 'home') };
}

// Every test here has its own temp dirs and fake provider and changes nothing process-wide, so
// they run side by side: most of their time is spent waiting on a CLI process.
describe('glassbox exec', { concurrency: true }, () => {
  // The whole task through the built CLI on the chat wire; the other wire APIs run the same task in
  // this process below (what the CLI adds, --json and the key per wire API, is the same code for all).
  {
    const wireApi = 'chat' as const;
    describe(`glassbox exec (${wireApi})`, () => {
      test('--json prints every event, run_started first and the terminal event last; multi-round tool task', async () => {
        const { root, home } = await project();
        const provider = await startFakeProvider({
          script: MULTI_ROUND_TASK,
        });
        try {
          const result = await runCli(
            [
              'exec',
              '--json',
              '--wire-api',
              wireApi,
              '--base-url',
              provider.baseURL,
              '-m',
              'test-model',
              '-C',
              root,
              'what',
              'is',
              'the',
              'answer?',
            ],
            cliEnv({ OPENAI_API_KEY: 'sk-test', ANTHROPIC_API_KEY: 'sk-ant-test', GLASSBOX_HOME: home }),
          );
          assert.equal(result.code, 0, result.stderr);
          // The prompt words are joined into one user message (checked by the shared assertions).
          assertMultiRoundTask(jsonLines(result.stdout), provider.requests, wireApi);
          // Each wire API takes its own provider's key: with both set, chat sends OpenAI's (the
          // anthropic wire's is checked by the ANTHROPIC_API_KEY test below).
          assert.equal(provider.requests[0]!.headers.authorization, 'Bearer sk-test');
        } finally {
          await provider.close();
        }
      });
    });
  }

  for (const wireApi of ['responses', 'anthropic'] as const) {
    describe(`an exec turn (${wireApi})`, () => {
      test('every event, run_started first and the terminal event last; multi-round tool task', async () => {
        const { root, home } = await project();
        const provider = await startFakeProvider({
          script: MULTI_ROUND_TASK,
        });
        try {
          const apiKey = wireApi === 'anthropic' ? 'sk-ant-test' : 'sk-test';
          const { terminal, events } = await execTurn({
            root,
            home,
            baseURL: provider.baseURL,
            wireApi,
            apiKey,
            prompt: 'what is the answer?',
          });
          assert.equal(terminal.type, 'run_succeeded', JSON.stringify(terminal));
          assertMultiRoundTask(events, provider.requests, wireApi);
          const auth = provider.requests[0]!.headers;
          if (wireApi === 'anthropic') assert.equal(auth['x-api-key'], 'sk-ant-test');
          else assert.equal(auth.authorization, 'Bearer sk-test');
        } finally {
          await provider.close();
        }
      });
    });
  }

  describe('glassbox exec: answers, exit codes and bad input', { concurrency: true }, () => {
    test('prints the final answer on stdout and progress on stderr', async () => {
      const { root, home } = await project();
      const provider = await startFakeProvider({ script: [{ text: 'Hello from the model.' }] });
      try {
        const result = await runCli(
          ['exec', '--base-url', provider.baseURL, '-C', root, 'hi'],
          cliEnv({ OPENAI_API_KEY: 'sk-test', GLASSBOX_HOME: home }),
        );
        assert.equal(result.code, 0);
        assert.equal(result.stdout, 'Hello from the model.\n');
        assert.match(result.stderr, /session/);
      } finally {
        await provider.close();
      }
    });

    test('--json writes no raw control character: C1 and bidi controls in the answer are \\u escapes, the same JSON', async () => {
      const { root, home } = await project();
      const answer = 'ok \x1b]52;c;ZXZpbA==\x07 \x9b2J \x9d0;title\x9c \u202e end';
      const provider = await startFakeProvider({ script: [{ text: answer }] });
      try {
        const result = await runCli(['exec', '--json', '--base-url', provider.baseURL, '-C', root, 'hi'], cliEnv({ GLASSBOX_HOME: home }));
        assert.equal(result.code, 0, result.stderr);
        assert.ok(!/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/.test(result.stdout), JSON.stringify(result.stdout));
        assert.equal(jsonLines(result.stdout).at(-1)!.answer, answer);
      } finally {
        await provider.close();
      }
    });

    test('the API key is sent to the provider but never appears in output', async () => {
      const { root, home } = await project();
      const provider = await startFakeProvider({ apiKey: 'sk-secret-123', script: [{ text: 'ok' }] });
      try {
        const result = await runCli(
          ['exec', '--json', '--base-url', provider.baseURL, '-C', root, 'hi'],
          cliEnv({ OPENAI_API_KEY: 'sk-secret-123', GLASSBOX_HOME: home }),
        );
        assert.equal(result.code, 0, result.stderr);
        assert.doesNotMatch(result.stdout + result.stderr, /sk-secret-123/);
      } finally {
        await provider.close();
      }
    });

    test('the offline demo model runs with no key and says so on stderr', async () => {
      const { root, home } = await project();
      const result = await runCli(['exec', '-C', root, 'What is this project?'], cliEnv({ GLASSBOX_HOME: home }));
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stderr, /offline demo model/);
      assert.match(result.stderr, /OPENAI_API_KEY/);
      assert.match(result.stdout, /README\.md/);
      assert.match(result.stdout, /A sample project/);
    });

    test("the offline demo model answers on the anthropic wire too, and names Anthropic's key", async () => {
      const { root, home } = await project();
      const result = await runCli(
        ['exec', '--json', '--wire-api', 'anthropic', '-C', root, 'What is this project?'],
        cliEnv({ OPENAI_API_KEY: 'sk-openai-only', GLASSBOX_HOME: home }),
      );
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stderr, /no ANTHROPIC_API_KEY or --base-url set/);
      const events = jsonLines(result.stdout);
      assert.equal(events[0]!.wireApi, 'anthropic');
      assert.equal(events[0]!.model, 'glassbox-demo');
      assert.ok(events.filter((e) => e.type === 'tool_finished').length >= 2);
      assert.match(String(events.at(-1)!.answer), /A sample project/);
    });

    test('--wire-api anthropic takes ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY, not the OpenAI variables', async () => {
      const { root, home } = await project();
      const provider = await startFakeProvider({ apiKey: 'sk-ant-right', script: [{ text: 'Hello from Claude.' }] });
      try {
        const env = cliEnv({
          ANTHROPIC_BASE_URL: provider.baseURL,
          ANTHROPIC_API_KEY: 'sk-ant-right',
          OPENAI_BASE_URL: 'http://127.0.0.1:1/v1',
          OPENAI_API_KEY: 'sk-wrong',
          GLASSBOX_HOME: home,
        });
        const result = await runCli(['exec', '--wire-api', 'anthropic', '-C', root, 'hi'], env);
        assert.equal(result.code, 0, result.stderr);
        assert.equal(result.stdout.trim(), 'Hello from Claude.');
        // The default model for the anthropic wire API.
        assert.equal(provider.requests[0]!.body.model, 'claude-sonnet-5-5');
        assert.equal(provider.requests[0]!.headers['x-api-key'], 'sk-ant-right');
      } finally {
        await provider.close();
      }
    });

    test('--wire-api anthropic without a key at Anthropic itself is a usage error naming ANTHROPIC_API_KEY', async () => {
      const result = await runCli(
        ['exec', '--wire-api', 'anthropic', '--base-url', 'https://api.anthropic.com', 'hi'],
        cliEnv({ OPENAI_API_KEY: 'x' }),
      );
      assert.equal(result.code, 2);
      assert.match(result.stderr, /ANTHROPIC_API_KEY is not set/);
    });

    test('unknown wire API is a usage error (exit 2, one line, no stack)', async () => {
      const result = await runCli(['exec', '--wire-api', 'grpc', 'hi'], cliEnv({ OPENAI_API_KEY: 'x' }));
      assert.equal(result.code, 2);
      assert.match(result.stderr, /unknown wire API "grpc"; use --wire-api chat, responses or anthropic/);
      assert.equal(result.stderr.trim().split('\n').length, 1);
      assert.doesNotMatch(result.stderr, /at .*\.ts:\d+/);
    });

    test('bad numbers, bad URLs, missing root and empty prompt are usage errors', async () => {
      const cases: Array<[string[], RegExp]> = [
        [['exec', '--max-rounds', 'zero', 'hi'], /--max-rounds expects a positive whole number/],
        [['exec', '--base-url', 'not a url', 'hi'], /--base-url "not a url" is not a URL/],
        [['exec', '-C', '/definitely/not/here', 'hi'], /does not exist/],
        [['exec', '--sandbox', 'open', 'hi'], /unknown sandbox mode/],
        [['exec', '   '], /prompt is empty/],
        // No words and an empty stdin (/dev/null): nothing to send.
        [['exec'], /no prompt: stdin was empty/],
      ];
      // One process each (the exit code is the point), all at once.
      const results = await Promise.all(cases.map(([args]) => runCli(args, cliEnv({ OPENAI_API_KEY: 'x' }))));
      for (const [index, [args, pattern]] of cases.entries()) {
        const result = results[index]!;
        assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
        assert.match(result.stderr, pattern);
      }
    });

    test('a 401 from the provider is one clear line and exit code 2', async () => {
      const { root, home } = await project();
      const provider = await startFakeProvider({ apiKey: 'right-key', script: [] });
      try {
        const result = await runCli(
          ['exec', '--base-url', provider.baseURL, '-C', root, 'hi'],
          cliEnv({ OPENAI_API_KEY: 'wrong-key', GLASSBOX_HOME: home }),
        );
        assert.equal(result.code, 2);
        assert.match(result.stderr, /AUTH_FAILED/);
        assert.match(result.stderr, /OPENAI_API_KEY/);
        assert.doesNotMatch(result.stderr, /\n\s+at /);
      } finally {
        await provider.close();
      }
    });

    test('an unreachable endpoint fails with exit 1 and says what to check', async () => {
      const { root, home } = await project();
      const provider = await startFakeProvider();
      const url = provider.baseURL;
      await provider.close();
      const result = await runCli(['exec', '--base-url', url, '-C', root, 'hi'], cliEnv({ OPENAI_API_KEY: 'x', GLASSBOX_HOME: home }));
      assert.equal(result.code, 1);
      assert.match(result.stderr, /CONNECTION_FAILED/);
      assert.match(result.stderr, /base-url|reach/i);
    });

    test('malformed SSE is a clear failure, exit 1', async () => {
      const { root, home } = await project();
      const provider = await startFakeProvider({
        script: [{ text: 'some text to stream', chunkSize: 2, fault: { kind: 'malformed', afterEvents: 4 } }],
      });
      try {
        const result = await runCli(
          ['exec', '--base-url', provider.baseURL, '-C', root, 'hi'],
          cliEnv({ OPENAI_API_KEY: 'x', GLASSBOX_HOME: home }),
        );
        assert.equal(result.code, 1);
        assert.match(result.stderr, /MALFORMED_STREAM/);
      } finally {
        await provider.close();
      }
    });

    for (const [signal, code] of [
      ['SIGINT', 130],
      ['SIGTERM', 143],
    ] as const) {
      test(`${signal} cancels the run cleanly: exit ${code} and run_cancelled last`, async () => {
        const { root, home } = await project();
        const provider = await startFakeProvider({ script: [{ text: 'streaming slowly '.repeat(40), chunkSize: 3, chunkDelayMs: 25 }] });
        try {
          const { child, done } = startCli(
            ['exec', '--json', '--base-url', provider.baseURL, '-C', root, 'hi'],
            cliEnv({ OPENAI_API_KEY: 'x', GLASSBOX_HOME: home }),
          );
          let sent = false;
          child.stdout!.on('data', (chunk: Buffer) => {
            if (!sent && chunk.toString().includes('assistant_delta')) {
              sent = true;
              child.kill(signal);
            }
          });
          const result = await done;
          assert.equal(result.code, code, result.stderr);
          assert.equal(jsonLines(result.stdout).at(-1)!.type, 'run_cancelled');
          assert.match(result.stderr, /cancel/i);
        } finally {
          await provider.close();
        }
      });
    }

    test('--version and --help answer', async () => {
      const [version, help] = await Promise.all([runCli(['--version'], cliEnv({})), runCli(['--help'], cliEnv({}))]);
      assert.equal(version.code, 0);
      assert.match(version.stdout, /^\d+\.\d+\.\d+\n$/);
      assert.equal(help.code, 0);
      assert.match(help.stdout, /exec/);
    });
  });
});
