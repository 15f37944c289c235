// The built-in offline demo model: a scripted "model" served by the fake provider on loopback, so
// a fresh install shows the whole harness working — real SDK, real SSE, real tools — with no key.
// It reads the tool outputs it gets back and answers from them, so what it says is about the
// user's actual project, not canned text.

import { PLAN_TOOL_NAME } from '../protocol/index.js';
import { sentTranscript, startFakeProvider, type CapturedRequest, type FakeProvider, type ScriptedTurn } from '../testing/index.js';

interface SeenToolOutput {
  name: string;
  output: string;
}

interface DemoView {
  /** The user's words, without the plan-mode block a plan turn adds after them. */
  prompt: string;
  /** The turn is in plan mode (`--plan`, `/plan`): propose a plan, change nothing. */
  planMode: boolean;
  toolOutputs: SeenToolOutput[];
}

/** The block `planPrompt` (runner/plan-mode.ts) appends to a plan-mode turn's prompt. */
const PLAN_MODE_BLOCK = /\s*<plan_mode>[\s\S]*<\/plan_mode>\s*$/;

/** Reads what the harness sent, in any wire format (the fake provider's reader), as the demo needs it. */
function viewRequest(request: CapturedRequest): DemoView {
  let prompt = '';
  let planMode = false;
  let toolOutputs: SeenToolOutput[] = [];
  const callNames = new Map<string, string>();
  for (const entry of sentTranscript(request)) {
    if (entry.kind === 'call') callNames.set(entry.callId, entry.name);
    else if (entry.kind === 'output') toolOutputs.push({ name: callNames.get(entry.callId) ?? 'tool', output: entry.text });
    else if (entry.role === 'user') {
      planMode = PLAN_MODE_BLOCK.test(entry.text);
      prompt = entry.text.replace(PLAN_MODE_BLOCK, '');
      toolOutputs = [];
    }
  }
  return { prompt, planMode, toolOutputs };
}

/** Picks the file worth reading from what list_dir and glob returned. */
function pickFile(outputs: SeenToolOutput[]): string | null {
  const text = outputs.map((o) => o.output).join('\n');
  for (const candidate of ['README.md', 'readme.md', 'README', 'package.json', 'Cargo.toml', 'pyproject.toml', 'go.mod']) {
    if (new RegExp(`(^|[\\s/])${candidate.replace('.', '\\.')}(\\s|$)`, 'm').test(text)) return candidate;
  }
  return null;
}

export function demoTurn(request: CapturedRequest): ScriptedTurn {
  const view = viewRequest(request);
  const calls = view.toolOutputs.length;
  if (calls === 0) {
    return {
      text: "I'm the offline demo model. Let me look around the project first.",
      toolCalls: [
        { name: 'list_dir', arguments: { path: '.' } },
        { name: 'glob', arguments: { pattern: '*.{md,json,toml}' } },
      ],
    };
  }
  const file = pickFile(view.toolOutputs);
  const alreadyRead = view.toolOutputs.some((o) => o.name === 'read_file');
  if (file && !alreadyRead) {
    return {
      text: `I'll read ${file} to see what this project is.`,
      toolCalls: [{ name: 'read_file', arguments: { path: file, limit: 40 } }],
    };
  }
  if (view.planMode && !view.toolOutputs.some((o) => o.name === PLAN_TOOL_NAME)) {
    return {
      text: 'This is plan mode, so I change nothing: here is what I would do.',
      toolCalls: [{ name: PLAN_TOOL_NAME, arguments: demoPlan(view, file) }],
    };
  }
  return { text: demoAnswer(view) };
}

/** A plan shaped like a real one, about this project: the demo model cannot do the work itself. */
function demoPlan(view: DemoView, file: string | null): { explanation: string; plan: Array<{ step: string; status: 'pending' }> } {
  const request = view.prompt.trim().slice(0, 80) || 'the request';
  return {
    explanation: `A demo plan for: ${request}`,
    plan: [
      { step: `Read what the request touches${file === null ? '' : ` (${file} first)`}`, status: 'pending' },
      { step: 'Make the change', status: 'pending' },
      { step: 'Run the tests and show the diff', status: 'pending' },
    ],
  };
}

function demoAnswer(view: DemoView): string {
  const listing = view.toolOutputs.find((o) => o.name === 'list_dir')?.output ?? '';
  const entries = listing
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('['))
    .slice(0, 12);
  const read = view.toolOutputs.find((o) => o.name === 'read_file');
  const firstLines = read
    ? read.output
        .split('\n')
        .map((line) => line.replace(/^\s*\d+\t/, ''))
        .filter((line) => line.trim() !== '' && !line.startsWith('['))
        .slice(0, 3)
    : [];
  const lines = [
    '**This answer comes from the offline demo model**, a script built into Glassbox that drives the real tools.',
    '',
    `You asked: _${view.prompt.slice(0, 200)}_${view.planMode ? ' (in plan mode: the plan above is a demo, and nothing was changed)' : ''}`,
    '',
    `The project root has these entries (from \`list_dir\`):`,
    '',
    ...entries.map((entry) => `- \`${entry}\``),
  ];
  if (read && firstLines.length) {
    lines.push('', 'It starts like this (from `read_file`):', '', ...firstLines.map((line) => `> ${line}`));
  }
  lines.push(
    '',
    'To use a real model, set `OPENAI_API_KEY` (and optionally `--base-url`, `-m`, `--wire-api`) and run `glassbox exec "your task"`; for Claude, set `ANTHROPIC_API_KEY` and add `--wire-api anthropic`.',
  );
  return lines.join('\n');
}

/** Starts the demo provider on loopback; every request is answered by `demoTurn`. */
export function startDemoProvider(): Promise<FakeProvider> {
  return startFakeProvider({ whenExhausted: demoTurn, model: 'glassbox-demo' });
}
