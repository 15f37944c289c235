import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { withTempDir } from '../helpers/temp-dir.js';
import { ToolError, toolDefinition, type ToolContext } from '../../src/agent/index.js';
import { createToolSessionState } from '../../src/tools/index.js';
import type { ExecutionPolicy } from '../../src/workspace/index.js';
import { createShellTool, type ShellArguments } from '../../src/tools/shell/index.js';
import { createSandboxDetector, detectSandbox } from '../../src/sandbox/index.js';

const unsandboxed: ExecutionPolicy = { mode: 'danger-full-access', sandboxed: false, network: true, secretsApproved: false };
const workspaceWrite: ExecutionPolicy = { mode: 'workspace-write', sandboxed: true, network: false, secretsApproved: false };

function context(root: string, execution: ExecutionPolicy = unsandboxed, signal = new AbortController().signal): ToolContext {
  return { root, execution, callId: 'call-1', signal, state: createToolSessionState() };
}

function tool(root: string) {
  return createShellTool({
    env: { PATH: process.env.PATH, HOME: root, OPENAI_API_KEY: 'sk-tool-leak-check' },
    homeDir: root,
    killGraceMs: 200,
  });
}

function parse(args: unknown): ShellArguments {
  return createShellTool().schema.parse(args);
}

async function rejectsWith(promise: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof ToolError, `expected ToolError, got ${String(error)}`);
    assert.equal(error.code, code);
    return true;
  });
}

test('definition: name, description and a schema with command required', () => {
  const definition = toolDefinition(createShellTool());
  assert.equal(definition.name, 'shell');
  assert.match(definition.description, /escalate/);
  assert.match(definition.description, /sandbox/);
  assert.deepEqual((definition.parameters as { required: string[] }).required, ['command']);
  const properties = Object.keys((definition.parameters as { properties: object }).properties);
  assert.deepEqual(properties.sort(), ['command', 'escalate', 'justification', 'timeout_ms', 'workdir']);
  assert.equal(createShellTool().readOnly, false);
  assert.throws(() => parse({ command: 'ls', cwd: '/' }));
  assert.throws(() => parse({ command: '' }));
});

test('access declares an exec with the lexical absolute workdir', () => {
  const shell = createShellTool();
  assert.deepEqual(shell.access(parse({ command: 'ls', workdir: 'src/../lib' }), { root: '/project' }), {
    kind: 'exec',
    command: 'ls',
    workdir: '/project/lib',
    escalate: false,
    justification: null,
  });
  assert.deepEqual(
    shell.access(parse({ command: 'npm ci', escalate: true, justification: ' needs the registry ' }), { root: '/project' }),
    { kind: 'exec', command: 'npm ci', workdir: '/project', escalate: true, justification: 'needs the registry' },
  );
  assert.throws(() => shell.access(parse({ command: 'npm ci', escalate: true }), { root: '/p' }), /justification/);
});

test('runs a command and reports a header; non-zero exit is not an error', async () => {
  await withTempDir(async (root) => {
    const shell = tool(root);
    const ok = await shell.execute(parse({ command: 'echo hi' }), context(root));
    assert.equal(ok.isError, false);
    assert.match(ok.output, /^exit_code: 0, duration: \d+(\.\d)?s, sandbox: none\nhi\n$/);

    const failed = await shell.execute(parse({ command: 'echo oops >&2; exit 2' }), context(root));
    assert.equal(failed.isError, false);
    assert.match(failed.output, /^exit_code: 2, /);
    assert.match(failed.output, /\noops\n$/);

    const silent = await shell.execute(parse({ command: 'true' }), context(root));
    assert.match(silent.output, /\n\(no output\)$/);
  });
});

test('does not pass API keys to the command', async () => {
  await withTempDir(async (root) => {
    const result = await tool(root).execute(parse({ command: 'env' }), context(root));
    assert.doesNotMatch(result.output, /OPENAI_API_KEY|sk-tool-leak-check/);
    assert.match(result.output, /GLASSBOX_SANDBOX=0/);
    assert.match(result.output, new RegExp(`PWD=${root}\\n`));
  });
});

test('workdir is resolved inside the root', async () => {
  await withTempDir(async (dir) => {
    const root = join(dir, 'project');
    await mkdir(join(root, 'sub'), { recursive: true });
    await writeFile(join(root, 'file.txt'), '');
    await symlink(dir, join(root, 'escape'));
    const shell = tool(root);
    const sub = await shell.execute(parse({ command: 'pwd', workdir: 'sub' }), context(root));
    assert.match(sub.output, new RegExp(`\\n${join(root, 'sub')}\\n$`));
    await rejectsWith(shell.execute(parse({ command: 'pwd', workdir: '..' }), context(root)), 'PATH_OUTSIDE_ROOT');
    await rejectsWith(shell.execute(parse({ command: 'pwd', workdir: '/' }), context(root)), 'PATH_OUTSIDE_ROOT');
    await rejectsWith(shell.execute(parse({ command: 'pwd', workdir: 'escape' }), context(root)), 'PATH_OUTSIDE_ROOT');
    await rejectsWith(shell.execute(parse({ command: 'pwd', workdir: 'missing' }), context(root)), 'WORKDIR_NOT_FOUND');
    await rejectsWith(shell.execute(parse({ command: 'pwd', workdir: 'file.txt' }), context(root)), 'NOT_A_DIRECTORY');
  });
});

