// The OpenTelemetry side: a tracer provider with a batch processor and the OTLP/HTTP (protobuf)
// exporter, behind the builder's `SpanSink`. Imported only when tracing is configured. Spans are
// exported in the background while the run goes on; `shutdown` waits for the rest at most
// `flushTimeoutMs` (also the exporter's own deadline, retries included), so a collector that is
// down or hangs never fails a run and holds its end up by that much at most.

import { ROOT_CONTEXT, SpanKind, SpanStatusCode, diag, trace, type Span, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';
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

/** `ExportResultCode.SUCCESS` of @opentelemetry/core, which is not a direct dependency. */
const EXPORT_SUCCESS = 0;

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
  // Counts what reached the collector, so `glassbox trace` can say whether the export worked.
  const exporter: SpanExporter = {
    export(spans, done) {
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
