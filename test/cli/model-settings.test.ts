// The model settings from the command line (and `modelSettings` in config.json) to the wire: each
// turn as `exec` wires it (flags → run config → runner → loop → dialect → official SDK → the fake
// provider on loopback), and what each API was sent.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';
import { ApprovalRegistry } from '../../src/agent/index.js';
import { openModel } from '../../src/cli/open-model.js';
import { resolveTurnConfig, turnRunnerSettings, type TurnOptionValues } from '../../src/cli/run-config.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { createGateway, type WireApi } from '../../src/model/index.js';
import { openRunner, runTurn } from '../../src/runner/index.js';
import { startFakeProvider, type CapturedRequest, type ScriptStep } from '../../src/testing/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/** One turn with these flags against a fake provider answering `script`; the requests it got. */
async function turnWith(
  wireApi: WireApi,
  flags: TurnOptionValues,
  options: { script?: ScriptStep[]; config?: unknown } = {},
): Promise<CapturedRequest[]> {
  const root = await makeTempDir();
  const home = join(root, '.home');
  await mkdir(home);
  const provider = await startFakeProvider({ script: options.script ?? [{ text: 'ok' }] });
  try {
    if (options.config !== undefined) await writeFile(join(home, 'config.json'), JSON.stringify(options.config));
    const config = resolveTurnConfig({ ...flags, wireApi, baseUrl: provider.baseURL, model: 'test-model', cd: root, home }, {});
    const model = await openModel(config, { stderr: new PassThrough() });
    const runner = await openRunner({ ...turnRunnerSettings(config, model.gateway, null), mcp: false });
    const result = await runTurn(runner, {
      prompt: 'hello',
      resume: null,
      runId: randomUUID(),
      signal: new AbortController().signal,
      approvals: new ApprovalRegistry(),
    });
    assert.equal(result.terminal.type, 'run_succeeded', JSON.stringify(result.terminal));
    return provider.requests;
  } finally {
    await provider.close();
    await rm(root, { recursive: true, force: true });
  }
}

function resolveError(flags: TurnOptionValues, wireApi: WireApi = 'chat'): string {
  try {
    resolveTurnConfig({ ...flags, wireApi, baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }, {});
  } catch (error) {
    assert.ok(error instanceof UsageError, String(error));
    return error.message;
  }
  assert.fail('expected a usage error');
}

