// The Responses `phase` of assistant messages (gpt-5.3-codex and later label each one
// `commentary` or `final_answer` and want it back on every later request; sources in
// test/fixtures/providers/responses/phase-commentary-tool-call.json) survives the live loop, the
// session file and a resume: each assistant message input item goes back with the phase it came
// with, in its place among the reasoning and function call items. The official SDK talks to a
// loopback server that replays the composed rounds.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { NO_APPROVER, type Tool } from '../../src/agent/index.js';
import { createGateway } from '../../src/model/index.js';
import { openRunner, runTurn } from '../../src/runner/index.js';
import { JsonlSessionStore, replaySession } from '../../src/sessions/index.js';
import { withTempDir } from '../helpers/temp-dir.js';

type Json = Record<string, unknown>;

const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/providers/responses/phase-commentary-tool-call.json', import.meta.url), 'utf8'),
) as { rounds: Json[][] };

async function phaseServer() {
  const bodies: Json[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json);
      const round = fixture.rounds[bodies.length - 1];
      if (round === undefined) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'replay exhausted', type: 'server_error' } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(round.map((event) => `event: ${event.type as string}\ndata: ${JSON.stringify(event)}\n\n`).join(''));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function notesTool(): Tool<{ path: string }> {
  return {
    name: 'read_notes',
    description: 'Reads a note.',
    schema: z.object({ path: z.string() }),
    readOnly: true,
    strict: false,
    access: () => ({ kind: 'none' }),
    async execute() {
      return { output: 'Run npm test.' };
    },
  };
}

/** The assistant-side input items of a request: type, and phase for messages. */
function assistantItems(body: Json): string[] {
  return (body.input as Json[])
    .filter((item) => item.type !== 'function_call_output' && item.role !== 'user' && item.role !== 'system')
    .map((item) => (item.type === 'message' ? `message:${String(item.phase)}` : (item.type as string)));
}

describe('responses message phase', () => {
  test('each assistant message goes back with its phase, live and after a resume', async () => {
    await withTempDir(async (dir) => {
      const server = await phaseServer();
      try {
        const runner = await openRunner({
          root: dir,
          home: dir,
          model: 'gpt-5.3-codex',
          wireApi: 'responses',
          gateway: createGateway({ wireApi: 'responses', baseURL: server.baseURL, apiKey: 'k', retry: { maxAttempts: 1 } }),
          sandbox: 'read-only',
          approvalPolicy: 'never',
          network: false,
          compaction: null,
          tools: [notesTool()],
        });
        const turn = (prompt: string, resume: string | null) =>
          runTurn(runner, { prompt, resume, runId: prompt, signal: new AbortController().signal, approvals: NO_APPROVER });
        const first = await turn('How do I test this?', null);
        assert.equal(first.terminal.type, 'run_succeeded', JSON.stringify(first.terminal));
        assert.deepEqual(assistantItems(server.bodies[1]!), ['reasoning', 'message:commentary', 'function_call']);

        const store = new JsonlSessionStore(join(dir, 'sessions'));
        const { history } = replaySession((await store.read(first.sessionId)).records);
        assert.deepEqual(
          history.flatMap((item) =>
            item.type === 'message' && item.role === 'assistant' ? [[item.runtimeRole, item.providerFields]] : [],
          ),
          [
            ['working_message', { format: 'responses', fields: { phase: 'commentary' } }],
            ['final_response', { format: 'responses', fields: { phase: 'final_answer' } }],
          ],
        );

        const resumed = await turn('Anything else?', first.sessionId);
        assert.equal(resumed.terminal.type, 'run_succeeded', JSON.stringify(resumed.terminal));
        assert.deepEqual(assistantItems(server.bodies[2]!), ['reasoning', 'message:commentary', 'function_call', 'message:final_answer']);
      } finally {
        await server.close();
      }
    });
  });
});
