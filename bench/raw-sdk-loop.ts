// The baseline: the smallest honest agent loop written directly on the `openai` SDK — stream a
// round, run the requested read_file calls with fs, send the outputs back, until no tool calls.
// No sessions, permissions, events or guards. Run in-process or as a child process
// (`node --import tsx bench/raw-sdk-loop.ts <baseURL> <root>`).

import OpenAI from 'openai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;

const TOOLS: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'read_file',
      description: 'Read a file.',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
  },
];

export async function rawSdkLoop(baseURL: string, root: string, prompt: string): Promise<number> {
  const client = new OpenAI({ baseURL, apiKey: 'bench', maxRetries: 0 });
  const messages: Message[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: prompt },
  ];
  let rounds = 0;
  for (;;) {
    rounds += 1;
    const stream = await client.chat.completions.create({
      model: 'bench',
      messages,
      tools: TOOLS,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    const calls: { id: string; name: string; args: string }[] = [];
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta;
      if (!delta) continue;
      if (delta.content) text += delta.content;
      for (const call of delta.tool_calls ?? []) {
        calls[call.index] ??= { id: '', name: '', args: '' };
        if (call.id) calls[call.index].id = call.id;
        if (call.function?.name) calls[call.index].name = call.function.name;
        if (call.function?.arguments) calls[call.index].args += call.function.arguments;
      }
    }
    if (calls.length === 0) return rounds;
    messages.push({
      role: 'assistant',
      content: text || null,
      tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } })),
    });
    for (const call of calls) {
      const { path } = JSON.parse(call.args) as { path: string };
      let output: string;
      try {
        output = readFileSync(join(root, path), 'utf8');
      } catch (error) {
        output = `error: ${(error as Error).message}`;
      }
      messages.push({ role: 'tool', tool_call_id: call.id, content: output });
    }
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) {
  const [baseURL, root] = process.argv.slice(2);
  const rounds = await rawSdkLoop(baseURL, root, 'bench');
  process.stdout.write(`${rounds}\n`);
}