describe('model settings on the wire', { concurrency: true }, () => {
  test('Chat Completions: --max-output-tokens is max_completion_tokens, --temperature temperature', async () => {
    const [request] = await turnWith('chat', { maxOutputTokens: '1234', temperature: '0.3' });
    assert.equal(request!.body.max_completion_tokens, 1234);
    assert.equal(request!.body.max_tokens, undefined);
    assert.equal(request!.body.temperature, 0.3);
  });

  test('Chat Completions: a server that refuses max_completion_tokens gets max_tokens', async () => {
    const refusal = 'Unrecognized request argument supplied: max_completion_tokens';
    const requests = await turnWith(
      'chat',
      { maxOutputTokens: '777' },
      { script: [{ fault: { kind: 'status', status: 400, message: refusal } }, { text: 'ok' }] },
    );
    assert.equal(requests.length, 2);
    assert.equal(requests[1]!.body.max_tokens, 777);
    assert.equal(requests[1]!.body.max_completion_tokens, undefined);
  });

  test('Responses: max_output_tokens and temperature', async () => {
    const [request] = await turnWith('responses', { maxOutputTokens: '2048', temperature: '1.5' });
    assert.equal(request!.body.max_output_tokens, 2048);
    assert.equal(request!.body.temperature, 1.5);
  });

  test("Anthropic: the user's max_tokens instead of the default", async () => {
    const [request] = await turnWith('anthropic', { maxOutputTokens: '4096' });
    assert.equal(request!.body.max_tokens, 4096);
    assert.equal(request!.body.temperature, undefined);
  });

  test('unset settings are not sent (a reasoning model may refuse temperature)', async () => {
    const [chat] = await turnWith('chat', {});
    for (const field of ['temperature', 'max_completion_tokens', 'max_tokens']) assert.equal(chat!.body[field], undefined, field);
    const [responses] = await turnWith('responses', {});
    for (const field of ['temperature', 'max_output_tokens']) assert.equal(responses!.body[field], undefined, field);
  });

  test('modelSettings in <home>/config.json apply, and a flag wins over it', async () => {
    const config = { modelSettings: { maxOutputTokens: 500, temperature: 0.7, reasoningEffort: 'low' } };
    const [fromConfig] = await turnWith('chat', {}, { config });
    assert.equal(fromConfig!.body.max_completion_tokens, 500);
    assert.equal(fromConfig!.body.temperature, 0.7);
    assert.equal(fromConfig!.body.reasoning_effort, 'low');
    const [overridden] = await turnWith('chat', { maxOutputTokens: '600', temperature: '0' }, { config });
    assert.equal(overridden!.body.max_completion_tokens, 600);
    assert.equal(overridden!.body.temperature, 0);
    // On a wire that takes no temperature, the configured one stays unsent instead of failing every run.
    // (Without an effort: a thinking budget raises max_tokens above it, thinking-config.ts.)
    const [anthropic] = await turnWith('anthropic', {}, { config: { modelSettings: { maxOutputTokens: 500, temperature: 0.7 } } });
    assert.equal(anthropic!.body.max_tokens, 500);
    assert.equal(anthropic!.body.temperature, undefined);
  });
});

describe('model settings are checked before anything starts', () => {
  test('bad flags are usage errors that name the flag', () => {
    for (const value of ['0', '-5', '1.5', 'many', ''])
      assert.match(resolveError({ maxOutputTokens: value }), /--max-output-tokens expects a positive whole number/, value);
    for (const value of ['2.5', '-0.1', 'hot', '', '1e0'])
      assert.match(resolveError({ temperature: value }), /--temperature expects a number from 0 to 2/, value);
    assert.match(
      resolveError({ temperature: '0.5' }, 'anthropic'),
      /--temperature: Anthropic Messages \(--wire-api anthropic\) accepts no temperature/,
    );
  });

  test('a bad modelSettings section in config.json is a usage error naming the key', async () => {
    const home = await makeTempDir();
    try {
      const cases: Array<[unknown, RegExp]> = [
        [{ maxOutputTokens: 0 }, /modelSettings\.maxOutputTokens must be a positive whole number/],
        [{ temperature: 3 }, /modelSettings\.temperature must be a number from 0 to 2/],
        [{ reasoningEffort: 'max' }, /modelSettings\.reasoningEffort must be one of/],
        [{ topP: 1 }, /modelSettings\.topP: unknown setting/],
        ['hot', /modelSettings must be an object/],
      ];
      for (const [section, expected] of cases) {
        await writeFile(join(home, 'config.json'), JSON.stringify({ modelSettings: section }));
        assert.throws(
          () => resolveTurnConfig({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm', cd: home, home }, {}),
          (error: unknown) => error instanceof UsageError && expected.test(error.message),
          JSON.stringify(section),
        );
      }
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  test('a runner opened with an impossible setting says which', async () => {
    const home = await makeTempDir();
    try {
      const gateway = createGateway({ wireApi: 'chat', baseURL: 'http://127.0.0.1:9/v1', apiKey: 'x' });
      const base = { root: home, home, model: 'm', wireApi: 'chat' as const, gateway, mcp: false };
      await assert.rejects(openRunner({ ...base, temperature: 2.5 }), /temperature must be a number from 0 to 2, got 2.5/);
      await assert.rejects(openRunner({ ...base, maxOutputTokens: 0.5 }), /maxOutputTokens must be a positive whole number/);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
