// A recorded session turned back into the events its runs emitted, with the times the file kept,
// and fed to the same span builder a live run uses: `glassbox trace <session>` exports old
// sessions with the live span tree. Each turn is one trace. What the file does not keep is left
// out: model requests (so no input messages, even with content on) and streamed text.

import type { RunEvent } from '../agent/index.js';
import { historyCompactedEvent } from '../compaction/index.js';
import type { SessionRecord } from '../sessions/index.js';
import type { ExportReport } from './otel-sink.js';
import { createRedactor } from './redact-secrets.js';
import type { TelemetrySettings } from './telemetry-settings.js';
import { TraceBuilder, type SpanSink, type TraceBuilderOptions } from './trace-builder.js';

export interface SessionTraceOptions extends TraceBuilderOptions {
  /** Only this turn; default every turn. */
  turn?: number;
}

/** Feeds every turn of `records` to `sink`; returns the number of turns traced. */
export function traceSessionRecords(records: readonly SessionRecord[], sink: SpanSink, options: SessionTraceOptions): number {
  const meta = records.find((record) => record.type === 'session_meta');
  const sessionId = meta?.type === 'session_meta' ? meta.sessionId : 'unknown';
  // Outputs are committed after the tool's audit events; their text decides the error code.
  const outputs = new Map<string, string>();
  for (const record of records) {
    if (record.type === 'response_item' && record.item.type === 'function_call_output')
      outputs.set(`${record.turn}\0${record.item.callId}`, record.item.output);
  }
  let builder: TraceBuilder | null = null;
  let turn = 0;
  let round = 0;
  let answer = '';
  let lastMs = 0;
  let traced = 0;
  const emit = (event: RunEvent, atMs: number): void => builder?.event(event, atMs);
  for (const record of records) {
    if (record.type === 'session_meta') continue;
    const atMs = Date.parse(record.ts);
    if (!Number.isFinite(atMs)) continue;
    if (record.type === 'turn_started') {
      builder?.close(lastMs);
      builder = null;
      turn = record.turn;
      if (options.turn !== undefined && options.turn !== turn) continue;
      builder = new TraceBuilder(sink, options);
      traced += 1;
      round = 0;
      answer = '';
      emit({ type: 'run_started', sessionId, runId: record.runId, model: record.model, wireApi: record.wireApi, resumed: turn > 1 }, atMs);
    }
    if (builder === null || ('turn' in record && record.turn !== turn)) continue;
    lastMs = atMs;
    switch (record.type) {
      case 'model_call':
        if (record.stage === 'turn') round = record.round;
        emit(
          { type: 'model_requested', round: record.round, stage: record.stage, messageCount: 0, toolCount: 0 },
          atMs - record.durationMs,
        );
        builder.modelCall(record, atMs);
        break;
      case 'response_item': {
        const { item } = record;
        if (item.type === 'function_call')
          emit({ type: 'tool_requested', round, callId: item.callId, name: item.name, arguments: item.arguments }, atMs);
        if (item.type === 'message' && item.role === 'assistant' && item.runtimeRole === 'final_response') answer = item.content;
        break;
      }
      case 'audit': {
        const { event } = record;
        if (event.type === 'tool_finished') emit({ ...event, output: outputs.get(`${turn}\0${event.callId}`) ?? '' }, atMs);
        else emit(event, atMs);
        break;
      }
      case 'compaction':
        emit(historyCompactedEvent(record), atMs);
        break;
      case 'warning':
        emit({ type: 'warning', code: record.code, message: record.message }, atMs);
        break;
      case 'turn_completed':
        emit({ type: 'run_succeeded', answer, usage: record.usage, rounds: record.rounds }, atMs);
        builder = null;
        break;
      case 'turn_failed':
        emit({ type: 'run_failed', error: record.error, usage: record.usage, rounds: record.rounds }, atMs);
        builder = null;
        break;
      case 'turn_cancelled':
        emit({ type: 'run_cancelled', reason: record.reason, usage: record.usage, rounds: record.rounds }, atMs);
        builder = null;
        break;
      default:
        break;
    }
  }
  builder?.close(lastMs);
  return traced;
}

export interface SessionExportResult {
  turns: number;
  report: ExportReport;
}

/** Export a session's turns over OTLP; the report says how many spans the collector took. */
export async function exportSessionTrace(
  records: readonly SessionRecord[],
  settings: TelemetrySettings,
  version: string,
  options: { turn?: number } = {},
): Promise<SessionExportResult> {
  const { createOtelSink } = await import('./otel-sink.js');
  // A person is waiting for this export: give a slow collector longer than a run's end would.
  const sink = createOtelSink({ ...settings, flushTimeoutMs: Math.max(settings.flushTimeoutMs, 10_000) }, version);
  const turns = traceSessionRecords(records, sink, {
    traceContent: settings.traceContent,
    redact: createRedactor(Object.values(settings.headers)),
    turn: options.turn,
  });
  return { turns, report: await sink.shutdown() };
}
