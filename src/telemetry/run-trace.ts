// A live run's trace: a run observer (like the session recorder) that feeds the span builder with
// each event as it happens, and exports through OpenTelemetry. A failure in here never reaches the
// run: every handler swallows its own errors.

import type { ModelCallRecord, RunEvent, RunObserver } from '../agent/index.js';
import type { ExportReport } from './otel-sink.js';
import { createRedactor } from './redact-secrets.js';
import type { TelemetrySettings } from './telemetry-settings.js';
import { TraceBuilder } from './trace-builder.js';

export interface RunTrace extends Required<Pick<RunObserver, 'onEvent' | 'onModelCall'>> {
  /** Ends open spans and exports the rest, waiting at most the settings' flush timeout. */
  finish(): Promise<ExportReport>;
}

export async function startRunTrace(settings: TelemetrySettings, version: string): Promise<RunTrace> {
  const { createOtelSink } = await import('./otel-sink.js');
  const sink = createOtelSink(settings, version);
  const builder = new TraceBuilder(sink, { traceContent: settings.traceContent, redact: createRedactor(Object.values(settings.headers)) });
  const guarded = (action: () => void): void => {
    try {
      action();
    } catch {
      // Tracing is an observer: a bug here must not fail or slow the run.
    }
  };
  let finished: Promise<ExportReport> | null = null;
  return {
    onEvent: (event: RunEvent) => guarded(() => builder.event(event, Date.now())),
    onModelCall: (call: ModelCallRecord) => guarded(() => builder.modelCall(call, Date.now())),
    finish: () =>
      (finished ??= (async () => {
        guarded(() => builder.close(Date.now()));
        return sink.shutdown();
      })()),
  };
}
