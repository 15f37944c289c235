// The Responses dialect (`POST /responses`): OpenAI's newer wire API, with typed stream events
// and explicit failed/incomplete outcomes. Sent with `store: false`, because Glassbox owns the
// history and resends it every round. One attempt per call; retries wrap it from outside.

import type { ModelCallOptions, ModelRequest, ModelResponse, ModelStreamEvent } from '../ir.js';
import { ModelError } from '../model-error.js';
import { runCall, runStream } from '../run-call.js';
import { SdkGateway } from '../sdk-gateway.js';
import { buildResponsesRequest } from './convert-input.js';
import { responseToModelResponse } from './convert-response.js';
import { ResponsesStreamMapper } from './map-stream.js';

export class ResponsesGateway extends SdkGateway {
  readonly wireApi = 'responses' as const;
  /** Models that refused `include: ['reasoning.encrypted_content']`; asked without it from then on. */
  private readonly withoutEncryptedReasoning = new Set<string>();

  async createResponse(request: ModelRequest, options: ModelCallOptions = {}): Promise<ModelResponse> {
    const call = (encryptedReasoning: boolean) => {
      const body = buildResponsesRequest(request, false, { encryptedReasoning });
      return runCall(this.settings(options), (signal) => this.client.responses.create(body, { signal }));
    };
    try {
      return this.checked(responseToModelResponse(await call(this.asksForEncryptedReasoning(request))));
    } catch (error) {
      if (!this.refusedEncryptedReasoning(request, error)) throw error;
      return this.checked(responseToModelResponse(await call(false)));
    }
  }

  async *streamResponse(request: ModelRequest, options: ModelCallOptions = {}): AsyncIterable<ModelStreamEvent> {
    const attempt = (encryptedReasoning: boolean) =>
      runStream(
        this.settings(options),
        (signal) => this.client.responses.create(buildResponsesRequest(request, true, { encryptedReasoning }), { signal }),
        new ResponsesStreamMapper(this.limits),
      );
    let yielded = false;
    try {
      for await (const event of attempt(this.asksForEncryptedReasoning(request))) {
        yielded = true;
        yield event;
      }
    } catch (error) {
      // The refusal is a 400 to the request itself, so nothing has been streamed yet.
      if (yielded || !this.refusedEncryptedReasoning(request, error)) throw error;
      yield* attempt(false);
    }
  }

  private asksForEncryptedReasoning(request: ModelRequest): boolean {
    return !this.withoutEncryptedReasoning.has(request.model);
  }

  /** True (and remembered) when the provider said this model cannot return encrypted reasoning. */
  private refusedEncryptedReasoning(request: ModelRequest, error: unknown): boolean {
    if (!this.asksForEncryptedReasoning(request)) return false;
    if (!(error instanceof ModelError) || error.status !== 400) return false;
    // OpenAI's wording, and any compatible server that objects to the `include` parameter itself.
    if (!/encrypted content is not supported|reasoning\.encrypted_content|\binclude\b/i.test(error.message)) return false;
    this.withoutEncryptedReasoning.add(request.model);
    return true;
  }
}
