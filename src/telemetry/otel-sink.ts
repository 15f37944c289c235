// The OpenTelemetry side: a tracer provider with a batch processor and the OTLP/HTTP (protobuf)
// exporter, behind the builder's `SpanSink`. Imported only when tracing is configured. Spans are
// exported in the background while the run goes on; `shutdown` waits for the rest at most
// `flushTimeoutMs` (also the exporter's own deadline, retries included), so a collector that hangs
// never fails a run and holds its end up by that much at most; one that is down (nothing listens,
// found by a probe started with the sink) holds it up not at all.

import { ROOT_CONTEXT, SpanKind, SpanStatusCode, diag, trace, type Span, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';
import { probeCollector } from './collector-probe.js';
import type { Attributes, SpanHandle, SpanSink } from './trace-builder.js';
import type { TelemetrySettings } from './telemetry-settings.js';

export interface ExportReport {
  exported: number;
  failed: number;
  /** The first export error, as the exporter said it. */
  error: string | null;
}

export interface OtelSink extends SpanSink {
  /** Export what is left (bounded by `flushTimeoutMs`) and release the exporter. Never rejects. */
  shutdown(): Promise<ExportReport>;
}

/** `ExportResultCode` of @opentelemetry/core, which is not a direct dependency. */
const EXPORT_SUCCESS = 0;
const EXPORT_FAILED = 1;
/** How long the end of a run waits to learn whether the collector is down (a connect's round trip). */
const PROBE_WAIT_MS = 250;

// The SDK reports export failures through `diag`, silent unless a logger is set; keep it so.
diag.disable();

class OtelSpan implements SpanHandle {
  constructor(readonly span: Span) {}

  set(attributes: Attributes): void {
    this.span.setAttributes(attributes);
  }

  event(name: string, atMs: number, attributes?: Attributes): void {
    this.span.addEvent(name, attributes ?? {}, atMs);
  }

  end(atMs: number, error?: string): void {
    if (error !== undefined) this.span.setStatus({ code: SpanStatusCode.ERROR, message: error });
    this.span.end(atMs);
  }
}

export function createOtelSink(settings: TelemetrySettings, version: string): OtelSink {
  const otlp = new OTLPTraceExporter({ url: settings.endpoint, headers: settings.headers, timeoutMillis: settings.flushTimeoutMs });
  const report: ExportReport = { exported: 0, failed: 0, error: null };
  const probe = probeCollector(settings.endpoint);
  // Counts what reached the collector, so `glassbox trace` can say whether the export worked.
  const exporter: SpanExporter = {
    export(spans, done) {
      const collector = probe.state();
      if (collector !== null && !collector.reachable) {
        // Nobody listens: fail now instead of letting the exporter retry until its deadline.
        const error = new Error(`the collector is unreachable (${collector.reason})`);
        report.failed += spans.length;
        report.error ??= error.message;
        done({ code: EXPORT_FAILED, error });
        return;
      }
      otlp.export(spans, (result) => {
        if (result.code === EXPORT_SUCCESS) report.exported += spans.length;
        else {
          report.failed += spans.length;
          report.error ??= result.error?.message ?? 'export failed';
        }
        done(result);
      });
    },
    shutdown: () => otlp.shutdown(),
    forceFlush: () => otlp.forceFlush(),
  };
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': settings.serviceName, 'service.version': version }),
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: 1_000, exportTimeoutMillis: settings.flushTimeoutMs })],
  });
  const tracer: Tracer = provider.getTracer('glassbox', version);
  return {
    start(name, options) {
      const context = options.parent instanceof OtelSpan ? trace.setSpan(ROOT_CONTEXT, options.parent.span) : ROOT_CONTEXT;
      const span = tracer.startSpan(
        name,
        {
          kind: options.kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL,
          startTime: options.startMs,
          attributes: options.attributes,
        },
        context,
      );
      return new OtelSpan(span);
    },
    async shutdown() {
      await probe.settled(Math.min(PROBE_WAIT_MS, settings.flushTimeoutMs));
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, settings.flushTimeoutMs + 250);
      });
      await Promise.race([provider.shutdown().catch(() => {}), deadline]);
      clearTimeout(timer);
      return { ...report };
    },
  };
}
