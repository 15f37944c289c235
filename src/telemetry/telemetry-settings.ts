// Whether and where to export traces: `--otlp-endpoint` over the standard OpenTelemetry variables
// (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `OTEL_EXPORTER_OTLP_ENDPOINT`, `…_HEADERS`,
// `OTEL_SERVICE_NAME`, `OTEL_SDK_DISABLED`, `OTEL_EXPORTER_OTLP_TIMEOUT`). Pure: nothing here loads
// OpenTelemetry, so a run without tracing pays for one look at the environment.

export interface TelemetrySettings {
  /** The full OTLP/HTTP traces URL (`…/v1/traces`). */
  endpoint: string;
  headers: Record<string, string>;
  serviceName: string;
  /** Attach prompts, answers, tool arguments and results (`--trace-content`); off by default. */
  traceContent: boolean;
  /** The longest a finished run waits for its spans to reach the collector (default 3 s). */
  flushTimeoutMs: number;
}

export interface TelemetryOptions {
  /** `--otlp-endpoint`: a base URL (`http://localhost:4318`) or the full traces URL. */
  otlpEndpoint?: string;
  traceContent?: boolean;
}

/** A setting that cannot work: the CLI reports it as a usage error (exit 2). */
export class TelemetryConfigError extends Error {
  readonly exitCode = 2;
  constructor(message: string) {
    super(message);
    this.name = 'TelemetryConfigError';
  }
}

export const DEFAULT_FLUSH_TIMEOUT_MS = 3_000;
const TRACES_PATH = '/v1/traces';

function value(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
}

function checkUrl(url: string, what: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TelemetryConfigError(`${what} "${url}" is not a URL; expected something like http://localhost:4318`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new TelemetryConfigError(`${what} must be http or https, got ${parsed.protocol}`);
  return url;
}

/** The spec's rule: the generic endpoint is a base that `/v1/traces` is appended to. */
function withTracesPath(base: string): string {
  return base.endsWith(TRACES_PATH) ? base : `${base.replace(/\/+$/, '')}${TRACES_PATH}`;
}

/** `k1=v1,k2=v2`, values URL-encoded (the OTLP exporter spec's format). */
export function parseOtlpHeaders(text: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (!text) return headers;
  for (const pair of text.split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    const name = pair.slice(0, at).trim();
    let decoded = pair.slice(at + 1).trim();
    try {
      decoded = decodeURIComponent(decoded);
    } catch {
      // Not encoded after all; keep it as written.
    }
    if (name !== '') headers[name] = decoded;
  }
  return headers;
}

/** null when no endpoint is configured (or `OTEL_SDK_DISABLED=true`): tracing is off. */
export function resolveTelemetrySettings(options: TelemetryOptions = {}, env: NodeJS.ProcessEnv = process.env): TelemetrySettings | null {
  let endpoint: string | undefined;
  if (options.otlpEndpoint !== undefined && options.otlpEndpoint.trim() !== '') {
    endpoint = withTracesPath(checkUrl(options.otlpEndpoint.trim(), '--otlp-endpoint'));
  } else {
    if (value(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return null;
    const traces = value(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
    const base = value(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
    if (traces !== undefined) endpoint = checkUrl(traces, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
    else if (base !== undefined) endpoint = withTracesPath(checkUrl(base, 'OTEL_EXPORTER_OTLP_ENDPOINT'));
  }
  if (endpoint === undefined) {
    if (options.traceContent)
      throw new TelemetryConfigError('--trace-content needs a trace endpoint: --otlp-endpoint or OTEL_EXPORTER_OTLP_ENDPOINT');
    return null;
  }
  const timeout = Number(value(env, 'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT') ?? value(env, 'OTEL_EXPORTER_OTLP_TIMEOUT'));
  return {
    endpoint,
    headers: {
      ...parseOtlpHeaders(value(env, 'OTEL_EXPORTER_OTLP_HEADERS')),
      ...parseOtlpHeaders(value(env, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS')),
    },
    serviceName: value(env, 'OTEL_SERVICE_NAME') ?? 'glassbox',
    traceContent: options.traceContent === true,
    flushTimeoutMs: Number.isFinite(timeout) && timeout > 0 ? Math.min(timeout, 30_000) : DEFAULT_FLUSH_TIMEOUT_MS,
  };
}
