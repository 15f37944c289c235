// The Responses dialect (`POST /responses`): OpenAI's newer wire API, with typed stream events
// and explicit failed/incomplete outcomes. Sent with `store: false`, because Glassbox owns the
// history and resends it every round. One attempt per call; retries wrap it from outside.

import type { ModelCallOptions, ModelRequest, ModelResponse, ModelStreamEvent } from '../ir.js';
import { runCall, runStream } from '../run-call.js';
import { SdkGateway } from '../sdk-gateway.js';
import { buildResponsesRequest } from './convert-input.js';
import { responseToModelResponse } from './convert-response.js';
import { ResponsesStreamMapper } from './map-stream.js';

export class ResponsesGateway extends SdkGateway {
  readonly wireApi = 'responses' as const;

  async createResponse(request: ModelRequest, options: ModelCallOptions = {}): Promise<ModelResponse> {
    const body = buildResponsesRequest(request, false);
    const response = await runCall(this.settings(options), (signal) => this.client.responses.create(body, { signal }));
    return this.checked(responseToModelResponse(response));
  }

  async *streamResponse(request: ModelRequest, options: ModelCallOptions = {}): AsyncIterable<ModelStreamEvent> {
    const body = buildResponsesRequest(request, true);
    yield* runStream(
      this.settings(options),
      (signal) => this.client.responses.create(body, { signal }),
      new ResponsesStreamMapper(this.limits),
    );
  }
}
