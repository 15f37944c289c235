// Azure's content filter, in its own words: a streamed completion that Azure cuts with
// finish_reason "content_filter" names the category and severity that fired. The opening frames
// are the recorded Azure OpenAI stream of test/fixtures/providers/streams/azure-openai-chat-gpt-5.2-tool-call.json
// (Vercel AI SDK fixture azure-model-router.1.chunks.txt: prompt_filter_results, then choices
// annotated with content_filter_results); the last frame is the filtered ending as Azure documents
// it (https://learn.microsoft.com/en-us/azure/ai-foundry/openai/concepts/content-filter, "Scenario:
// streaming, the completion is filtered": finish_reason content_filter with the choice's
// content_filter_results, violence filtered at severity medium). The 400 a filtered prompt gets
// (error.innererror.content_filter_result) is in the error corpus (azure-content-filter-*.json).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { createGateway, isModelError, type ModelStreamEvent } from '../../src/model/index.js';

const recorded = JSON.parse(
  readFileSync(new URL('../fixtures/providers/streams/azure-openai-chat-gpt-5.2-tool-call.json', import.meta.url), 'utf8'),
) as { rounds: Array<{ frames: string[] }> };

const opening = recorded.rounds.at(-1)!.frames.slice(0, 4);
const filteredEnding = JSON.stringify({
  choices: [
    {
      content_filter_results: {
        hate: { filtered: false, severity: 'safe' },
        self_harm: { filtered: false, severity: 'safe' },
        sexual: { filtered: false, severity: 'safe' },
        violence: { filtered: true, severity: 'medium' },
      },
      delta: {},
      finish_reason: 'content_filter',
      index: 0,
      logprobs: null,
    },
  ],
  created: 1762317021,
  id: 'chatcmpl-CYPS1lijGoK8gd9lYzY3r9Sx50nbt',
  model: 'gpt-5-nano-2025-08-07',
  object: 'chat.completion.chunk',
  system_fingerprint: null,
  usage: null,
});

describe('azure content filter', () => {
  it('a stream that ends with finish_reason content_filter says which category at what severity', async () => {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`${[...opening, filteredEnding].map((frame) => `data: ${frame}\n\n`).join('')}data: [DONE]\n\n`);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const gateway = createGateway({ wireApi: 'chat', baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'k', retry: { maxAttempts: 1 } });
      const seen: ModelStreamEvent[] = [];
      await assert.rejects(
        async () => {
          for await (const event of gateway.streamResponse({ model: 'gpt-5-nano', messages: [{ role: 'user', content: 'Capital?' }] }))
            seen.push(event);
        },
        (error: unknown) => {
          assert.ok(isModelError(error));
          assert.equal(error.code, 'CONTENT_FILTERED');
          assert.match(error.message, /finish_reason "content_filter"/);
          assert.match(error.message, /filtered: violence \(severity medium\)/);
          // Categories the filter passed as safe are not news.
          assert.doesNotMatch(error.message, /hate|sexual|self-harm/);
          return true;
        },
      );
      assert.deepEqual(
        seen.filter((event) => event.type === 'text-delta').map((event) => (event.type === 'text-delta' ? event.delta : '')),
        ['Capital', ' of'],
      );
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
