// AGENTS.md's budget: the first request's instructions + tools stay under 8 KB. Counted as
// `npm run bench` counts it (bench/cases/startup.ts): the system message up to the environment
// block, plus the JSON of the tools, from the request the default runner really sends. A byte
// count, so it holds on any machine; the bench reports the same number with timings.

import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { NO_APPROVER } from '../../src/agent/index.js';
import { createGateway } from '../../src/model/index.js';
import { openRunner, runTurn } from '../../src/runner/index.js';
import { startFakeProvider } from '../../src/testing/index.js';
import { withTempDir } from '../helpers/temp-dir.js';

const BUDGET_BYTES = 8192;

test('the first request’s instructions + tools stay within 8 KB', async () => {
  await withTempDir(async (dir) => {
    const project = join(dir, 'project');
    await mkdir(project);
    await writeFile(join(project, 'README.md'), 'hi\n');
    const provider = await startFakeProvider({ script: [{ text: 'ok' }] });
    try {
      const runner = await openRunner({
        root: project,
        home: join(dir, 'home'),
        model: 'acme-model',
        wireApi: 'chat',
        gateway: createGateway({ wireApi: 'chat', baseURL: provider.baseURL, apiKey: 'k' }),
        sandbox: 'read-only',
        approvalPolicy: 'on-request',
        network: false,
        compaction: null,
        mcp: false,
      });
      const result = await runTurn(runner, { prompt: 'go', runId: 'r1', signal: new AbortController().signal, approvals: NO_APPROVER });
      assert.equal(result.terminal.type, 'run_succeeded');
      const body = provider.requests[0]!.body as { messages: Array<{ role: string; content: string }>; tools?: unknown[] };
      const instructions = body.messages.find((message) => message.role === 'system')?.content ?? '';
      const instructionBytes = Buffer.byteLength(instructions.split('<environment>')[0]!);
      const toolsBytes = Buffer.byteLength(JSON.stringify(body.tools ?? []));
      assert.ok(
        instructionBytes + toolsBytes <= BUDGET_BYTES,
        `instructions ${instructionBytes} + tools ${toolsBytes} = ${instructionBytes + toolsBytes} bytes, over ${BUDGET_BYTES}`,
      );
      console.log(`first request: instructions ${instructionBytes}, tools ${toolsBytes}`);
    } finally {
      await provider.close();
    }
  });
});
