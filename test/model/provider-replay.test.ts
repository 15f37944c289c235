// Every recorded provider profile (test/fixtures/providers/streams) through Glassbox's real loop,
// gateway and the official SDK, against a loopback server that replays the recorded streams and
// enforces the provider's documented request rules: the tool round and the answer round must
// parse exactly as the provider meant them (call ids, names, arguments, text, reasoning, usage),
// and what Glassbox sends back must be what the provider requires.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import {
  ALLOW_ALL_GATE,
  NO_APPROVER,
  ToolRuntime,
  runSamplingLoop,
  userMessage,
  type ResponseItem,
  type RunEvent,
  type TerminalRunEvent,
  type Tool,
} from '../../src/agent/index.js';
import { createToolSessionState } from '../../src/tools/index.js';
import { createGateway, type Usage } from '../../src/model/index.js';
import {
  checkRequirement,
  loadReplayProfiles,
  selectAll,
  startReplayServer,
  type ExpectedUsage,
  type ReplayProfile,
  type ReplayServer,
} from '../helpers/replay-provider.js';

interface Conversation {
  terminals: TerminalRunEvent[];
  events: RunEvent[];
  history: ResponseItem[];
}

/** A tool that accepts whatever arguments the recorded call has and answers the profile's output. */
function replayTool(profile: ReplayProfile): Tool<Record<string, unknown>> {
  return {
    name: profile.tool.name,
    description: 'Answers with the output recorded for this conversation.',
    schema: z.looseObject({}),
    readOnly: true,
    strict: false,
    access: () => ({ kind: 'none' }),
    async execute() {
      return { output: profile.tool.output };
    },
  };
}

async function converse(profile: ReplayProfile, server: ReplayServer): Promise<Conversation> {
  const gateway = createGateway({
    wireApi: profile.wireApi,
    baseURL: server.baseURL,
    apiKey: 'test-key',
    retry: { baseDelayMs: 1, maxDelayMs: 5, random: () => 0.5 },
  });
  const runtime = new ToolRuntime({
    tools: [replayTool(profile)],
    root: process.cwd(),
    state: createToolSessionState(),
    gate: ALLOW_ALL_GATE,
    approvals: NO_APPROVER,
  });
  const history: ResponseItem[] = [];
  const events: RunEvent[] = [];
  const terminals: TerminalRunEvent[] = [];
  for (const [turn, prompt] of (profile.turns ?? ['What is the weather?']).entries()) {
    terminals.push(
      await runSamplingLoop({
        gateway,
        model: profile.model,
        wireApi: profile.wireApi,
        sessionId: `replay-${profile.name}`,
        runId: `run-${turn + 1}`,
        resumed: turn > 0,
        history,
        newItems: [userMessage(prompt)],
        tools: runtime,
        signal: new AbortController().signal,
        observer: { onEvent: (event) => events.push(event) },
      }),
    );
  }
  return { terminals, events, history };
}

interface RoundSeen {
  text: string;
  reasoningText: string;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
}

/** The history split into model rounds: each round's reasoning, assistant text and calls. */
function roundsOf(history: readonly ResponseItem[]): RoundSeen[] {
  const rounds: RoundSeen[] = [];
  let open: RoundSeen | null = null;
  for (const item of history) {
    if (item.type === 'function_call_output' || (item.type === 'message' && item.role !== 'assistant')) {
      open = null;
      continue;
    }
    if (open === null) {
      open = { text: '', reasoningText: '', toolCalls: [] };
      rounds.push(open);
    }
    if (item.type === 'reasoning') open.reasoningText += item.text;
    else if (item.type === 'message') open.text += item.content;
    else if (item.type === 'function_call') open.toolCalls.push({ id: item.callId, name: item.name, arguments: item.arguments });
  }
  return rounds;
}

function usageOf(usage: Usage | null): ExpectedUsage | null {
  if (usage === null) return null;
  const { inputTokens, cachedInputTokens, outputTokens, reasoningTokens, totalTokens } = usage;
  return { inputTokens, cachedInputTokens, outputTokens, reasoningTokens, totalTokens };
}

const profiles = loadReplayProfiles();

