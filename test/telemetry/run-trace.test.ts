import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { ApprovalBroker, RunEvent } from '../../src/agent/index.js';
import { createGateway } from '../../src/model/index.js';
import { openRunner, runTurn, type RunnerSettings } from '../../src/runner/index.js';
import { JsonlSessionStore } from '../../src/sessions/index.js';
import { exportSessionTrace, resolveTelemetrySettings, type TelemetrySettings } from '../../src/telemetry/index.js';
import { startFakeProvider, type ScriptedTurn } from '../../src/testing/index.js';
import { createReadFileTool, createWriteFileTool } from '../../src/tools/index.js';
import { FAST_RETRY, bigOutputTool, scriptedWithSummaries } from '../compaction/compaction-harness.js';
import { startOtlpReceiver, spanTree, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { withTempDir } from '../helpers/temp-dir.js';

const APPROVE_ALL: ApprovalBroker = { request: async () => ({ decision: 'approve', by: 'test', message: null }) };

function settingsFor(url: string, extra: Partial<TelemetrySettings> = {}): TelemetrySettings {
  return { ...resolveTelemetrySettings({ otlpEndpoint: url }, {})!, flushTimeoutMs: 2_000, ...extra };
}

interface Traced {
  events: RunEvent[];
  sessionId: string;
  home: string;
}

/** A turn with tools (read_big, read_file), an approved write and a mid-turn summary compaction. */
async function tracedRun(dir: string, telemetry: TelemetrySettings | null, extra: Partial<RunnerSettings> = {}): Promise<Traced> {
  const root = join(dir, 'project');
  const home = join(dir, 'home');
  await mkdir(root, { recursive: true });
  await mkdir(home, { recursive: true });
  await writeFile(join(root, 'README.md'), '# project\nsk-proj-abcdefghijklmnopqrstuvwxyz0123\n');
  const turns: ScriptedTurn[] = [
    {
      toolCalls: [
        { name: 'read_big', arguments: { label: 'a' } },
        { name: 'read_file', arguments: { path: 'README.md' } },
      ],
      usage: { input: 1000, output: 10 },
    },
    { toolCalls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'noted' } }], usage: { input: 9000, output: 10 } },
    { text: 'Done.', usage: { input: 700, output: 3 } },
  ];
  const provider = await startFakeProvider({
    whenExhausted: scriptedWithSummaries(turns, () => ({ text: '## Goal\nThe summary.', usage: { input: 400, output: 30 } })),
  });
  try {
    const gateway = createGateway({ wireApi: 'chat', baseURL: provider.baseURL, apiKey: 'k', retry: FAST_RETRY });
    const runner = await openRunner({
      root,
      home,
      model: 'acme-model',
      wireApi: 'chat',
      gateway,
      sandbox: 'read-only',
      approvalPolicy: 'on-request',
      network: false,
      tools: [bigOutputTool(8_000), createReadFileTool(), createWriteFileTool()],
      compactAt: '8000',
      compactionTuning: { retryBaseDelayMs: 1, summaryAttempts: 1 },
      telemetry,
      ...extra,
    });
    const events: RunEvent[] = [];
    const result = await runTurn(runner, {
      prompt: 'take notes',
      runId: 'run-1',
      signal: new AbortController().signal,
      approvals: APPROVE_ALL,
      onEvent: (event) => events.push(event),
    });
    assert.equal(result.terminal.type, 'run_succeeded');
    return { events, sessionId: result.sessionId, home };
  } finally {
    await provider.close();
  }
}

const EXPECTED_TREE = [
  'invoke_agent glassbox',
  '  round 1',
  '    chat acme-model',
  '    execute_tool read_big',
  '      exec read_big',
  '    execute_tool read_file',
  '      exec read_file',
  '  round 2',
  '    chat acme-model',
  '    execute_tool write_file',
  '      approval_wait write_file',
  '      exec write_file',
  '    compaction',
  '      chat acme-model',
  '  round 3',
  '    chat acme-model',
];

function one(spans: readonly ReceivedSpan[], predicate: (span: ReceivedSpan) => boolean, what: string): ReceivedSpan {
  const found = spans.filter(predicate);
  assert.equal(found.length, 1, `exactly one ${what}, got ${found.length}`);
  return found[0]!;
}

