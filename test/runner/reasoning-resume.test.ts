// Reasoning survives the session file: a turn whose tool rounds carried reasoning is resumed (and
// forked) and the next request sends that reasoning back exactly as the live run did. The fake
// provider runs in its strict mode, so a resumed request that dropped or changed any of it is
// answered 400/404 as DeepSeek, Gemini and OpenAI answer it.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { NO_APPROVER } from '../../src/agent/index.js';
import { createGateway, type WireApi } from '../../src/model/index.js';
import { openRunner, runTurn } from '../../src/runner/index.js';
import { JsonlSessionStore, forkSession, replaySession } from '../../src/sessions/index.js';
import { startFakeProvider, type CapturedRequest, type ScriptedTurn } from '../../src/testing/index.js';
import { echoTool } from '../helpers/loop-harness.js';
import { withTempDir } from '../helpers/temp-dir.js';

const signature = { extra_content: { google: { thought_signature: 'dGhvdWdodA==' } } };

function script(wireApi: WireApi): ScriptedTurn[] {
  const fields = wireApi === 'chat' ? signature : undefined;
  return [
    { reasoning: { text: 'Look first.' }, toolCalls: [{ name: 'echo', arguments: { text: 'a' }, ...(fields ? { fields } : {}) }] },
    { reasoning: { text: 'Now answer.' }, text: 'First answer.' },
    { text: 'Second answer.' },
    { text: 'Answer on the fork.' },
  ];
}

/** The request body minus the newest user message: what the history alone made of it. */
function historyPart(request: CapturedRequest): unknown[] {
  const list = (request.body.messages ?? request.body.input) as unknown[];
  return list.slice(0, -1);
}

for (const wireApi of ['chat', 'responses'] as const) {
  describe(`reasoning across resume and fork (${wireApi})`, () => {
    test('the resumed and the forked request send the recorded reasoning back byte for byte', async () => {
      await withTempDir(async (dir) => {
        const provider = await startFakeProvider({ script: script(wireApi), requireReasoningBack: true });
        try {
          const runner = await openRunner({
            root: dir,
            home: dir,
            model: 'acme-reasoner',
            wireApi,
            gateway: createGateway({ wireApi, baseURL: provider.baseURL, apiKey: 'k' }),
            sandbox: 'read-only',
            approvalPolicy: 'on-request',
            network: false,
            compaction: null,
            tools: [echoTool()],
            reasoningEffort: 'high',
          });
          const turn = (prompt: string, resume: string | null) =>
            runTurn(runner, { prompt, resume, runId: prompt, signal: new AbortController().signal, approvals: NO_APPROVER });
          const first = await turn('one', null);
          assert.equal(first.terminal.type, 'run_succeeded', JSON.stringify(first.terminal));
          const second = await turn('two', first.sessionId);
          assert.equal(second.terminal.type, 'run_succeeded', JSON.stringify(second.terminal));

          const store = new JsonlSessionStore(join(dir, 'sessions'));
          const replay = replaySession((await store.read(first.sessionId)).records);
          assert.deepEqual(
            replay.history.filter((item) => item.type === 'reasoning').map((item) => item.type === 'reasoning' && item.text),
            ['Look first.', 'Now answer.'],
          );

          // Request 3 (turn 2) = everything request 2 sent, plus the final answer, plus the prompt.
          const [, live, resumed] = provider.requests;
          assert.ok(live && resumed);
          assert.deepEqual(historyPart(resumed).slice(0, historyPart(live).length + 1), [
            ...historyPart(live),
            ...((live.body.messages ?? live.body.input) as unknown[]).slice(-1),
          ]);

          const forkId = await forkSession(store, first.sessionId, { atTurn: 1 });
          const forked = await turn('three', forkId);
          assert.equal(forked.terminal.type, 'run_succeeded', JSON.stringify(forked.terminal));
          assert.deepEqual(historyPart(provider.requests[3]!), historyPart(resumed));
          // The effort went out with every request, in this dialect's spelling.
          for (const request of provider.requests) {
            if (wireApi === 'chat') assert.equal(request.body.reasoning_effort, 'high');
            else assert.deepEqual(request.body.reasoning, { effort: 'high', summary: 'auto' });
          }
        } finally {
          await provider.close();
        }
      });
    });
  });
}
