// The system prompt's environment block as a new session records it: the top-level listing's
// order, and the git lines, which need a sandbox only when there is a repository to ask about.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { NO_APPROVER, type AnyTool } from '../../src/agent/index.js';
import { z } from 'zod';
import { createGateway } from '../../src/model/index.js';
import { openRunner, runTurn } from '../../src/runner/index.js';
import { detectSandbox, type SandboxAvailability } from '../../src/sandbox/index.js';
import { startFakeProvider } from '../../src/testing/index.js';
import { withTempDir } from '../helpers/temp-dir.js';

/**
 * The system message of a one-turn session in `project`, and how often the sandbox was asked for
 * before the first request went out (afterwards the shell tool prepares it while the model answers).
 */
async function systemPromptOf(project: string, home: string): Promise<{ system: string; sandboxAsked: number }> {
  let sandboxAsked = 0;
  let askedBeforeRequest: number | null = null;
  const counting = (): Promise<SandboxAvailability> => {
    sandboxAsked += 1;
    return detectSandbox();
  };
  const provider = await startFakeProvider({ script: [{ text: 'Hello.' }] });
  try {
    const runner = await openRunner({
      root: project,
      home,
      model: 'acme-model',
      wireApi: 'chat',
      gateway: (() => {
        const gateway = createGateway({ wireApi: 'chat', baseURL: provider.baseURL, apiKey: 'k' });
        const stream = gateway.streamResponse.bind(gateway);
        gateway.streamResponse = (...args) => {
          askedBeforeRequest ??= sandboxAsked;
          return stream(...args);
        };
        return gateway;
      })(),
      sandbox: 'read-only',
      approvalPolicy: 'on-request',
      network: false,
      compaction: null,
      mcp: false,
      detectSandbox: counting,
    });
    const result = await runTurn(runner, { prompt: 'go', runId: 'r1', signal: new AbortController().signal, approvals: NO_APPROVER });
    assert.equal(result.terminal.type, 'run_succeeded');
    const body = provider.requests[0]!.body as { messages: Array<{ role: string; content: string }> };
    const system = body.messages.find((message) => message.role === 'system');
    assert.ok(system);
    return { system: system.content, sandboxAsked: askedBeforeRequest ?? sandboxAsked };
  } finally {
    await provider.close();
  }
}

test('outside any git repository the environment says so without starting a sandbox', async () => {
  await withTempDir(async (dir) => {
    const project = join(dir, 'project');
    await mkdir(project);
    await writeFile(join(project, 'README.md'), 'hi\n');
    const { system, sandboxAsked } = await systemPromptOf(project, join(dir, 'home'));
    assert.match(system, /\ngit: not a git repository\n/);
    assert.equal(sandboxAsked, 0, 'no sandbox (and no git) for a project without .git before the first request');
  });
});

test('in a git repository the status is still collected in the sandbox', async () => {
  assert.equal((await detectSandbox()).available, true, 'bubblewrap must work here (CI installs it)');
  await withTempDir(async (dir) => {
    const project = join(dir, 'project');
    await mkdir(join(project, 'src'), { recursive: true });
    await promisify(execFile)('git', ['init', '-q', '-b', 'main'], { cwd: project });
    await writeFile(join(project, 'src', 'a.ts'), 'export {};\n');
    const { system, sandboxAsked } = await systemPromptOf(project, join(dir, 'home'));
    assert.match(system, /git branch: No commits yet on main\ngit status:\n {2}\?\? src\//);
    assert.ok(sandboxAsked >= 1);
  });
});

test('the top-level listing is in case-folded name order', async () => {
  await withTempDir(async (dir) => {
    const project = join(dir, 'project');
    await mkdir(join(project, 'src'), { recursive: true });
    await mkdir(join(project, 'Docs'));
    for (const name of ['README.md', 'b.txt', 'a.txt', 'Zeta', 'Makefile']) await writeFile(join(project, name), 'x\n');
    const { system } = await systemPromptOf(project, join(dir, 'home'));
    assert.match(system, /top-level entries:\na\.txt {2}b\.txt {2}Docs\/ {2}Makefile {2}README\.md {2}src\/ {2}Zeta\n/);
  });
});

test("each offered tool's prepare runs once a turn's first request is sent, with the session's default execution", async () => {
  await withTempDir(async (dir) => {
    const project = join(dir, 'project');
    await mkdir(project);
    const provider = await startFakeProvider({ script: [{ text: 'One.' }, { text: 'Two.' }] });
    try {
      const prepared: Array<{ root: string; execution: unknown; requestsSent: number }> = [];
      let requestsSent = 0;
      const gateway = createGateway({ wireApi: 'chat', baseURL: provider.baseURL, apiKey: 'k' });
      const stream = gateway.streamResponse.bind(gateway);
      gateway.streamResponse = (...args) => {
        requestsSent += 1;
        return stream(...args);
      };
      const tool: AnyTool = {
        name: 'probe',
        description: 'A tool that only prepares.',
        schema: z.object({}),
        readOnly: true,
        strict: true,
        access: () => ({ kind: 'read', paths: [] }),
        execute: async () => ({ output: 'ok' }),
        prepare: async (context) => {
          prepared.push({ root: context.root, execution: context.execution, requestsSent });
        },
      };
      const runner = await openRunner({
        root: project,
        home: join(dir, 'home'),
        model: 'acme-model',
        wireApi: 'chat',
        gateway,
        sandbox: 'workspace-write',
        approvalPolicy: 'on-request',
        network: false,
        compaction: null,
        mcp: false,
        tools: [tool],
      });
      const turn = (runId: string) =>
        runTurn(runner, { prompt: 'go', runId, signal: new AbortController().signal, approvals: NO_APPROVER });
      assert.equal((await turn('r1')).terminal.type, 'run_succeeded');
      assert.deepEqual(prepared, [
        {
          root: runner.root,
          execution: { mode: 'workspace-write', sandboxed: true, network: false, secretsApproved: false },
          requestsSent: 1,
        },
      ]);
    } finally {
      await provider.close();
    }
  });
});