describe('provider replay corpus', () => {
  it('holds at least 14 profiles, each citing its sources and stating its rules', () => {
    assert.ok(profiles.length >= 14, `only ${profiles.length} profiles`);
    for (const profile of profiles) {
      assert.ok(profile.source.length > 0 && profile.notes.length > 0, `${profile.name} names no source`);
      assert.equal(profile.rounds.length, profile.expect.rounds.length, `${profile.name}: one expectation per round`);
      for (const requirement of profile.requirements) {
        assert.ok(requirement.why && requirement.source, `${profile.name}/${requirement.id} says neither why nor where`);
        assert.ok(
          (requirement.request ?? 1) <= profile.rounds.length,
          `${profile.name}/${requirement.id} names a request that never comes`,
        );
      }
    }
  });

  for (const profile of profiles) {
    it(`${profile.name} (${profile.wireApi}): a tool round and an answer round, sent back as the provider requires`, async () => {
      const server = await startReplayServer(profile);
      let conversation: Conversation;
      try {
        conversation = await converse(profile, server);
      } finally {
        await server.close();
      }
      const { terminals, events, history } = conversation;
      for (const terminal of terminals) {
        assert.equal(
          terminal.type,
          'run_succeeded',
          `${profile.name}: ${JSON.stringify(terminal)}\nrejected: ${JSON.stringify(server.rejections)}`,
        );
      }
      // Only the learned fallbacks the profile expects: each rule Glassbox may break once, then never again.
      assert.deepEqual(
        server.rejections.map((rejection) => rejection.requirement),
        profile.expect.rejections ?? [],
        JSON.stringify(server.rejections),
      );

      const accepted = server.accepted();
      assert.equal(accepted.length, profile.rounds.length);
      accepted.forEach((body, index) => {
        for (const requirement of profile.requirements) {
          if (requirement.request !== undefined && requirement.request !== index + 1) continue;
          assert.equal(checkRequirement(requirement, body), null, `${profile.name}: request ${index + 1} breaks ${requirement.id}`);
        }
      });

      const seen = roundsOf(history);
      const usages = events
        .filter((event) => event.type === 'model_completed')
        .map((event) => (event.type === 'model_completed' ? usageOf(event.usage) : null));
      assert.equal(seen.length, profile.expect.rounds.length);
      profile.expect.rounds.forEach((expected, index) => {
        const round = seen[index]!;
        const label = `${profile.name} round ${index + 1}`;
        assert.deepEqual(round.toolCalls, expected.toolCalls, `${label}: tool calls`);
        assert.equal(round.text, expected.text, `${label}: text`);
        assert.equal(round.reasoningText, expected.reasoningText ?? '', `${label}: reasoning`);
        assert.deepEqual(usages[index], expected.usage, `${label}: usage`);
      });
      const last = terminals[terminals.length - 1]!;
      assert.equal(last.type === 'run_succeeded' ? last.answer : null, profile.expect.rounds[profile.expect.rounds.length - 1]!.text);
    });
  }
});

