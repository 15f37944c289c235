// A stored session read back as the `session/update`s a client would have seen live, for
// `session/load`: each turn's prompt, the assistant's text and reasoning, every tool call with its
// outcome and output, then the usage so far. Diffs are not rebuilt (the file holds what the calls
// asked and answered, not the files' texts before them); their locations still name the files.

import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { SessionRecord } from '../sessions/index.js';
import { outputContent, toolCallFields } from './tool-call-fields.js';
import { planTracker } from '../views/index.js';
import { planUpdate, type UsageMeter } from './run-updates.js';

export function historyUpdates(records: readonly SessionRecord[], root: string, meter: UsageMeter): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  const text = (sessionUpdate: 'user_message_chunk' | 'agent_message_chunk' | 'agent_thought_chunk', value: string): void => {
    if (value !== '') updates.push({ sessionUpdate, content: { type: 'text', text: value } });
  };
  // Each plan as it was set, as the client saw it live.
  const plans = planTracker();
  for (const record of records) {
    switch (record.type) {
      case 'turn_started':
        text('user_message_chunk', record.prompt);
        break;
      case 'model_call':
        meter.add(record.usage, record.stage);
        break;
      case 'compaction':
        if ('tokensAfter' in record) meter.compacted(record.tokensAfter);
        break;
      case 'turn_failed':
      case 'turn_cancelled':
        // What streamed before the turn ended, which no response item holds.
        if (record.partialText !== undefined) text('agent_message_chunk', record.partialText);
        break;
      case 'response_item': {
        const { item } = record;
        if (item.type === 'message' && item.role === 'assistant') text('agent_message_chunk', item.content);
        else if (item.type === 'reasoning') text('agent_thought_chunk', item.text);
        else if (item.type === 'function_call') {
          updates.push({
            sessionUpdate: 'tool_call',
            toolCallId: item.callId,
            status: 'pending',
            ...toolCallFields(item.name, item.arguments, root, true),
          });
          plans.observe({ type: 'tool_requested', callId: item.callId, name: item.name, arguments: item.arguments });
        } else if (item.type === 'function_call_output') {
          updates.push({
            sessionUpdate: 'tool_call_update',
            toolCallId: item.callId,
            status: item.isError ? 'failed' : 'completed',
            content: outputContent(item.output),
          });
          const plan = plans.observe({ type: 'tool_finished', callId: item.callId, isError: item.isError });
          if (plan !== null) updates.push(planUpdate(plan));
        }
        break;
      }
      default:
        break;
    }
  }
  const usage = meter.update();
  if (usage !== null) updates.push(usage);
  return updates;
}
