// Model-visible history is a list of response items. It is the unit of commit (a round's items
// are appended together or not at all), of persistence (one `response_item` record each) and of
// replay. `itemsToModelMessages` is the only place items become IR messages.

export type RuntimeRole = 'working_message' | 'final_response';

export type ResponseItem =
  | { type: 'message'; role: 'system' | 'user'; content: string }
  | { type: 'message'; role: 'assistant'; content: string; runtimeRole: RuntimeRole }
  | { type: 'function_call'; callId: string; name: string; arguments: string }
  | { type: 'function_call_output'; callId: string; name: string; output: string; isError: boolean }
  | {
      type: 'compaction_summary';
      compactionId: string;
      summary: string;
    };

export type MessageItem = Extract<ResponseItem, { type: 'message' }>;
export type FunctionCallItem = Extract<ResponseItem, { type: 'function_call' }>;
export type FunctionCallOutputItem = Extract<ResponseItem, { type: 'function_call_output' }>;
export type CompactionSummaryItem = Extract<ResponseItem, { type: 'compaction_summary' }>;

export function systemMessage(content: string): ResponseItem {
  return { type: 'message', role: 'system', content };
}

export function userMessage(content: string): ResponseItem {
  return { type: 'message', role: 'user', content };
}

export function isUserMessage(item: ResponseItem): item is MessageItem & { role: 'user' } {
  return item.type === 'message' && item.role === 'user';
}
