// The entry point for the rest of Glassbox: a config in, a retrying gateway for the chosen wire
// API out. Config problems are thrown here, before any request, with the setting to fix.

import { dialectOf } from './dialects.js';
import type { GatewayConfig, ModelGateway, RetryPolicy } from './gateway.js';
import { ModelError } from './model-error.js';
import { WIRE_APIS, type ModelCallOptions, type ModelRequest, type ModelResponse, type ModelStreamEvent } from './ir.js';
import { resolveRetryPolicy, streamWithRetries, withRetries, type Sleep } from './retry.js';

/** Wraps a single-attempt gateway with the retry policy; see retry.ts for what is retried. */
export class RetryingGateway implements ModelGateway {
  readonly wireApi: ModelGateway['wireApi'];
  readonly baseURL: string;

  constructor(
    private readonly inner: ModelGateway,
    /** Also the backoff the sampling loop uses to retry a round whose stream broke. */
    readonly policy: RetryPolicy,
    private readonly sleep?: Sleep,
    /** Strings (the API key) that must never appear in an error message, e.g. echoed by a provider. */
    private readonly secrets: readonly string[] = [],
  ) {
    this.wireApi = inner.wireApi;
    this.baseURL = inner.baseURL;
  }

  createResponse(request: ModelRequest, options: ModelCallOptions = {}): Promise<ModelResponse> {
    return withRetries(() => this.inner.createResponse(request, { signal: options.signal }), {
      ...this.redactedOptions(options),
      policy: this.policy,
      sleep: this.sleep,
    }).catch((error: unknown) => {
      throw redactError(error, this.secrets);
    });
  }

  async *streamResponse(request: ModelRequest, options: ModelCallOptions = {}): AsyncIterable<ModelStreamEvent> {
    try {
      yield* streamWithRetries(() => this.inner.streamResponse(request, { signal: options.signal }), {
        ...this.redactedOptions(options),
        policy: this.policy,
        sleep: this.sleep,
      });
    } catch (error) {
      throw redactError(error, this.secrets);
    }
  }

  private redactedOptions(options: ModelCallOptions): ModelCallOptions {
    const { onRetry } = options;
    if (!onRetry || this.secrets.length === 0) return options;
    return {
      ...options,
      onRetry: (notice) => onRetry({ ...notice, error: { ...notice.error, message: redact(notice.error.message, this.secrets) } }),
    };
  }
}

export function createGateway(config: GatewayConfig): ModelGateway {
  if (!WIRE_APIS.includes(config.wireApi)) {
    throw new Error(`Unknown wire API ${JSON.stringify(config.wireApi)}: expected one of ${WIRE_APIS.join(', ')}.`);
  }
  // The single-attempt gateway of the chosen dialect; config errors are thrown from there.
  const inner = dialectOf(config.wireApi).createGateway(config);
  const policy = resolveRetryPolicy(config.retry);
  // Keys shorter than 8 characters are placeholders ("x", "no-key"); redacting them would mangle text.
  const secrets = config.apiKey.length >= 8 ? [config.apiKey] : [];
  return new RetryingGateway(inner, policy, undefined, secrets);
}

const REDACTED = '[redacted]';

function redact(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) result = result.split(secret).join(REDACTED);
  return result;
}

/** A provider may echo request headers in an error body; the key must not travel on in messages. */
function redactError(error: unknown, secrets: readonly string[]): unknown {
  if (secrets.length === 0 || !(error instanceof ModelError)) return error;
  const message = redact(error.message, secrets);
  if (message === error.message) return error;
  return new ModelError(error.code, message, { status: error.status, retryable: error.retryable, retryAfterMs: error.retryAfterMs });
}

/**
 * The retry policy of a gateway, looking through wrappers that expose the gateway they wrap as
 * `inner` (the budget and fallback gateways): the loop retries a broken stream with the same backoff.
 */
export function retryPolicyOf(gateway: unknown): RetryPolicy | undefined {
  for (let current = gateway, depth = 0; depth < 8; depth++) {
    if (current instanceof RetryingGateway) return current.policy;
    if (typeof current !== 'object' || current === null || !('inner' in current)) return undefined;
    current = current.inner;
  }
  return undefined;
}