test('bad timeouts and unjustified escalation are refused before running', async () => {
  await withTempDir(async (root) => {
    const shell = tool(root);
    const marker = join(root, 'ran');
    for (const timeout of [0, -5, 600_001, 1.5]) {
      await rejectsWith(shell.execute(parse({ command: `touch ${marker}`, timeout_ms: timeout }), context(root)), 'INVALID_TIMEOUT');
    }
    await rejectsWith(shell.execute(parse({ command: `touch ${marker}`, escalate: true }), context(root)), 'JUSTIFICATION_REQUIRED');
    await rejectsWith(
      shell.execute(parse({ command: `touch ${marker}`, escalate: true, justification: '   ' }), context(root)),
      'JUSTIFICATION_REQUIRED',
    );
    await rejectsWith(shell.execute(parse({ command: '   ' }), context(root)), 'EMPTY_COMMAND');
    const { existsSync } = await import('node:fs');
    assert.equal(existsSync(marker), false);
  });
});

test('a timeout is reported in the header and marked as an error', async () => {
  await withTempDir(async (root) => {
    const result = await tool(root).execute(parse({ command: 'echo started; sleep 30', timeout_ms: 200 }), context(root));
    assert.equal(result.isError, true);
    assert.match(result.output, /^exit_code: none, signal: SIGTERM, duration: [\d.]+s, timed out after 0\.2s, sandbox: none\nstarted\n$/);
  });
});

test('cancellation stops the command', async () => {
  await withTempDir(async (root) => {
    const controller = new AbortController();
    const running = tool(root).execute(
      parse({ command: `touch ${join(root, 'started')}; sleep 30` }),
      context(root, unsandboxed, controller.signal),
    );
    const { existsSync } = await import('node:fs');
    while (!existsSync(join(root, 'started'))) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    const result = await running;
    assert.equal(result.isError, true);
    assert.match(result.output, /, cancelled, /);
  });
});

test('a sandbox that cannot run is a clear error with the install hint', async () => {
  await withTempDir(async (root) => {
    const shell = createShellTool({ sandboxDetector: createSandboxDetector({ bwrapPath: join(root, 'no-bwrap') }) });
    await assert.rejects(shell.execute(parse({ command: 'true' }), context(root, workspaceWrite)), (error: unknown) => {
      assert.ok(error instanceof ToolError);
      assert.equal(error.code, 'SANDBOX_UNAVAILABLE');
      assert.match(error.message, /apt-get install bubblewrap/);
      assert.match(error.message, /--sandbox danger-full-access/);
      return true;
    });
  });
});

test('a policy asking for a sandbox in danger-full-access ends the run', async () => {
  await withTempDir(async (root) => {
    const policy: ExecutionPolicy = { mode: 'danger-full-access', sandboxed: true, network: false, secretsApproved: false };
    await assert.rejects(tool(root).execute(parse({ command: 'true' }), context(root, policy)), { name: 'FatalToolError' });
  });
});

const availability = await detectSandbox();
const skip = availability.available ? false : `bubblewrap unavailable: ${availability.reason}`;

test('sandboxed execution follows the execution policy', { skip }, async () => {
  await withTempDir(async (root) => {
    await writeFile(join(root, '.env'), 'TOKEN=tool-secret\n');
    const shell = tool(root);
    const command = 'echo "sandbox=$GLASSBOX_SANDBOX"; cat .env; echo x > out.txt && echo wrote';

    const writable = await shell.execute(parse({ command }), context(root, workspaceWrite));
    assert.match(writable.output, /^exit_code: 0, duration: [\d.]+s, sandbox: workspace-write \(network off\)\n/);
    assert.match(writable.output, /sandbox=1\n/);
    assert.doesNotMatch(writable.output, /tool-secret/);
    assert.match(writable.output, /wrote\n/);

    const readOnly = await shell.execute(
      parse({ command }),
      context(root, { mode: 'read-only', sandboxed: true, network: true, secretsApproved: true }),
    );
    assert.match(readOnly.output, /sandbox: read-only \(network on\)/);
    assert.match(readOnly.output, /tool-secret/);
    assert.doesNotMatch(readOnly.output, /wrote/);
    assert.equal(readOnly.isError, false);
  });
});