describe('OpenTelemetry traces', () => {
  test('a run with tools, an approval and a compaction exports the documented span tree with GenAI attributes', async () => {
    const receiver = await startOtlpReceiver();
    try {
      await withTempDir(async (dir) => {
        const { events, sessionId } = await tracedRun(dir, settingsFor(receiver.url));
        assert.ok(events.some((event) => event.type === 'history_compacted' && event.kind === 'summary'));
        const spans = await receiver.waitForSpans(16);
        assert.deepEqual(spanTree(spans), EXPECTED_TREE);
        assert.equal(new Set(spans.map((span) => span.traceId)).size, 1, 'one trace per run');

        const run = one(spans, (span) => span.parentSpanId === '', 'root');
        assert.equal(run.kind, 1);
        assert.equal(run.resource['service.name'], 'glassbox');
        assert.equal(run.attributes['gen_ai.operation.name'], 'invoke_agent');
        assert.equal(run.attributes['gen_ai.agent.name'], 'glassbox');
        assert.equal(run.attributes['gen_ai.conversation.id'], sessionId);
        assert.equal(run.attributes['gen_ai.request.model'], 'acme-model');
        assert.equal(run.attributes['gen_ai.provider.name'], 'openai');
        assert.equal(run.attributes['glassbox.outcome'], 'succeeded');
        assert.equal(run.attributes['gen_ai.usage.input_tokens'], 1000 + 9000 + 400 + 700);
        assert.equal(run.attributes['glassbox.rounds'], 3);
        assert.ok(
          run.events.some((event) => event.name === 'warning' && event.attributes['glassbox.warning.code'] === 'UNKNOWN_MODEL_WINDOW'),
        );

        const chats = spans.filter((span) => span.name === 'chat acme-model');
        assert.equal(chats.length, 4);
        for (const chat of chats) {
          assert.equal(chat.kind, 3, 'model calls are CLIENT spans');
          assert.equal(chat.attributes['gen_ai.operation.name'], 'chat');
          assert.equal(chat.attributes['gen_ai.request.model'], 'acme-model');
          assert.equal(typeof chat.attributes['gen_ai.usage.output_tokens'], 'number');
          assert.ok(chat.startMs <= chat.endMs);
        }
        const summary = one(chats, (span) => span.attributes['glassbox.stage'] === 'compaction', 'summary call');
        assert.equal(summary.attributes['gen_ai.usage.input_tokens'], 400);
        const firstTurnCall = one(
          chats,
          (span) => span.attributes['glassbox.stage'] === 'turn' && span.attributes['glassbox.round'] === 1,
          'round 1 call',
        );
        assert.deepEqual(firstTurnCall.attributes['gen_ai.response.finish_reasons'], ['tool_calls']);

        const compaction = one(spans, (span) => span.name === 'compaction', 'compaction');
        assert.equal(summary.parentSpanId, compaction.spanId);
        assert.equal(compaction.attributes['glassbox.compaction.kind'], 'summary');
        assert.equal(compaction.attributes['glassbox.compaction.phase'], 'mid_turn');
        assert.ok(
          (compaction.attributes['glassbox.compaction.tokens_before'] as number) >
            (compaction.attributes['glassbox.compaction.tokens_after'] as number),
        );

        const write = one(spans, (span) => span.name === 'execute_tool write_file', 'write_file call');
        const calls = events.filter((event) => event.type === 'tool_requested');
        assert.equal(
          write.attributes['gen_ai.tool.call.id'],
          calls.find((event) => event.type === 'tool_requested' && event.name === 'write_file')?.callId,
        );
        assert.equal(write.attributes['gen_ai.tool.name'], 'write_file');
        assert.equal(write.attributes['gen_ai.operation.name'], 'execute_tool');
        assert.equal(write.attributes['glassbox.permission.decision'], 'ask');
        assert.equal(write.attributes['glassbox.permission.rule'], 'sandbox-read-only');
        assert.equal(write.attributes['glassbox.approval.decision'], 'approve');
        const approval = one(spans, (span) => span.name === 'approval_wait write_file', 'approval wait');
        assert.equal(approval.parentSpanId, write.spanId);
        assert.equal(approval.attributes['glassbox.approval.by'], 'test');
        // Content is off by default: no arguments, results or messages leave the machine.
        for (const span of spans) {
          for (const key of ['gen_ai.tool.call.arguments', 'gen_ai.tool.call.result', 'gen_ai.input.messages', 'gen_ai.output.messages']) {
            assert.equal(span.attributes[key], undefined, `${span.name} must not carry ${key}`);
          }
        }
      });
    } finally {
      await receiver.close();
    }
  });

  test('--trace-content attaches messages, arguments and results, with secrets redacted', async () => {
    const receiver = await startOtlpReceiver();
    try {
      await withTempDir(async (dir) => {
        await tracedRun(
          dir,
          settingsFor(receiver.url, { traceContent: true, headers: { authorization: 'Bearer collector-token-123456' } }),
        );
        const spans = await receiver.waitForSpans(16);
        const read = spans.find((span) => span.name === 'execute_tool read_file')!;
        assert.equal(read.attributes['gen_ai.tool.call.arguments'], '{"path":"README.md"}');
        const result = String(read.attributes['gen_ai.tool.call.result']);
        assert.match(result, /# project/);
        assert.doesNotMatch(result, /sk-proj-abcdefghijklmnopqrstuvwxyz0123/);
        assert.match(result, /\[redacted\]/);
        const second = spans.find((span) => span.name === 'chat acme-model' && span.attributes['glassbox.round'] === 2)!;
        const input = JSON.parse(String(second.attributes['gen_ai.input.messages'])) as { role: string; parts: { type: string }[] }[];
        assert.equal(input[0]!.role, 'system');
        assert.ok(input.some((message) => message.role === 'tool' && message.parts[0]!.type === 'tool_call_response'));
        const chat = spans.find((span) => span.name === 'chat acme-model' && span.attributes['glassbox.round'] === 3)!;
        assert.deepEqual(JSON.parse(String(chat.attributes['gen_ai.output.messages'])), [
          { role: 'assistant', parts: [{ type: 'text', content: 'Done.' }] },
        ]);
      });
    } finally {
      await receiver.close();
    }
  });

  test('glassbox trace: a recorded session exports the same span tree as the live run', async () => {
    const live = await startOtlpReceiver();
    const later = await startOtlpReceiver();
    try {
      await withTempDir(async (dir) => {
        const { sessionId, home } = await tracedRun(dir, settingsFor(live.url));
        const liveSpans = await live.waitForSpans(16);
        const { records } = await new JsonlSessionStore(join(home, 'sessions')).read(sessionId);
        const { turns, report } = await exportSessionTrace(records, settingsFor(later.url), '0.0.0');
        assert.equal(turns, 1);
        assert.equal(report.exported, 16);
        const exported = await later.waitForSpans(16);
        assert.deepEqual(spanTree(exported), spanTree(liveSpans));
        const pick = (spans: ReceivedSpan[], name: string) => spans.find((span) => span.name === name)!.attributes;
        for (const key of ['gen_ai.tool.call.id', 'glassbox.permission.rule', 'glassbox.approval.decision']) {
          assert.equal(pick(exported, 'execute_tool write_file')[key], pick(liveSpans, 'execute_tool write_file')[key], key);
        }
        assert.equal(
          pick(exported, 'invoke_agent glassbox')['gen_ai.usage.input_tokens'],
          pick(liveSpans, 'invoke_agent glassbox')['gen_ai.usage.input_tokens'],
        );
        assert.equal(pick(exported, 'compaction')['glassbox.compaction.id'], pick(liveSpans, 'compaction')['glassbox.compaction.id']);
      });
    } finally {
      await live.close();
      await later.close();
    }
  });

  test('a collector that is down or never answers does not fail the run, and its end waits at most the flush timeout', async () => {
    const hanging: OtlpReceiver = await startOtlpReceiver({ hang: true });
    try {
      await withTempDir(async (dir) => {
        // Nothing listens on this port: refused at once.
        const closed = await startOtlpReceiver();
        const url = closed.url;
        await closed.close();
        await tracedRun(join(dir, 'refused'), settingsFor(url));
        // Accepts and never answers: the run still succeeds (asserted inside), the export is abandoned.
        await tracedRun(join(dir, 'hanging'), settingsFor(hanging.url, { flushTimeoutMs: 200 }));
        assert.ok(hanging.requests >= 1, 'the exporter did try');
      });
    } finally {
      await hanging.close();
    }
  });

  test('settings: the standard variables, the flag, and a bad endpoint', () => {
    assert.equal(resolveTelemetrySettings({}, {}), null);
    assert.equal(resolveTelemetrySettings({}, { OTEL_EXPORTER_OTLP_ENDPOINT: ' ' }), null);
    const fromEnv = resolveTelemetrySettings(
      {},
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=a%20b,tenant=t1',
        OTEL_SERVICE_NAME: 'agents',
      },
    )!;
    assert.equal(fromEnv.endpoint, 'http://collector:4318/v1/traces');
    assert.deepEqual(fromEnv.headers, { 'x-api-key': 'a b', tenant: 't1' });
    assert.equal(fromEnv.serviceName, 'agents');
    assert.equal(resolveTelemetrySettings({}, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c/custom' })!.endpoint, 'http://c/custom');
    assert.equal(resolveTelemetrySettings({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }), null);
    assert.equal(
      resolveTelemetrySettings({ otlpEndpoint: 'http://flag:4318' }, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://env:4318' })!.endpoint,
      'http://flag:4318/v1/traces',
    );
    assert.throws(() => resolveTelemetrySettings({ otlpEndpoint: 'localhost:4318' }, {}), /--otlp-endpoint .*not a URL|must be http/);
    assert.throws(() => resolveTelemetrySettings({ traceContent: true }, {}), /--trace-content needs a trace endpoint/);
  });
});
