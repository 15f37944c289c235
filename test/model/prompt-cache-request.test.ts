// What each dialect puts on the wire for prompt caching and for a request that must not call
// tools, through the official SDKs against the scripted fake provider (issue 23, items 10, 13, 14).
//
// Sources of the wire shapes:
// - `prompt_cache_key` (Chat Completions and Responses): OpenAI API reference, "prompt_cache_key:
//   Used by OpenAI to cache responses for similar requests to optimize your cache hit rates"
//   (platform.openai.com/docs/api-reference/chat/create, /responses/create), and the `openai` SDK's
//   `ChatCompletionCreateParamsBase.prompt_cache_key` / `ResponseCreateParamsBase.prompt_cache_key`.
// - `tool_choice: "none"` (Chat Completions, Responses): same references ("none means the model
//   will not call any tool"); Anthropic `{type: "none"}` exists (SDK `ToolChoiceNone`), but its
//   docs (platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools, "changing
//   tool_choice invalidates cached message blocks") make it a full message-cache miss.
// - Anthropic breakpoints: platform.claude.com/docs/en/build-with-claude/prompt-caching (a cache
//   write costs 1.25× the input price; a breakpoint writes the prefix up to it).
// - Mistral's refusal of an unknown field: `{"detail":[{"type":"extra_forbidden","loc":["body",
//   "prompt_cache_key"],"msg":"Extra inputs are not permitted"}]}`, the pydantic wording the Chat
//   gateway already learns `stream_options` from (chat-completions-gateway.ts).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createGateway, type ModelRequest, type WireApi } from '../../src/model/index.js';
import { startFakeProvider, type FakeProvider, type FakeProviderOptions } from '../../src/testing/index.js';

type Json = Record<string, unknown>;

const readTool = {
  name: 'read_file',
  description: 'Read a file.',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  strict: false,
};

const conversation: ModelRequest = {
  model: 'm',
  messages: [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'read a and b' },
    { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'read_file', arguments: '{"path":"a"}' }] },
    { role: 'tool', toolCallId: 'call_1', toolName: 'read_file', content: 'A', isError: false },
    { role: 'assistant', content: '', toolCalls: [{ id: 'call_2', name: 'read_file', arguments: '{"path":"b"}' }] },
    { role: 'tool', toolCallId: 'call_2', toolName: 'read_file', content: 'B', isError: false },
  ],
  tools: [readTool],
};

async function sent(
  wireApi: WireApi,
  request: ModelRequest,
  options: FakeProviderOptions = {},
): Promise<{ bodies: Json[]; provider: FakeProvider }> {
  const provider = await startFakeProvider({ whenExhausted: { text: 'ok' }, ...options });
  try {
    const gateway = createGateway({ wireApi, baseURL: provider.baseURL, apiKey: 'k', retry: { maxAttempts: 1 } });
    await gateway.createResponse(request);
    return { bodies: provider.requests.map((captured) => captured.body), provider };
  } finally {
    await provider.close();
  }
}

function breakpoints(body: Json): string[] {
  const found: string[] = [];
  ((body.tools as Json[] | undefined) ?? []).forEach((tool, i) => tool.cache_control && found.push(`tools.${i}`));
  ((body.system as Json[] | undefined) ?? []).forEach((block, i) => block.cache_control && found.push(`system.${i}`));
  (body.messages as Array<{ content: Json[] }>).forEach((message, m) =>
    message.content.forEach((block, b) => block.cache_control && found.push(`messages.${m}.${b}`)),
  );
  return found;
}

describe('prompt_cache_key (issue 23 item 13)', () => {
  for (const wireApi of ['chat', 'responses'] as const) {
    it(`${wireApi}: sent as given`, async () => {
      const { bodies } = await sent(wireApi, { ...conversation, promptCacheKey: 'gb-0123' });
      assert.equal(bodies[0]!.prompt_cache_key, 'gb-0123');
    });
  }

  it('anthropic: no such field', async () => {
    const { bodies } = await sent('anthropic', { ...conversation, promptCacheKey: 'gb-0123' });
    assert.equal('prompt_cache_key' in bodies[0]!, false);
  });

  it('chat: a server that refuses the field (pydantic "Extra inputs are not permitted") gets the request again without it', async () => {
    let refused = false;
    const { bodies } = await sent(
      'chat',
      { ...conversation, promptCacheKey: 'gb-0123' },
      {
        whenExhausted: (request) => {
          if ('prompt_cache_key' in request.body) {
            refused = true;
            return { fault: { kind: 'status', status: 422, message: 'body.prompt_cache_key: Extra inputs are not permitted' } };
          }
          return { text: 'ok' };
        },
      },
    );
    assert.ok(refused);
    assert.equal(bodies.length, 2);
    assert.equal('prompt_cache_key' in bodies[1]!, false);
  });

  it('the sampling loop sends one key per session: a digest, the same on every round, another for another session', async () => {
    const { promptCacheKey } = await import('../../src/agent/index.js');
    assert.equal(promptCacheKey('session-a'), promptCacheKey('session-a'));
    assert.notEqual(promptCacheKey('session-a'), promptCacheKey('session-b'));
    assert.match(promptCacheKey('session-a'), /^gb-[0-9a-f]{32}$/);
    assert.ok(promptCacheKey('x'.repeat(500)).length <= 64, "within the field's 64-character limit");
  });
});

describe("toolChoice 'none' (issue 23 item 10)", () => {
  for (const wireApi of ['chat', 'responses'] as const) {
    it(`${wireApi}: the tools stay, tool_choice is "none"`, async () => {
      const { bodies } = await sent(wireApi, { ...conversation, toolChoice: 'none' });
      assert.equal((bodies[0]!.tools as unknown[]).length, 1);
      assert.equal(bodies[0]!.tool_choice, 'none');
    });
  }

  it('anthropic: the tools stay and tool_choice stays auto, since changing it would invalidate the cached messages', async () => {
    const { bodies } = await sent('anthropic', { ...conversation, toolChoice: 'none' });
    assert.equal((bodies[0]!.tools as unknown[]).length, 1);
    assert.deepEqual(bodies[0]!.tool_choice, { type: 'auto' });
  });
});

describe('Anthropic cache breakpoints (issue 23 item 14)', () => {
  it("a round marks tools, system, the previous round's tail and its own tail", async () => {
    const { bodies } = await sent('anthropic', conversation);
    assert.deepEqual(breakpoints(bodies[0]!), ['tools.0', 'system.0', 'messages.2.0', 'messages.4.0']);
  });

  it("cacheWrite 'prefix' (the live summary request) marks only what earlier rounds wrote: nothing new is written", async () => {
    const live: ModelRequest = {
      ...conversation,
      messages: [...conversation.messages, { role: 'user', content: 'Summarize the conversation above.' }],
      cacheWrite: 'prefix',
    };
    const { bodies } = await sent('anthropic', live);
    // messages.4 holds tool result B and the instruction; neither is marked.
    assert.deepEqual(breakpoints(bodies[0]!), ['tools.0', 'system.0', 'messages.2.0']);
  });

  it("cacheWrite 'none' (the transcript summary request) carries no breakpoint at all", async () => {
    const { bodies } = await sent('anthropic', {
      model: 'm',
      messages: [
        { role: 'system', content: 'You are compacting…' },
        { role: 'user', content: '<transcript>…</transcript>' },
      ],
      cacheWrite: 'none',
    });
    assert.deepEqual(breakpoints(bodies[0]!), []);
  });
});