describe('provider replay server', () => {
  const byName = (name: string): ReplayProfile => {
    const profile = profiles.find((candidate) => candidate.name === name);
    assert.ok(profile, `no profile ${name}`);
    return profile;
  };

  /** Round 2's body as Glassbox sent it, changed by `edit`, checked against the profile's rules. */
  async function brokenRoundTwo(
    name: string,
    edit: (body: Record<string, unknown>) => void,
  ): Promise<{ ids: string[]; status: number; text: string }> {
    const profile = byName(name);
    const recorder = await startReplayServer(profile);
    let sent: unknown[];
    try {
      await converse(profile, recorder);
      sent = recorder.accepted();
    } finally {
      await recorder.close();
    }
    const body = structuredClone(sent[1]) as Record<string, unknown>;
    edit(body);
    const ids = profile.requirements
      .filter((requirement) => (requirement.request ?? 2) === 2 && checkRequirement(requirement, body) !== null)
      .map((requirement) => requirement.id);
    // A fresh server takes round 1 as Glassbox sent it, then answers the broken round 2 with the
    // provider's own error.
    const server = await startReplayServer(profile);
    try {
      const post = (payload: unknown) =>
        fetch(`${server.baseURL}${profile.wireApi === 'chat' ? '/chat/completions' : '/responses'}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(payload),
        });
      assert.equal((await (await post(sent[0])).text()).length > 0, true);
      const response = await post(body);
      return { ids, status: response.status, text: await response.text() };
    } finally {
      await server.close();
    }
  }

  it("answers DeepSeek reasoning_content left out with DeepSeek's 400", async () => {
    const result = await brokenRoundTwo('deepseek-reasoner-tool-call', (body) => {
      for (const message of body.messages as Array<Record<string, unknown>>) delete message.reasoning_content;
    });
    assert.deepEqual(result.ids, ['reasoning-content-back']);
    assert.equal(result.status, 400);
    assert.match(result.text, /Missing `reasoning_content` field in the assistant message/);
  });

  it("answers a Gemini call without its thought signature with Gemini's 400", async () => {
    const result = await brokenRoundTwo('gemini-3.1-flash-lite-openai-compat-thought-signature', (body) => {
      for (const call of selectAll(body, 'messages[role=assistant][0].tool_calls[*]') as Array<Record<string, unknown>>)
        delete call.extra_content;
    });
    assert.deepEqual(result.ids, ['tool-call-sent-back']);
    assert.match(result.text, /Function call is missing a thought_signature/);
  });

  it('answers a Responses reasoning item without encrypted_content, or with status, as broken', async () => {
    const stripped = await brokenRoundTwo('openai-responses-gpt-5.1-codex-encrypted-reasoning', (body) => {
      for (const item of selectAll(body, 'input[type=reasoning][*]') as Array<Record<string, unknown>>) delete item.encrypted_content;
    });
    assert.deepEqual(stripped.ids, ['reasoning-before-its-call', 'reasoning-carries-encrypted-content']);
    assert.equal(stripped.status, 400);
    const withStatus = await brokenRoundTwo('openai-responses-gpt-5.1-codex-encrypted-reasoning', (body) => {
      for (const item of selectAll(body, 'input[type=reasoning][*]') as Array<Record<string, unknown>>) item.status = 'completed';
    });
    assert.deepEqual(withStatus.ids, ['reasoning-without-status']);
    const missing = await brokenRoundTwo('openai-responses-gpt-5.1-codex-encrypted-reasoning', (body) => {
      body.input = (body.input as Array<Record<string, unknown>>).filter((item) => item.type !== 'reasoning');
    });
    assert.deepEqual(missing.ids, ['reasoning-before-its-call', 'reasoning-carries-encrypted-content']);
  });

  it("answers Mistral extra fields and foreign tool call ids with Mistral's errors", async () => {
    const extra = await brokenRoundTwo('mistral-small-tool-call', (body) => {
      body.stream_options = { include_usage: true };
    });
    assert.deepEqual(extra.ids, ['no-stream-options', 'request-fields']);
    assert.equal(extra.status, 422);
    assert.match(extra.text, /extra_forbidden/);
    const renamed = await brokenRoundTwo('mistral-small-tool-call', (body) => {
      const [assistant, tool] = [selectAll(body, 'messages[role=assistant][0]')[0], selectAll(body, 'messages[role=tool][0]')[0]] as Array<
        Record<string, unknown>
      >;
      assert.ok(assistant && tool);
      (assistant.tool_calls as Array<Record<string, unknown>>)[0]!.id = 'gSIMJiOkT_gb2';
      tool.tool_call_id = 'gSIMJiOkT_gb2';
    });
    assert.ok(renamed.ids.includes('tool-call-id-format') && renamed.ids.includes('tool-result-id-format'), renamed.ids.join());
    assert.match(renamed.text, /must be a-z, A-Z, 0-9, with a length of 9/);
  });

  it("fails the run with the provider's message when Glassbox breaks a rule it cannot recover from", async () => {
    const profile = byName('deepseek-reasoner-tool-call');
    // The same profile with the rule made impossible to meet: the run must fail with DeepSeek's words.
    const impossible: ReplayProfile = {
      ...profile,
      requirements: profile.requirements.map((requirement) =>
        requirement.id === 'reasoning-content-back' ? { ...requirement, match: { reasoning_content: 'something else' } } : requirement,
      ),
    };
    const server = await startReplayServer(impossible);
    try {
      const { terminals } = await converse(impossible, server);
      const terminal = terminals[0]!;
      assert.equal(terminal.type, 'run_failed');
      assert.match(terminal.type === 'run_failed' ? terminal.error.message : '', /Missing `reasoning_content` field/);
    } finally {
      await server.close();
    }
  });
});
