import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startFakeProvider, type FakeProvider, type ScriptStep } from '../../src/testing/index.js';
import { detectSandbox } from '../../src/sandbox/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { execTurn, type ExecTurnOptions } from '../helpers/exec-turn.js';
import { toolOutputsSent } from '../helpers/loop-harness.js';

// The permission flow of an exec turn, in this process (test/helpers/exec-turn.ts wires what
// `glassbox exec` does). That the CLI's own environment (its API key) never reaches a shell child
// is a property of the process: test/security/secret-scan.test.ts checks it on the built CLI.

const SECRET_KEY = 'sk-live-never-show-me-0123456789';

interface Setup {
  root: string;
  home: string;
  provider: FakeProvider;
  exec: (prompt: string, options?: Partial<ExecTurnOptions>) => ReturnType<typeof execTurn>;
}

async function setup(script: ScriptStep[]): Promise<Setup> {
  const base = await makeTempDir();
  const root = join(base, 'project');
  await mkdir(root, { recursive: true });
  await writeFile(join(root, '.env'), 'DATABASE_PASSWORD=hunter2\n');
  await writeFile(join(root, 'README.md'), '# p\n');
  const provider = await startFakeProvider({ script });
  const home = join(base, 'home');
  const exec = (prompt: string, options: Partial<ExecTurnOptions> = {}) =>
    execTurn({ root, home, baseURL: provider.baseURL, apiKey: SECRET_KEY, prompt, ...options });
  return { root, home, provider, exec };
}

const sandbox = await detectSandbox();

describe('permissions in an exec turn', () => {
  test('read-only sandbox, no TTY: a write asks, nobody can answer, it is denied and the model is told', async () => {
    const { root, provider, exec } = await setup([
      { toolCalls: [{ name: 'write_file', arguments: { path: 'new.txt', content: 'hello' } }] },
      { text: 'Could not write.' },
    ]);
    try {
      const { terminal, events } = await exec('write a file');
      assert.equal(terminal.type, 'run_succeeded', JSON.stringify(terminal));
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
    const { root, provider, exec } = await setup([
      { toolCalls: [{ name: 'write_file', arguments: { path: 'src/new.txt', content: 'hello\n' } }] },
      { text: 'Written.' },
    ]);
    try {
      const { terminal, events } = await exec('write', { sandbox: 'workspace-write' });
      assert.equal(terminal.type, 'run_succeeded', JSON.stringify(terminal));
      assert.equal(await readFile(join(root, 'src', 'new.txt'), 'utf8'), 'hello\n');
      const decided = events.find((e) => e.type === 'tool_permission_decided');
      assert.equal(decided?.decision, 'allow');
    } finally {
      await provider.close();
    }
  });

  test('read-only + never: write tools are hidden from the model and not callable by name', async () => {
    const { root, provider, exec } = await setup([
      { toolCalls: [{ name: 'write_file', arguments: { path: 'x.txt', content: 'x' } }] },
      { text: 'ok' },
    ]);
    try {
      const { terminal } = await exec('try', { approvalPolicy: 'never' });
      assert.equal(terminal.type, 'run_succeeded', JSON.stringify(terminal));
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
    const { root, provider, exec } = await setup([
      { toolCalls: [{ name: 'write_file', arguments: { path: '.env', content: 'X=1' } }] },
      { text: 'ok' },
    ]);
    try {
      const { terminal, events } = await exec('edit env', { sandbox: 'workspace-write' });
      assert.equal(terminal.type, 'run_succeeded', JSON.stringify(terminal));
      assert.equal(events.find((e) => e.type === 'tool_permission_decided')?.decision, 'ask');
      assert.equal(await readFile(join(root, '.env'), 'utf8'), 'DATABASE_PASSWORD=hunter2\n');
    } finally {
      await provider.close();
    }
  });

  test('reading .env with read_file needs approval; without a TTY the secret never reaches the model', async () => {
    const { provider, exec } = await setup([{ toolCalls: [{ name: 'read_file', arguments: { path: '.env' } }] }, { text: 'ok' }]);
    try {
      const { terminal } = await exec('read env');
      assert.equal(terminal.type, 'run_succeeded', JSON.stringify(terminal));
      assert.doesNotMatch(JSON.stringify(provider.requests[1]!.body), /hunter2/);
    } finally {
      await provider.close();
    }
  });

  test('shell children never see the API key', async () => {
    const { home, provider, exec } = await setup([{ toolCalls: [{ name: 'shell', arguments: { command: 'env' } }] }, { text: 'ok' }]);
    // The key where `glassbox exec` has it: in the harness's own environment.
    const saved = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = SECRET_KEY;
    try {
      const { terminal, sessionId } = await exec('show env', { sandbox: 'danger-full-access' });
      assert.equal(terminal.type, 'run_succeeded', JSON.stringify(terminal));
      const output = toolOutputsSent(provider.requests[1]!.body, 'chat')[0]!;
      assert.match(output, /PATH=/);
      assert.doesNotMatch(output, new RegExp(SECRET_KEY));
      assert.doesNotMatch(output, /OPENAI_API_KEY/);
      const session = await readFile(join(home, 'sessions', `${sessionId}.jsonl`), 'utf8');
      assert.match(session, /PATH=/, 'the session holds the output');
      assert.doesNotMatch(session, new RegExp(SECRET_KEY));
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
      await provider.close();
    }
  });

  test('on-request in workspace-write: a shell command runs sandboxed without asking; .env is masked inside', {
    skip: sandbox.available ? false : `bubblewrap unavailable: ${sandbox.reason}`,
  }, async () => {
    const { root, provider, exec } = await setup([
      { toolCalls: [{ name: 'shell', arguments: { command: 'touch made-by-shell && cat .env; echo done' } }] },
      { text: 'ok' },
    ]);
    try {
      const { terminal, events } = await exec('run', { sandbox: 'workspace-write' });
      assert.equal(terminal.type, 'run_succeeded', JSON.stringify(terminal));
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
