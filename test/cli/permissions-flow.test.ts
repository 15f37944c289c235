import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startFakeProvider, type FakeProvider, type ScriptStep } from '../../src/testing/index.js';
import { detectSandbox } from '../../src/sandbox/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { cliEnv, jsonLines, runCli } from '../helpers/run-cli.js';
import { toolOutputsSent } from '../helpers/loop-harness.js';

const SECRET_KEY = 'sk-live-never-show-me-0123456789';

async function setup(script: ScriptStep[]): Promise<{ root: string; home: string; provider: FakeProvider; env: NodeJS.ProcessEnv }> {
  const base = await makeTempDir();
  const root = join(base, 'project');
  await mkdir(root, { recursive: true });
  await writeFile(join(root, '.env'), 'DATABASE_PASSWORD=hunter2\n');
  await writeFile(join(root, 'README.md'), '# p\n');
  const provider = await startFakeProvider({ script });
  const home = join(base, 'home');
  return { root, home, provider, env: cliEnv({ OPENAI_API_KEY: SECRET_KEY, GLASSBOX_HOME: home }) };
}

const sandbox = await detectSandbox();

describe('permissions through glassbox exec', () => {
  test('read-only sandbox, no TTY: a write asks, nobody can answer, it is denied and the model is told', async () => {
    const { root, provider, env } = await setup([
      { toolCalls: [{ name: 'write_file', arguments: { path: 'new.txt', content: 'hello' } }] },
      { text: 'Could not write.' },
    ]);
    try {
      const result = await runCli(['exec', '--json', '--base-url', provider.baseURL, '-C', root, 'write a file'], env);
      assert.equal(result.code, 0, result.stderr);
      const events = jsonLines(result.stdout);
      const decided = events.find((e) => e.type === 'tool_permission_decided');
      assert.equal(decided?.decision, 'ask');
      assert.ok(events.some((e) => e.type === 'approval_requested'));
      const resolved = events.find((e) => e.type === 'approval_resolved');
      assert.equal(resolved?.decision, 'deny');
      assert.equal(resolved?.by, 'no-tty');
      assert.equal(existsSync(join(root, 'new.txt')), false);
      assert.match(toolOutputsSent(provider.requests[1]!.body, 'chat')[0]!, /APPROVAL_DENIED/);
    } finally {
      await provider.close();
    }
  });

  test('workspace-write: write_file writes without asking', async () => {
    const { root, provider, env } = await setup([
      { toolCalls: [{ name: 'write_file', arguments: { path: 'src/new.txt', content: 'hello\n' } }] },
      { text: 'Written.' },
    ]);
    try {
      const result = await runCli(
        ['exec', '--json', '--sandbox', 'workspace-write', '--base-url', provider.baseURL, '-C', root, 'write'],
        env,
      );
      assert.equal(result.code, 0, result.stderr);
      assert.equal(await readFile(join(root, 'src', 'new.txt'), 'utf8'), 'hello\n');
      const decided = jsonLines(result.stdout).find((e) => e.type === 'tool_permission_decided');
      assert.equal(decided?.decision, 'allow');
    } finally {
      await provider.close();
    }
  });

  test('read-only + never: write tools are hidden from the model and not callable by name', async () => {
    const { root, provider, env } = await setup([
      { toolCalls: [{ name: 'write_file', arguments: { path: 'x.txt', content: 'x' } }] },
      { text: 'ok' },
    ]);
    try {
      const result = await runCli(['exec', '--json', '--approval-policy', 'never', '--base-url', provider.baseURL, '-C', root, 'try'], env);
      assert.equal(result.code, 0, result.stderr);
      const tools = (provider.requests[0]!.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name);
      assert.ok(tools.includes('read_file'));
      assert.ok(!tools.includes('write_file'), tools.join(','));
      assert.match(toolOutputsSent(provider.requests[1]!.body, 'chat')[0]!, /UNKNOWN_TOOL/);
      assert.equal(existsSync(join(root, 'x.txt')), false);
    } finally {
      await provider.close();
    }
  });

  test('protected paths: writing .env asks even in workspace-write', async () => {
    const { root, provider, env } = await setup([
      { toolCalls: [{ name: 'write_file', arguments: { path: '.env', content: 'X=1' } }] },
      { text: 'ok' },
    ]);
    try {
      const result = await runCli(
        ['exec', '--json', '--sandbox', 'workspace-write', '--base-url', provider.baseURL, '-C', root, 'edit env'],
        env,
      );
      assert.equal(result.code, 0, result.stderr);
      assert.equal(jsonLines(result.stdout).find((e) => e.type === 'tool_permission_decided')?.decision, 'ask');
      assert.equal(await readFile(join(root, '.env'), 'utf8'), 'DATABASE_PASSWORD=hunter2\n');
    } finally {
      await provider.close();
    }
  });

  test('reading .env with read_file needs approval; without a TTY the secret never reaches the model', async () => {
    const { root, provider, env } = await setup([{ toolCalls: [{ name: 'read_file', arguments: { path: '.env' } }] }, { text: 'ok' }]);
    try {
      const result = await runCli(['exec', '--json', '--base-url', provider.baseURL, '-C', root, 'read env'], env);
      assert.equal(result.code, 0, result.stderr);
      assert.doesNotMatch(JSON.stringify(provider.requests[1]!.body), /hunter2/);
    } finally {
      await provider.close();
    }
  });

  test('shell children never see the API key', async () => {
    const { root, home, provider, env } = await setup([{ toolCalls: [{ name: 'shell', arguments: { command: 'env' } }] }, { text: 'ok' }]);
    try {
      const result = await runCli(
        ['exec', '--json', '--sandbox', 'danger-full-access', '--base-url', provider.baseURL, '-C', root, 'show env'],
        env,
      );
      assert.equal(result.code, 0, result.stderr);
      const output = toolOutputsSent(provider.requests[1]!.body, 'chat')[0]!;
      assert.match(output, /PATH=/);
      assert.doesNotMatch(output, new RegExp(SECRET_KEY));
      assert.doesNotMatch(output, /OPENAI_API_KEY/);
      const sessions = await runCli(['sessions', 'show', 'last', '--json'], cliEnv({ GLASSBOX_HOME: home }));
      assert.doesNotMatch(sessions.stdout, new RegExp(SECRET_KEY));
    } finally {
      await provider.close();
    }
  });

  test('on-request in workspace-write: a shell command runs sandboxed without asking; .env is masked inside', {
    skip: sandbox.available ? false : `bubblewrap unavailable: ${sandbox.reason}`,
  }, async () => {
    const { root, provider, env } = await setup([
      { toolCalls: [{ name: 'shell', arguments: { command: 'touch made-by-shell && cat .env; echo done' } }] },
      { text: 'ok' },
    ]);
    try {
      const result = await runCli(
        ['exec', '--json', '--sandbox', 'workspace-write', '--base-url', provider.baseURL, '-C', root, 'run'],
        env,
      );
      assert.equal(result.code, 0, result.stderr);
      const events = jsonLines(result.stdout);
      assert.equal(events.find((e) => e.type === 'tool_permission_decided')?.decision, 'allow');
      assert.ok(!events.some((e) => e.type === 'approval_requested'));
      assert.ok(existsSync(join(root, 'made-by-shell')));
      const output = toolOutputsSent(provider.requests[1]!.body, 'chat')[0]!;
      assert.match(output, /sandbox: workspace-write/);
      assert.match(output, /done/);
      assert.doesNotMatch(output, /hunter2/);
    } finally {
      await provider.close();
    }
  });
});
