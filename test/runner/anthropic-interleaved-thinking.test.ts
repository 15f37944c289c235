// Anthropic interleaved thinking keeps its order: an answer streamed as [thinking, tool_use,
// thinking, tool_use] (test/fixtures/providers/anthropic/interleaved-thinking-tool-use-stream.json,
// built from the Messages streaming and interleaved-thinking docs it cites) goes back in exactly that
// order after the tool results, on the live run, after a resume from the session file and on a fork.
// The loopback server answers a regrouped assistant message with the API's own 400 ("thinking …
// blocks in the latest assistant message cannot be modified", as reported in
// https://github.com/anthropics/claude-code/issues/19539), and the official SDK talks to it.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { NO_APPROVER, type ResponseItem, type Tool } from '../../src/agent/index.js';
import { transcriptUnits } from '../../src/compaction/index.js';
import { createGateway } from '../../src/model/index.js';
import { openRunner, runTurn } from '../../src/runner/index.js';
import { JsonlSessionStore, forkSession, replaySession } from '../../src/sessions/index.js';
import { withTempDir } from '../helpers/temp-dir.js';

type Json = Record<string, unknown>;
interface Fixture {
  events: Array<{ event: string | null; data: string }>;
  answer: Array<{ event: string | null; data: string }>;
}

const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/providers/anthropic/interleaved-thinking-tool-use-stream.json', import.meta.url), 'utf8'),
) as Fixture;

function sse(events: Fixture['events']): string {
  return events.map((entry) => `event: ${(JSON.parse(entry.data) as { type: string }).type}\ndata: ${entry.data}\n\n`).join('');
}

/** The recorded assistant content, block by block, as the API sent it. */
function recordedContent(): Json[] {
  const blocks: Json[] = [];
  for (const { data } of fixture.events) {
    const event = JSON.parse(data) as Json;
    if (event.type === 'content_block_start') blocks[event.index as number] = { ...(event.content_block as Json) };
    if (event.type !== 'content_block_delta') continue;
    const block = blocks[event.index as number]!;
    const delta = event.delta as Json;
    if (delta.type === 'thinking_delta') block.thinking = `${block.thinking as string}${delta.thinking as string}`;
    if (delta.type === 'signature_delta') block.signature = `${block.signature as string}${delta.signature as string}`;
    if (delta.type === 'input_json_delta') block.partial = `${(block.partial as string | undefined) ?? ''}${delta.partial_json as string}`;
  }
  return blocks.map(({ partial, ...block }) => (partial === undefined ? block : { ...block, input: JSON.parse(partial as string) }));
}

const CANNOT_MODIFY =
  '`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.';

/** The first request streams the interleaved answer; every later one must carry it back as it was, or gets the API's 400. */
async function interleavedServer() {
  const bodies: Json[] = [];
  const expected = recordedContent();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
      bodies.push(body);
      if (bodies.length > 1) {
        const messages = body.messages as Array<{ role: string; content: Json[] }>;
        const index = messages.findIndex((message) => message.role === 'assistant');
        const sent = messages[index]!.content.map(({ cache_control: _marker, ...block }) => block);
        const bad = expected.findIndex((block, position) => JSON.stringify(sent[position]) !== JSON.stringify(block));
        if (bad !== -1 || sent.length !== expected.length) {
          res.writeHead(400, { 'content-type': 'application/json', 'request-id': 'req_interleaved' });
          res.end(
            JSON.stringify({
              type: 'error',
              error: { type: 'invalid_request_error', message: `messages.${index}.content.${Math.max(bad, 0)}: ${CANNOT_MODIFY}` },
            }),
          );
          return;
        }
      }
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'request-id': 'req_interleaved' });
      res.end(sse(bodies.length === 1 ? fixture.events : fixture.answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}`,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function weatherTool(): Tool<{ location: string }> {
  return {
    name: 'get_weather',
    description: 'Current weather for a city.',
    schema: z.object({ location: z.string() }),
    readOnly: true,
    strict: false,
    access: () => ({ kind: 'none' }),
    async execute({ location }) {
      return { output: location === 'Paris' ? '18°C, cloudy' : '24°C, sunny' };
    },
  };
}

const blockTypes = (body: Json): string[][] =>
  (body.messages as Array<{ role: string; content: Json[] }>)
    .filter((message) => message.role === 'assistant')
    .map((message) => message.content.map((block) => block.type as string));

describe('anthropic interleaved thinking', () => {
  test('goes back in the order received: live, after a resume and on a fork', async () => {
    await withTempDir(async (dir) => {
      const server = await interleavedServer();
      try {
        const runner = await openRunner({
          root: dir,
          home: dir,
          model: 'claude-sonnet-4-5',
          wireApi: 'anthropic',
          gateway: createGateway({ wireApi: 'anthropic', baseURL: server.baseURL, apiKey: 'k', retry: { maxAttempts: 1 } }),
          sandbox: 'read-only',
          approvalPolicy: 'never',
          network: false,
          compaction: null,
          tools: [weatherTool()],
        });
        const turn = (prompt: string, resume: string | null) =>
          runTurn(runner, { prompt, resume, runId: prompt, signal: new AbortController().signal, approvals: NO_APPROVER });
        const first = await turn('Weather in Paris and Tokyo?', null);
        assert.equal(first.terminal.type, 'run_succeeded', JSON.stringify(first.terminal));
        assert.deepEqual(blockTypes(server.bodies[1]!), [['thinking', 'tool_use', 'thinking', 'tool_use']]);

        // The session file holds the round in the order received, and replays it so.
        const store = new JsonlSessionStore(join(dir, 'sessions'));
        const { history } = replaySession((await store.read(first.sessionId)).records);
        const round = history.slice(
          history.findIndex((item) => item.type === 'reasoning'),
          history.findIndex((item) => item.type === 'function_call_output'),
        );
        assert.deepEqual(
          round.map((item) => item.type),
          ['reasoning', 'function_call', 'reasoning', 'function_call'],
        );
        assert.equal(history.filter((item) => item.type === 'function_call_output' && item.isError).length, 0, 'no call left unanswered');
        // Compaction keeps or drops the round whole, with its outputs.
        const unit = transcriptUnits(history).find((items) => items.some((item: ResponseItem) => item.type === 'reasoning'));
        assert.deepEqual(
          unit?.map((item) => item.type),
          ['reasoning', 'function_call', 'reasoning', 'function_call', 'function_call_output', 'function_call_output'],
        );

        const resumed = await turn('And tomorrow?', first.sessionId);
        assert.equal(resumed.terminal.type, 'run_succeeded', JSON.stringify(resumed.terminal));
        assert.deepEqual(blockTypes(server.bodies[2]!)[0], ['thinking', 'tool_use', 'thinking', 'tool_use']);

        const forked = await turn('And in Rome?', await forkSession(store, first.sessionId, { atTurn: 1 }));
        assert.equal(forked.terminal.type, 'run_succeeded', JSON.stringify(forked.terminal));
        assert.deepEqual(blockTypes(server.bodies[3]!)[0], ['thinking', 'tool_use', 'thinking', 'tool_use']);
      } finally {
        await server.close();
      }
    });
  });
});
