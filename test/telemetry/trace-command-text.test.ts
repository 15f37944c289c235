// A permission or approval reason quotes the command it judges (the classifier says why
// `MYSQL_PWD=… mysql` is not known safe), so without --trace-content no reason may leave in a
// span: only the rule and the decision do. A real run, a real shell call (approved and run), the
// real exporter and a loopback OTLP receiver decoding the protobuf it sent.

import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { ApprovalBroker } from '../../src/agent/index.js';
import { createGateway } from '../../src/model/index.js';
import { openRunner, runTurn } from '../../src/runner/index.js';
import { resolveTelemetrySettings } from '../../src/telemetry/index.js';
import { startFakeProvider } from '../../src/testing/index.js';
import { createShellTool } from '../../src/tools/index.js';
import { FAST_RETRY } from '../compaction/compaction-harness.js';
import { startOtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { withTempDir } from '../helpers/temp-dir.js';

/** Of no known secret shape: only leaving it out protects it, redaction cannot. */
const CANARY = 'canary-pw-7f3a9e1d';
const COMMAND = `MYSQL_PWD=${CANARY} printenv MYSQL_PWD`;
const APPROVE: ApprovalBroker = { request: async () => ({ decision: 'approve', by: 'test', message: null }) };

async function tracedShellRun(traceContent: boolean): Promise<ReceivedSpan[]> {
  const receiver = await startOtlpReceiver();
  const provider = await startFakeProvider({
    script: [{ toolCalls: [{ name: 'shell', arguments: { command: COMMAND } }] }, { text: 'Done.' }],
  });
  try {
    return await withTempDir(async (dir) => {
      const root = join(dir, 'project');
      const home = join(dir, 'home');
      await mkdir(root);
      await mkdir(home);
      const runner = await openRunner({
        root,
        home,
        model: 'acme-model',
        wireApi: 'chat',
        gateway: createGateway({ wireApi: 'chat', baseURL: provider.baseURL, apiKey: 'k', retry: FAST_RETRY }),
        sandbox: 'workspace-write',
        // 'untrusted' asks for the command: both a permission reason and an approval reason.
        approvalPolicy: 'untrusted',
        network: false,
        tools: [createShellTool()],
        telemetry: { ...resolveTelemetrySettings({ otlpEndpoint: receiver.url, traceContent }, {})!, flushTimeoutMs: 2_000 },
      });
      const result = await runTurn(runner, {
        prompt: 'check the database password',
        runId: 'run-1',
        signal: new AbortController().signal,
        approvals: APPROVE,
      });
      assert.equal(result.terminal.type, 'run_succeeded');
      return [...(await receiver.waitForSpans(6))];
    });
  } finally {
    await provider.close();
    await receiver.close();
  }
}

describe('trace spans and command text', { concurrency: true }, () => {
  test('without --trace-content no span carries the command: rule and decision only', async () => {
    const spans = await tracedShellRun(false);
    const exported = JSON.stringify(spans);
    assert.ok(!exported.includes(CANARY), `the command's words left in a span: ${exported}`);
    assert.ok(!exported.includes('printenv'), exported);
    const shell = spans.find((span) => span.name === 'execute_tool shell');
    assert.ok(shell, exported);
    assert.equal(shell.attributes['glassbox.permission.decision'], 'ask');
    assert.equal(typeof shell.attributes['glassbox.permission.rule'], 'string');
    assert.equal(shell.attributes['glassbox.permission.reason'], undefined);
    assert.equal(shell.attributes['glassbox.approval.decision'], 'approve');
    const approval = spans.find((span) => span.name === 'approval_wait shell');
    assert.ok(approval, exported);
    assert.equal(approval.attributes['glassbox.approval.reason'], undefined);
  });

  test('with --trace-content the reason, arguments and result are attached', async () => {
    const spans = await tracedShellRun(true);
    const shell = spans.find((span) => span.name === 'execute_tool shell');
    assert.ok(shell);
    assert.equal(typeof shell.attributes['glassbox.permission.reason'], 'string');
    assert.match(String(shell.attributes['gen_ai.tool.call.arguments']), /printenv MYSQL_PWD/);
    assert.match(String(shell.attributes['gen_ai.tool.call.result']), new RegExp(CANARY));
  });
});
