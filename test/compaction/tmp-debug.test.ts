import { test } from 'node:test';
import { runWithCompaction, scriptedWithSummaries } from './compaction-harness.js';
const readBig = (label: string) => ({ name: 'read_big', arguments: { label } });
test('debug', async () => {
  const run = await runWithCompaction({
    wireApi: 'chat',
    contextWindow: 4000,
    settings: (await import('./compaction-harness.js')).testSettings({ threshold: 1_000_000 }),
    tools: [(await import('./compaction-harness.js')).bigOutputTool(20_000)],
    script: [scriptedWithSummaries([{ toolCalls: [readBig('a')] }, { text: 'Done after compaction.' }], () => ({ text: 'S' }))].flatMap((s) => [s, s, s, s]),
  });
  console.log(JSON.stringify(run.events.filter(e => e.type !== "assistant_delta" && e.type !== "tool_finished")));
  const run2 = await runWithCompaction({
    wireApi: 'chat',
    script: [scriptedWithSummaries([
      { toolCalls: [readBig('a')], usage: { input: 6000, output: 10 } },
      { toolCalls: [readBig('b')], usage: { input: 6000, output: 10 } },
      { text: 'Done.', usage: { input: 500, output: 2 } },
    ], (_r, i) => ({ text: `summary number ${i + 1}` }))].flatMap((s) => [s, s, s, s, s, s]),
  });
  console.log(JSON.stringify(run2.events.filter(e => e.type !== 'assistant_delta').map(e => e.type + ':' + ((e as any).reason ?? (e as any).message ?? ''))));
});
