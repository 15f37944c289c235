// The baseline: the smallest honest agent loop written directly on the `openai` SDK — stream a
// round, run the requested calls, send the outputs back, until no tool calls. No sessions,
// permissions, sandbox, events or guards. Its tools do the same work as Glassbox's in the fewest
// lines: read_file reads with fs, shell runs `bash -c`, grep runs ripgrep, glob walks the tree,
// apply_patch writes the files a patch adds. Run in-process or as a child process
// (`node bench/.build/raw-sdk-loop.mjs <baseURL> <root>`).

import OpenAI from 'openai';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';

type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;

function tool(name: string, properties: Record<string, { type: string }>): OpenAI.Chat.Completions.ChatCompletionTool {
  return {
    type: 'function',
    function: { name, description: name, parameters: { type: 'object', properties, required: Object.keys(properties).slice(0, 1) } },
  };
}

const TOOLS: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  tool('read_file', { path: { type: 'string' } }),
  tool('shell', { command: { type: 'string' } }),
  tool('grep', { pattern: { type: 'string' } }),
  tool('glob', { pattern: { type: 'string' } }),
  tool('apply_patch', { patch: { type: 'string' } }),
];

function run(file: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve(`${stdout}${stderr}${error && typeof error.code === 'number' ? `\nexit ${error.code}` : ''}`);
    });
  });
}

let ripgrep: string | null = null;
function ripgrepPath(): string {
  // @vscode/ripgrep is CommonJS; its rgPath is what Glassbox's grep runs too.
  ripgrep ??= (createRequire(import.meta.url)('@vscode/ripgrep') as { rgPath: string }).rgPath;
  return ripgrep;
}

function walk(dir: string, out: string[]): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === '.git' || entry.name === 'node_modules') continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) walk(full, out);
    else out.push(full);
  }
  return out;
}

async function runTool(name: string, args: Record<string, string>, root: string): Promise<string> {
  switch (name) {
    case 'read_file':
      return readFileSync(join(root, args.path!), 'utf8');
    case 'shell':
      return run('bash', ['-c', args.command!], root);
    case 'grep':
      return run(ripgrepPath(), ['-n', '--', args.pattern!, '.'], root);
    case 'glob': {
      // Only `**/*<suffix>` patterns, which is what the benchmark sends.
      const suffix = args.pattern!.replace(/^\*\*\/\*/, '');
      return walk(root, [])
        .filter((file) => file.endsWith(suffix))
        .map((file) => relative(root, file))
        .join('\n');
    }
    case 'apply_patch': {
      // Only `*** Add File:` sections, which is what the benchmark sends.
      const written: string[] = [];
      for (const section of args.patch!.split('*** Add File: ').slice(1)) {
        const [path, ...lines] = section.split('\n') as [string, ...string[]];
        const body = lines.filter((line) => line.startsWith('+')).map((line) => line.slice(1));
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), `${body.join('\n')}\n`);
        written.push(path);
      }
      return `added ${written.join(', ')}`;
    }
    default:
      return `error: no tool ${name}`;
  }
}

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
        const slot = (calls[call.index] ??= { id: '', name: '', args: '' });
        if (call.id) slot.id = call.id;
        if (call.function?.name) slot.name = call.function.name;
        if (call.function?.arguments) slot.args += call.function.arguments;
      }
    }
    if (calls.length === 0) return rounds;
    messages.push({
      role: 'assistant',
      content: text || null,
      tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } })),
    });
    for (const call of calls) {
      let output: string;
      try {
        output = await runTool(call.name, JSON.parse(call.args) as Record<string, string>, root);
      } catch (error) {
        output = `error: ${(error as Error).message}`;
      }
      messages.push({ role: 'tool', tool_call_id: call.id, content: output });
    }
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) {
  const [baseURL, root] = process.argv.slice(2);
  if (baseURL === undefined || root === undefined) throw new Error('usage: raw-sdk-loop <base-url> <project-root>');
  const rounds = await rawSdkLoop(baseURL, root, 'bench');
  process.stdout.write(`${rounds}\n`);
}
