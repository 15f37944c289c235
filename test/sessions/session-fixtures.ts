// Builders for session tests: realistic records without repeating their shapes in every file.

import type { FunctionCallItem, FunctionCallOutputItem, ResponseItem, StagedUsage } from '../../src/agent/index.js';
import type { Usage } from '../../src/model/index.js';
import type { NewSessionMeta, NewSessionRecord, SessionWriter } from '../../src/sessions/index.js';

export const META: NewSessionMeta = {
  cwd: '/work/project',
  model: 'test-model',
  wireApi: 'chat',
  glassboxVersion: '0.1.0',
};

export function usage(input: number, output: number): Usage {
  return { inputTokens: input, cachedInputTokens: null, outputTokens: output, reasoningTokens: 0, totalTokens: input + output, raw: null };
}

export function stagedUsage(input: number, output: number, calls = 1): StagedUsage {
  const total = usage(input, output);
  return { total, byStage: { turn: total }, calls };
}

export function call(callId: string, name = 'read_file', args = '{"path":"README.md"}'): FunctionCallItem {
  return { type: 'function_call', callId, name, arguments: args };
}

export function output(callId: string, name = 'read_file', text = `contents for ${callId}`): FunctionCallOutputItem {
  return { type: 'function_call_output', callId, name, output: text, isError: false };
}

export function assistant(content: string, final = false): ResponseItem {
  return { type: 'message', role: 'assistant', content, runtimeRole: final ? 'final_response' : 'working_message' };
}

export function user(content: string): ResponseItem {
  return { type: 'message', role: 'user', content };
}

export function turnStarted(turn: number, prompt: string): NewSessionRecord {
  return {
    type: 'turn_started',
    turn,
    runId: `run-${turn}`,
    prompt,
    policy: { approvalPolicy: 'on-request', sandbox: 'workspace-write' },
    model: 'test-model',
    wireApi: 'chat',
  };
}

export function turnCompleted(turn: number, tokens = 30, rounds = 1): NewSessionRecord {
  return { type: 'turn_completed', turn, runId: `run-${turn}`, usage: stagedUsage(tokens - 10, 10, rounds), rounds };
}

export function itemRecord(turn: number, item: ResponseItem): NewSessionRecord {
  return { type: 'response_item', turn, item };
}

export function modelCall(turn: number, round: number, input = 20, outputTokens = 10): NewSessionRecord {
  return {
    type: 'model_call',
    turn,
    round,
    stage: 'turn',
    usage: usage(input, outputTokens),
    durationMs: 12,
    finishReason: 'tool_calls',
    error: null,
  };
}

/**
 * A complete turn: the prompt, one round with two parallel calls and their outputs, a second
 * round with one call, and a final answer. Call ids are prefixed with the turn number.
 */
export function toolTurn(turn: number, prompt: string): NewSessionRecord[] {
  const a = `t${turn}-a`;
  const b = `t${turn}-b`;
  const c = `t${turn}-c`;
  return [
    turnStarted(turn, prompt),
    itemRecord(turn, user(prompt)),
    modelCall(turn, 1),
    itemRecord(turn, assistant(`Looking at turn ${turn}.`)),
    itemRecord(turn, call(a)),
    itemRecord(turn, call(b, 'list_dir', '{"path":"."}')),
    { type: 'audit', turn, event: { type: 'tool_started', callId: a, name: 'read_file' } },
    { type: 'audit', turn, event: { type: 'tool_finished', callId: a, name: 'read_file', isError: false, durationMs: 3 } },
    itemRecord(turn, output(a)),
    itemRecord(turn, output(b, 'list_dir')),
    modelCall(turn, 2),
    itemRecord(turn, call(c, 'grep', '{"pattern":"x"}')),
    itemRecord(turn, output(c, 'grep')),
    modelCall(turn, 3),
    itemRecord(turn, assistant(`Answer ${turn}.`, true)),
    turnCompleted(turn, 90, 3),
  ];
}

export async function appendAll(writer: SessionWriter, records: readonly NewSessionRecord[]): Promise<void> {
  for (const record of records) await writer.append(record);
}
