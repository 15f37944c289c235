// A remote (Streamable HTTP) MCP server's answer is bounded while it streams: a 200 MB tool
// result, as one SSE event or as one JSON body, is cut at the limit, the call fails with a clear
// error the model reads, and the run goes on. A loopback server speaking the protocol by hand
// (initialize, tools/list, tools/call) writes the answer with backpressure, so what it managed to
// write before the client hung up is what the client read: far less than the answer.

import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { describe, test } from 'node:test';
import { MAX_MCP_RESPONSE_BYTES } from '../../src/mcp/index.js';
import { outputs, withMcpWorld } from './mcp-harness.js';

const ANSWER_BYTES = 200 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'x');

interface HugeServer {
  url: string;
  /** Resolves when the tools/call answer stopped: how much of it was written, and whether all. */
  answered: Promise<{ written: number; finished: boolean }>;
  close(): Promise<void>;
}

async function hugeAnswerServer(mode: 'sse' | 'json', hugeMethod: 'tools/call' | 'tools/list' = 'tools/call'): Promise<HugeServer> {
  let settle: (outcome: { written: number; finished: boolean }) => void = () => {};
  const answered = new Promise<{ written: number; finished: boolean }>((resolve) => (settle = resolve));
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (request.method !== 'POST') {
      response.writeHead(request.method === 'DELETE' ? 200 : 405).end();
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const message = JSON.parse(Buffer.concat(chunks).toString()) as {
        id?: number;
        method: string;
        params?: { protocolVersion?: string };
      };
      const json = (result: unknown) =>
        response
          .writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'session-1' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
      if (message.id === undefined) {
        response.writeHead(202).end();
      } else if (message.method === 'initialize') {
        json({ protocolVersion: message.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'huge', version: '0' } });
      } else if (message.method === hugeMethod) {
        streamAnswer(response, mode, message.id, settle);
      } else if (message.method === 'tools/list') {
        json({ tools: [{ name: 'dump', description: 'Answers with 200 MB.', inputSchema: { type: 'object', properties: {} } }] });
      } else {
        json({});
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    answered,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** `{"content":[{"type":"text","text":"xxxx…"}]}` of ANSWER_BYTES, written only as fast as it is read. */
function streamAnswer(
  response: ServerResponse,
  mode: 'sse' | 'json',
  id: number,
  settle: (outcome: { written: number; finished: boolean }) => void,
): void {
  response.writeHead(200, { 'content-type': mode === 'sse' ? 'text/event-stream' : 'application/json' });
  const head = `${mode === 'sse' ? 'event: message\ndata: ' : ''}{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"`;
  const tail = `"}]}}${mode === 'sse' ? '\n\n' : ''}`;
  let written = 0;
  let closed = false;
  response.on('close', () => {
    closed = true;
    settle({ written, finished: written >= ANSWER_BYTES });
  });
  response.write(head);
  const pump = (): void => {
    while (!closed && written < ANSWER_BYTES) {
      written += CHUNK.length;
      if (!response.write(CHUNK)) {
        response.once('drain', pump);
        return;
      }
    }
    if (!closed) response.end(tail);
  };
  pump();
}

describe('a remote MCP server answer is bounded while it streams', { concurrency: true }, () => {
  for (const mode of ['sse', 'json'] as const) {
    test(`${mode}: a 200 MB tool result is cut at the limit, the call fails clearly, the run goes on`, async (t) => {
      const server = await hugeAnswerServer(mode);
      t.after(() => server.close());
      await withMcpWorld([{ toolCalls: [{ name: 'mcp__remote__dump', arguments: {} }] }, { text: 'Coped.' }], async (world) => {
        await world.writeUserConfig({ mcpServers: { remote: { url: server.url, trust: true, toolTimeoutSec: 60 } } });
        const { result, records } = await world.turn();
        assert.equal(result.terminal.type, 'run_succeeded', JSON.stringify(result.terminal));
        const output = outputs(records).get('mcp__remote__dump');
        assert.ok(output?.isError, JSON.stringify(output).slice(0, 300));
        assert.match(
          output.output,
          /^Error \[MCP_RESPONSE_TOO_LARGE\]: MCP server "remote" sent an answer larger than 16 MiB; it was not read further\./,
        );
        const answered = await server.answered;
        assert.equal(answered.finished, false, 'the client read the whole answer');
        // What was written is what was read, plus the socket buffers in between.
        assert.ok(answered.written < MAX_MCP_RESPONSE_BYTES + 32 * 1024 * 1024, `${answered.written} bytes written`);
      });
    });
  }

  test('an oversized tools/list answer: the server does not start, the warning says why, the run goes on', async (t) => {
    const server = await hugeAnswerServer('sse', 'tools/list');
    t.after(() => server.close());
    await withMcpWorld([{ text: 'Without it.' }], async (world) => {
      await world.writeUserConfig({ mcpServers: { remote: { url: server.url, trust: true, startupTimeoutSec: 60 } } });
      const { result, events } = await world.turn();
      assert.equal(result.terminal.type, 'run_succeeded');
      const warnings = events.flatMap((event) => (event.type === 'warning' ? [event.message] : []));
      assert.ok(
        warnings.some((message) => /"remote" could not start: MCP server "remote" sent an answer larger than 16 MiB/.test(message)),
        warnings.join('\n'),
      );
      assert.equal((await server.answered).finished, false);
    });
  });
});
