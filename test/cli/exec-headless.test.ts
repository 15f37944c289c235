// `exec` for CI (docs/ci.md): an answer schema, a spending cap and a fallback model, through the
// built CLI against the scripted fake provider: what reaches the wire, the exit codes, the last
// --json line and what the session file records.

import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startFakeProvider, type CapturedRequest, type ScriptedTurn } from '../../src/testing/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { cliEnv, jsonLines, runCli, type CliResult } from '../helpers/run-cli.js';

const VERDICT_SCHEMA = {
  type: 'object',
  properties: { verdict: { type: 'string', enum: ['approve', 'reject'] }, issues: { type: 'integer', minimum: 0 } },
  required: ['verdict'],
  additionalProperties: false,
};

interface HeadlessRun extends CliResult {
  requests: CapturedRequest[];
  home: string;
  dir: string;
}

async function execAgainst(
  script: ScriptedTurn[],
  args: string[],
  setup?: (dir: string) => Promise<void>,
  env: Record<string, string> = { OPENAI_API_KEY: 'sk-test' },
): Promise<HeadlessRun> {
  const dir = await makeTempDir();
  const root = join(dir, 'project');
  const home = join(dir, 'home');
  await mkdir(root, { recursive: true });
  await writeFile(join(root, 'README.md'), '# Sample\n');
  await writeFile(join(dir, 'schema.json'), JSON.stringify(VERDICT_SCHEMA));
  await setup?.(dir);
  const provider = await startFakeProvider({ script });
  try {
    const result = await runCli(
      ['exec', '--base-url', provider.baseURL, '-C', root, ...args, 'review this'],
      cliEnv({ ...env, GLASSBOX_HOME: home }),
      dir,
    );
    return { ...result, requests: [...provider.requests], home, dir };
  } finally {
    await provider.close();
  }
}

/** Every record of the run's one session file. */
async function sessionRecords(home: string): Promise<Array<Record<string, unknown>>> {
  const files: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) await walk(join(dir, entry.name));
      else if (entry.name.endsWith('.jsonl') && entry.name !== 'index.jsonl') files.push(join(dir, entry.name));
    }
  };
  await walk(join(home, 'sessions'));
  assert.equal(files.length, 1, files.join(', '));
  return (await readFile(files[0]!, 'utf8'))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The text of the last user message a request carried (Responses `input`, Chat `messages`). */
function lastUserText(request: CapturedRequest): string {
  const items = (request.body.input ?? request.body.messages) as Array<{ role?: string; content?: unknown }>;
  const user = items.filter((item) => item.role === 'user').at(-1);
  if (typeof user?.content === 'string') return user.content;
  return ((user?.content ?? []) as Array<{ text?: string }>).map((part) => part.text ?? '').join('');
}

