// OpenTelemetry traces of runs (live, as a run observer) and of recorded sessions (after the fact),
// exported over OTLP/HTTP. Importing this costs the settings reader and the span builder only: the
// run trace, the session export and OpenTelemetry itself load when a trace is actually started.

import type { RunTrace } from './run-trace.js';
import type { SessionExportResult } from './session-trace.js';
import type { TelemetrySettings } from './telemetry-settings.js';
import type { SessionRecord } from '../sessions/index.js';

export {
  DEFAULT_FLUSH_TIMEOUT_MS,
  TelemetryConfigError,
  parseOtlpHeaders,
  resolveTelemetrySettings,
  type TelemetryOptions,
  type TelemetrySettings,
} from './telemetry-settings.js';
export {
  TraceBuilder,
  providerName,
  type AttributeValue,
  type Attributes,
  type ModelCallFacts,
  type SpanHandle,
  type SpanSink,
  type TraceBuilderOptions,
} from './trace-builder.js';
export { createRedactor } from './redact-secrets.js';
export {
  SESSION_EXPORT_FORMATS,
  exportData,
  exportSession,
  sessionMarkdown,
  type ExportData,
  type ExportEntry,
  type SessionExportFormat,
} from './session-export.js';
export type { RunTrace } from './run-trace.js';
export type { SessionExportResult } from './session-trace.js';
export type { ExportReport } from './otel-sink.js';

/** A live run's trace observer (loads OpenTelemetry). */
export async function startRunTrace(settings: TelemetrySettings, version: string): Promise<RunTrace> {
  return (await import('./run-trace.js')).startRunTrace(settings, version);
}

/** Export a recorded session's turns (loads OpenTelemetry). */
export async function exportSessionTrace(
  records: readonly SessionRecord[],
  settings: TelemetrySettings,
  version: string,
  options: { turn?: number } = {},
): Promise<SessionExportResult> {
  return (await import('./session-trace.js')).exportSessionTrace(records, settings, version, options);
}
