// `--fallback-model`: when the run's model stays overloaded, rate limited or failing with 5xx after
// the gateway's own retries, the run goes on with another model through the same endpoint rather
// than failing. The switch is for the rest of the run, and is reported (`onWarning`) so the session
// records it and the faces show it.

import type { ModelGateway } from './gateway.js';
import type { ModelCallOptions, ModelRequest, ModelResponse, ModelStreamEvent } from './ir.js';
import { isModelError, type ModelError } from './model-error.js';

/** The code of the warning a switch reports (a `warning` run event and session record). */
export const MODEL_FALLBACK_WARNING = 'MODEL_FALLBACK';

/** Failures that another model may not share: capacity and server trouble, not the request or the account. */
function fallsBack(error: unknown): error is ModelError {
  return isModelError(error) && (error.code === 'SERVER_ERROR' || error.code === 'RATE_LIMITED');
}

export class FallbackGateway implements ModelGateway {
  readonly wireApi: ModelGateway['wireApi'];
  readonly baseURL: string;
  private switched = false;
  /** A switch made in a call that could not report it (a compaction summary): told with the next call that can. */
  private unreported: { code: string; message: string } | null = null;

  constructor(
    readonly inner: ModelGateway,
    readonly fallbackModel: string,
  ) {
    this.wireApi = inner.wireApi;
    this.baseURL = inner.baseURL;
  }

  /** Whether the run has moved to the fallback model. */
  get onFallback(): boolean {
    return this.switched;
  }

  private switchAfter(error: ModelError, request: ModelRequest, options: ModelCallOptions | undefined): ModelRequest {
    this.switched = true;
    this.unreported = {
      code: MODEL_FALLBACK_WARNING,
      message: `${request.model} failed after its retries (${error.code}: ${error.message}); the run continues on ${this.fallbackModel} (--fallback-model).`,
    };
    return this.redirected(request, options);
  }

  private redirected(request: ModelRequest, options: ModelCallOptions | undefined): ModelRequest {
    if (this.unreported !== null && options?.onWarning !== undefined) {
      options.onWarning(this.unreported);
      this.unreported = null;
    }
    return { ...request, model: this.fallbackModel };
  }

  private mayFallBack(error: unknown, request: ModelRequest): error is ModelError {
    return !this.switched && fallsBack(error) && request.model !== this.fallbackModel;
  }

  async createResponse(request: ModelRequest, options?: ModelCallOptions): Promise<ModelResponse> {
    if (this.switched) return this.inner.createResponse(this.redirected(request, options), options);
    try {
      return await this.inner.createResponse(request, options);
    } catch (error) {
      if (!this.mayFallBack(error, request)) throw error;
      return this.inner.createResponse(this.switchAfter(error, request, options), options);
    }
  }

  async *streamResponse(request: ModelRequest, options?: ModelCallOptions): AsyncIterable<ModelStreamEvent> {
    if (this.switched) {
      yield* this.inner.streamResponse(this.redirected(request, options), options);
      return;
    }
    let yielded = false;
    try {
      for await (const event of this.inner.streamResponse(request, options)) {
        yielded = true;
        yield event;
      }
      return;
    } catch (error) {
      // Once part of an answer was passed on, a second model cannot take it over silently.
      if (yielded || !this.mayFallBack(error, request)) throw error;
      request = this.switchAfter(error, request, options);
    }
    yield* this.inner.streamResponse(request, options);
  }
}