describe('exec --output-schema', { concurrency: true }, () => {
  test('a matching answer: the schema goes to the wire, the last --json event carries the parsed value', async () => {
    const [responses, chat, text] = await Promise.all([
      execAgainst(
        [{ text: '{"verdict":"approve","issues":0}' }],
        ['--json', '--wire-api', 'responses', '-m', 'gpt-5-mini', '--output-schema', 'schema.json'],
      ),
      execAgainst(
        [{ text: '{"verdict":"reject","issues":2}' }],
        ['--json', '--wire-api', 'chat', '-m', 'gpt-5-mini', '--output-schema', 'schema.json'],
      ),
      execAgainst([{ text: '```json\n{"verdict":"approve"}\n```' }], ['-m', 'gpt-5-mini', '--output-schema', 'schema.json']),
    ]);
    assert.equal(responses.code, 0, responses.stderr);
    const last = jsonLines(responses.stdout).at(-1)!;
    assert.equal(last.type, 'run_succeeded');
    assert.deepEqual(last.structuredOutput, { verdict: 'approve', issues: 0 });
    assert.equal(responses.requests.length, 1);
    const format = (responses.requests[0]!.body.text as { format: Record<string, unknown> }).format;
    assert.equal(format.type, 'json_schema');
    assert.equal(format.strict, true);
    // Strict mode: the optional key became required and nullable.
    assert.deepEqual((format.schema as { required: string[] }).required, ['verdict', 'issues']);
    assert.match(lastUserText(responses.requests[0]!), /review this\n\n.*valid against this JSON Schema/s);

    assert.equal(chat.code, 0, chat.stderr);
    assert.deepEqual(jsonLines(chat.stdout).at(-1)!.structuredOutput, { verdict: 'reject', issues: 2 });
    const responseFormat = chat.requests[0]!.body.response_format as { type: string; json_schema: { name: string; strict: boolean } };
    assert.equal(responseFormat.type, 'json_schema');
    assert.equal(responseFormat.json_schema.strict, true);

    // Without --json stdout is the JSON value itself, out of its code fence.
    assert.equal(text.code, 0, text.stderr);
    assert.equal(text.stdout, '{"verdict":"approve"}\n');
  });

  test('Anthropic Messages has no schema field: the prompt states the schema and the answer is checked locally', async () => {
    const run = await execAgainst(
      [{ text: '{"verdict":"approve"}' }],
      ['--json', '--wire-api', 'anthropic', '-m', 'claude-sonnet-4-5', '--output-schema', 'schema.json'],
      undefined,
      { ANTHROPIC_API_KEY: 'sk-ant-test' },
    );
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(jsonLines(run.stdout).at(-1)!.structuredOutput, { verdict: 'approve' });
    const body = run.requests[0]!.body;
    assert.ok(!('response_format' in body) && !('text' in body) && !('output_format' in body), Object.keys(body).join(', '));
    assert.match(lastUserText(run.requests[0]!), /valid against this JSON Schema:\n\{"type":"object"/);
  });

  test('a mismatch gets one retry turn that tells the model what was wrong', async () => {
    const run = await execAgainst(
      [{ text: 'Looks good to me!' }, { text: '{"verdict":"approve"}' }],
      ['--json', '-m', 'gpt-5-mini', '--output-schema', 'schema.json'],
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.requests.length, 2);
    assert.match(lastUserText(run.requests[1]!), /did not match the required JSON Schema[\s\S]*not JSON/);
    const events = jsonLines(run.stdout);
    const terminals = events.filter((event) => event.type === 'run_succeeded');
    assert.equal(terminals.length, 2);
    assert.match(String(terminals[0]!.outputSchemaError), /not JSON/);
    assert.deepEqual(events.at(-1)!.structuredOutput, { verdict: 'approve' });
    // Both turns in one session, the usage of both in the last line's totals.
    assert.equal(events.at(-1)!.sessionId, events[0]!.sessionId);
    const turns = (await sessionRecords(run.home)).filter((record) => record.type === 'turn_completed');
    assert.equal(turns.length, 2);
    const usage = events.at(-1)!.totalUsage as { inputTokens: number };
    const second = events.at(-1)!.usage as { total: { inputTokens: number } };
    assert.ok(usage.inputTokens > second.total.inputTokens, JSON.stringify({ usage, second }));
  });

  test('a second mismatch exits 3 and prints no answer', async () => {
    const run = await execAgainst(
      [{ text: '{"verdict":"maybe"}' }, { text: '{"verdict":"maybe"}' }],
      ['-m', 'gpt-5-mini', '--output-schema', 'schema.json'],
    );
    assert.equal(run.code, 3, run.stderr);
    assert.equal(run.requests.length, 2);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /does not match --output-schema, also after a retry:\n.*expected one of "approve"\|"reject"/);
  });

  test('an unreadable or invalid schema file exits 2 before any model call', async () => {
    const cases = await Promise.all(
      [
        ['missing.json', /--output-schema .*missing\.json: cannot read it \(ENOENT\)/],
        ['broken.json', /--output-schema .*broken\.json: not JSON/],
        ['bogus.json', /--output-schema .*bogus\.json: not a usable JSON Schema: Unsupported type: bogus/],
        ['array.json', /--output-schema .*array\.json: the schema must be a JSON object/],
      ].map(async ([file, message]) => {
        const run = await execAgainst([{ text: '{}' }], ['-m', 'gpt-5-mini', '--output-schema', String(file)], async (dir) => {
          await writeFile(join(dir, 'broken.json'), '{"type": ');
          await writeFile(join(dir, 'bogus.json'), '{"type": "bogus"}');
          await writeFile(join(dir, 'array.json'), '[]');
        });
        return { run, message: message as RegExp };
      }),
    );
    for (const { run, message } of cases) {
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, message);
      assert.equal(run.requests.length, 0);
    }
  });
});

