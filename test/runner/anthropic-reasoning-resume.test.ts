// Anthropic thinking survives the session file: a turn whose tool round carried a signed thinking
// block (and one a redacted block) is resumed and forked, and the next request sends the blocks
// back exactly as the live run did. The fake provider runs in its strict mode, so a dropped or
// changed block is answered 400 as the Messages API answers it. Cache breakpoints move to the
// newest turn by design, so requests are compared without them.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { NO_APPROVER } from '../../src/agent/index.js';
import { createGateway } from '../../src/model/index.js';
import { openRunner, runTurn } from '../../src/runner/index.js';
import { JsonlSessionStore, forkSession, replaySession } from '../../src/sessions/index.js';
import { startFakeProvider, type CapturedRequest } from '../../src/testing/index.js';
import { echoTool } from '../helpers/loop-harness.js';
import { withTempDir } from '../helpers/temp-dir.js';

type Block = Record<string, unknown>;

/** The request's turns without cache breakpoints. */
function turnsOf(request: CapturedRequest): Array<{ role: string; content: Block[] }> {
  const messages = request.body.messages as Array<{ role: string; content: Block[] }>;
  return messages.map((message) => ({ role: message.role, content: message.content.map(({ cache_control: _marker, ...block }) => block) }));
}

/** The same minus the newest user turn: what the history alone made of it. */
function historyPart(request: CapturedRequest): Array<{ role: string; content: Block[] }> {
  return turnsOf(request).slice(0, -1);
}

describe('anthropic thinking across resume and fork', () => {
  test('the resumed and the forked request send the recorded thinking blocks back unchanged', async () => {
    await withTempDir(async (dir) => {
      const provider = await startFakeProvider({
        requireReasoningBack: true,
        script: [
          { reasoning: { text: 'Look first.' }, toolCalls: [{ name: 'echo', arguments: { text: 'a' } }] },
          { reasoning: { text: 'hidden', redacted: true }, toolCalls: [{ name: 'echo', arguments: { text: 'b' } }] },
          { reasoning: { text: 'Now answer.' }, text: 'First answer.' },
          { text: 'Second answer.' },
          { text: 'Answer on the fork.' },
        ],
      });
      try {
        const runner = await openRunner({
          root: dir,
          home: dir,
          model: 'claude-sonnet-5-5',
          wireApi: 'anthropic',
          gateway: createGateway({ wireApi: 'anthropic', baseURL: provider.baseURL, apiKey: 'k' }),
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
        const reasoning = replay.history.filter((item) => item.type === 'reasoning');
        assert.deepEqual(
          reasoning.map((item) => item.type === 'reasoning' && [item.format, item.text, item.state?.type]),
          [
            ['anthropic', 'Look first.', 'thinking'],
            ['anthropic', '', 'redacted_thinking'],
            ['anthropic', 'Now answer.', 'thinking'],
          ],
        );

        // Request 4 (turn 2) = everything request 3 sent, plus the final answer (its thinking first), plus the prompt.
        const [, , live, resumed] = provider.requests;
        assert.ok(live && resumed);
        const liveHistory = turnsOf(live);
        assert.deepEqual(historyPart(resumed).slice(0, liveHistory.length), liveHistory);
        const finalAnswer = historyPart(resumed)[liveHistory.length]!;
        assert.equal(finalAnswer.role, 'assistant');
        assert.deepEqual(
          finalAnswer.content.map((block) => block.type),
          ['thinking', 'text'],
        );

        const forkId = await forkSession(store, first.sessionId, { atTurn: 1 });
        const forked = await turn('three', forkId);
        assert.equal(forked.terminal.type, 'run_succeeded', JSON.stringify(forked.terminal));
        assert.deepEqual(historyPart(provider.requests[4]!), historyPart(resumed));
        // The effort went out with every request as adaptive thinking.
        for (const request of provider.requests) {
          assert.deepEqual(request.body.thinking, { type: 'adaptive', display: 'summarized' });
          assert.deepEqual(request.body.output_config, { effort: 'high' });
        }
      } finally {
        await provider.close();
      }
    });
  });
});