describe('exec --max-budget-usd', { concurrency: true }, () => {
  test('stops before the call that could pass the cap: exit 4, a clear message, recorded in the session', async () => {
    // The first call costs $0.25 (1M input tokens of gpt-5-mini at $0.25/M); the next could cost
    // about $0.002 more, which a $0.2505 budget does not leave room for.
    const run = await execAgainst(
      [
        { toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }], usage: { input: 1_000_000, output: 0 } },
        { text: 'never asked' },
      ],
      ['--json', '-m', 'gpt-5-mini', '--max-output-tokens', '1000', '--max-budget-usd', '0.2505'],
    );
    assert.equal(run.code, 4, run.stderr);
    assert.equal(run.requests.length, 1);
    const last = jsonLines(run.stdout).at(-1)!;
    assert.equal(last.type, 'run_failed');
    const error = last.error as { code: string; message: string };
    assert.equal(error.code, 'BUDGET_EXCEEDED');
    assert.match(error.message, /with \$0\.2500 spent it could pass the budget of \$0\.2505 \(--max-budget-usd\)/);
    assert.match(run.stderr, /BUDGET_EXCEEDED/);
    const failed = (await sessionRecords(run.home)).find((record) => record.type === 'turn_failed');
    assert.equal((failed?.error as { code?: string } | undefined)?.code, 'BUDGET_EXCEEDED');
  });

  test('a run within the cap is untouched', async () => {
    const run = await execAgainst([{ text: 'Done.' }], ['-m', 'gpt-5-mini', '--max-budget-usd', '5']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'Done.\n');
  });

  test('a model without a price, or a bad amount, is a usage error before any call', async () => {
    const [unpriced, fallbackUnpriced, bad] = await Promise.all([
      execAgainst([{ text: 'ok' }], ['-m', 'my-local-model', '--max-budget-usd', '1']),
      execAgainst([{ text: 'ok' }], ['-m', 'gpt-5-mini', '--fallback-model', 'my-local-model', '--max-budget-usd', '1']),
      execAgainst([{ text: 'ok' }], ['-m', 'gpt-5-mini', '--max-budget-usd', '-3']),
    ]);
    assert.equal(unpriced.code, 2, unpriced.stderr);
    assert.match(unpriced.stderr, /--max-budget-usd needs a price for my-local-model/);
    assert.equal(unpriced.requests.length, 0);
    assert.equal(fallbackUnpriced.code, 2, fallbackUnpriced.stderr);
    assert.match(fallbackUnpriced.stderr, /--max-budget-usd needs a price for my-local-model/);
    assert.equal(fallbackUnpriced.requests.length, 0);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /--max-budget-usd: expected an amount of US dollars above 0, got "-3"/);
  });
});

describe('exec --fallback-model', { concurrency: true }, () => {
  // The gateway makes 4 attempts; Retry-After 0 keeps the backoff out of the test's time.
  const overloaded: ScriptedTurn[] = [529, 503, 529, 503].map((status) => ({
    fault: { kind: 'status', status, message: 'Overloaded', retryAfter: '0' },
  }));

  test('after the retries are spent the run continues on the fallback model, and says so', async () => {
    const [json, text] = await Promise.all([
      execAgainst(
        [...overloaded, { toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }] }, { text: 'Done on the fallback.' }],
        ['--json', '-m', 'gpt-5-mini', '--fallback-model', 'gpt-5-nano'],
      ),
      execAgainst([...overloaded, { text: 'Done.' }], ['-m', 'gpt-5-mini', '--fallback-model', 'gpt-5-nano']),
    ]);
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual(
      json.requests.map((request) => request.body.model),
      ['gpt-5-mini', 'gpt-5-mini', 'gpt-5-mini', 'gpt-5-mini', 'gpt-5-nano', 'gpt-5-nano'],
    );
    const events = jsonLines(json.stdout);
    const warning = events.find((event) => event.type === 'warning' && event.code === 'MODEL_FALLBACK');
    assert.match(String(warning?.message), /gpt-5-mini failed after its retries \(SERVER_ERROR: .*\); the run continues on gpt-5-nano/);
    assert.equal(events.at(-1)!.type, 'run_succeeded');
    // Priced at the fallback's list price once switched: still a known cost.
    assert.equal(typeof events.at(-1)!.totalCostUsd, 'number');
    const recorded = (await sessionRecords(json.home)).find((record) => record.type === 'warning');
    assert.equal(recorded?.code, 'MODEL_FALLBACK');
    assert.match(String(recorded?.message), /continues on gpt-5-nano/);

    assert.equal(text.code, 0, text.stderr);
    assert.equal(text.stdout, 'Done.\n');
    assert.match(text.stderr, /warning: gpt-5-mini failed after its retries .* continues on gpt-5-nano \(--fallback-model\)/);
  });

  test('without --fallback-model the same overload fails the run', async () => {
    const run = await execAgainst([...overloaded], ['--json', '-m', 'gpt-5-mini']);
    assert.equal(run.code, 1, run.stderr);
    assert.equal(run.requests.length, 4);
    assert.equal((jsonLines(run.stdout).at(-1)!.error as { code: string }).code, 'SERVER_ERROR');
  });
});
