// The requests that ask the model for a summary, in two forms. The live form is the conversation
// itself, exactly as the next round would send it (same system prompt, same tools, same messages),
// plus one closing user message with the summary instructions and `toolChoice: 'none'`: its whole
// prefix is the one the rounds before it cached. The transcript form, the fallback, sends the
// template as its own system message and the history re-serialised as tagged data, without tools;
// nothing of it is ever cached. The sections (`prompts/summary-sections.md`) are the same in both.

import { readFileSync } from 'node:fs';
import type { ModelRequest } from '../model/index.js';
import { isAssistantSide, type ResponseItem } from '../agent/index.js';
import { cheapTokenEstimate, ITEM_OVERHEAD_TOKENS } from './token-count.js';

/** Each tool output (and call argument string) is clipped to this many characters in the transcript. */
export const DEFAULT_TRANSCRIPT_CLIP_CHARS = 2_000;

const prompts = new Map<string, string>();

// Each file named by a literal URL: the CLI bundle copies exactly the data files sources name so.
const PROMPT_FILES = {
  'summary-intro-live.md': new URL('./prompts/summary-intro-live.md', import.meta.url),
  'summary-intro-transcript.md': new URL('./prompts/summary-intro-transcript.md', import.meta.url),
  'summary-sections.md': new URL('./prompts/summary-sections.md', import.meta.url),
} as const;

function prompt(name: keyof typeof PROMPT_FILES): string {
  let text = prompts.get(name);
  if (text === undefined) {
    text = readFileSync(PROMPT_FILES[name], 'utf8').trim();
    prompts.set(name, text);
  }
  return text;
}

export type SummaryForm = 'live' | 'transcript';

/** The structured summary template of a form (the transcript form by default), read once from its data files. */
export function summaryTemplate(form: SummaryForm = 'transcript'): string {
  return `${prompt(`summary-intro-${form}.md`)}\n\n${prompt('summary-sections.md')}`;
}

/**
 * The template plus extra instructions (config `compaction.instructions`, `compact --instructions`).
 * Extras are added after the template, never instead of it: the sections must survive.
 */
export function summaryInstructions(extra: readonly (string | null | undefined)[] = [], form: SummaryForm = 'transcript'): string {
  const additions = extra.map((text) => text?.trim() ?? '').filter((text) => text !== '');
  if (additions.length === 0) return summaryTemplate(form);
  return `${summaryTemplate(form)}\n\nAdditional instructions for this summary (they add to the above, they do not replace it):\n${additions.map((text) => `- ${text}`).join('\n')}`;
}

/**
 * The live form: the next round's request with the instructions as a closing user message. The
 * tools stay (removing them would change the cached prefix) but may not be called, and the
 * closing message is a one-off, so nothing after the cached prefix is written to an explicit cache.
 * `maxOutputTokens` caps the answer at the room the conversation leaves in the window (providers
 * refuse a request whose input and output cap together exceed it); the cap is not part of the
 * prompt, so it leaves the cached prefix alone.
 */
export function buildLiveSummaryRequest(live: ModelRequest, instructions: string, maxOutputTokens?: number): ModelRequest {
  return {
    ...live,
    messages: [...live.messages, { role: 'user', content: instructions }],
    toolChoice: 'none',
    cacheWrite: 'prefix',
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
  };
}

/**
 * The summary as installed: a preamble before the first section heading ("Here is the summary:")
 * is dropped, as the template asks. A text without any heading is kept as it is.
 */
export function cleanSummary(text: string): string {
  const trimmed = text.trim();
  const heading = /^## /m.exec(trimmed);
  return heading === null ? trimmed : trimmed.slice(heading.index).trim();
}

const TAG_NAMES = 'transcript|previous_summary|user|assistant|tool_call|tool_output|note';
const TAG_PATTERN = new RegExp(`<(/?)(${TAG_NAMES})(?=[\\s>/])`, 'gi');

/** Content must not be able to close or open our tags and so step outside the data. */
function escapeTags(text: string): string {
  return text.replace(TAG_PATTERN, '&lt;$1$2');
}

function attribute(value: string): string {
  return JSON.stringify(value);
}

/** Keep the head and the tail: errors and results tend to sit at either end. */
export function clipMiddle(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const tail = Math.floor(maxChars / 4);
  const head = maxChars - tail;
  return `${text.slice(0, head)}\n[... ${text.length - head - tail} characters omitted ...]\n${text.slice(text.length - tail)}`;
}

function renderItem(item: ResponseItem, clipChars: number): string | null {
  switch (item.type) {
    case 'reasoning':
      // Opaque provider state means nothing to the summarizer (and its readable part is the
      // model's own scratch work): the summary request never carries it.
      return null;
    case 'message':
      return `<${item.role}>\n${escapeTags(item.content)}\n</${item.role}>`;
    case 'function_call':
      return `<tool_call name=${attribute(item.name)} id=${attribute(item.callId)}>\n${escapeTags(clipMiddle(item.arguments, clipChars))}\n</tool_call>`;
    case 'function_call_output': {
      const error = item.isError ? ' error="true"' : '';
      return `<tool_output name=${attribute(item.name)} id=${attribute(item.callId)}${error}>\n${escapeTags(clipMiddle(item.output, clipChars))}\n</tool_output>`;
    }
    case 'compaction_summary':
      return `<previous_summary>\n${escapeTags(item.summary)}\n</previous_summary>`;
  }
}

/**
 * Groups of items that must be kept or dropped together: a message with the calls and outputs
 * that follow it, or a batch of calls with its outputs, each with the reasoning that led to it. Dropping whole groups never separates a
 * call from its output.
 */
export function transcriptUnits(items: readonly ResponseItem[]): ResponseItem[][] {
  const units: ResponseItem[][] = [];
  let previous: ResponseItem | null = null;
  for (const item of items) {
    // A round's reasoning, text and calls (in any order: thinking may sit between calls) stay
    // together, and with the outputs after them.
    const continues =
      previous !== null &&
      (item.type === 'function_call_output' ||
        (isAssistantSide(previous) &&
          (item.type === 'reasoning' || item.type === 'function_call' || (previous.type !== 'message' && isAssistantSide(item)))));
    const last = units.at(-1);
    if (continues && last !== undefined) last.push(item);
    else units.push([item]);
    previous = item;
  }
  return units;
}

/** The transcript as tagged data; `omitted` says how many early items were left out to fit. */
export function serializeTranscript(items: readonly ResponseItem[], options: { clipChars?: number; omitted?: number } = {}): string {
  const clipChars = options.clipChars ?? DEFAULT_TRANSCRIPT_CLIP_CHARS;
  const parts = ['<transcript>'];
  const summaries = items.filter((item) => item.type === 'compaction_summary');
  const rest = items.filter((item) => item.type !== 'compaction_summary');
  // The previous summary leads, whatever its position: it covers the oldest part of the story.
  const push = (rendered: string | null): void => {
    if (rendered !== null) parts.push(rendered);
  };
  for (const item of summaries) push(renderItem(item, clipChars));
  if (options.omitted && options.omitted > 0) {
    parts.push(
      `<note>${options.omitted} earlier item${options.omitted === 1 ? ' was' : 's were'} left out here so the transcript fits; summarize what remains.</note>`,
    );
  }
  for (const item of rest) push(renderItem(item, clipChars));
  parts.push('</transcript>');
  return parts.join('\n');
}

export const SUMMARY_REQUEST_CLOSING = 'Write the summary of the transcript above now, following the system instructions.';

export interface SummaryRequestInput {
  model: string;
  /** The history to summarize; a leading system message is left out (it survives compaction). */
  history: readonly ResponseItem[];
  /** The full system instruction, from `summaryInstructions`. */
  instructions: string;
  clipChars?: number;
  /** Leave out this many of the oldest transcript units (previous summaries are never left out). */
  dropUnits?: number;
  promptCacheKey?: string;
}

export interface SummaryRequest {
  /** No `tools`: the dialects then send neither `tools` nor `tool_choice`. */
  request: ModelRequest;
  /** History items summarized. */
  itemCount: number;
  /** Oldest units, and the items in them, left out to make it fit. */
  droppedUnits: number;
  omittedItems: number;
  /** Units that could still be dropped. */
  droppableUnits: number;
  estimatedTokens: number;
}

export function buildSummaryRequest(input: SummaryRequestInput): SummaryRequest {
  const first = input.history[0];
  const body = first !== undefined && first.type === 'message' && first.role === 'system' ? input.history.slice(1) : input.history.slice();
  const summaries = body.filter((item) => item.type === 'compaction_summary');
  const units = transcriptUnits(body.filter((item) => item.type !== 'compaction_summary'));
  // At least the newest unit stays: a summary of nothing new is no summary.
  const drop = Math.min(Math.max(0, input.dropUnits ?? 0), Math.max(0, units.length - 1));
  const keptUnits = units.slice(drop);
  const omittedItems = units.slice(0, drop).reduce((sum, unit) => sum + unit.length, 0);
  const items = [...summaries, ...keptUnits.flat()];
  const transcript = serializeTranscript(items, { clipChars: input.clipChars, omitted: omittedItems });
  const user = `${transcript}\n\n${SUMMARY_REQUEST_CLOSING}`;
  const request: ModelRequest = {
    model: input.model,
    messages: [
      { role: 'system', content: input.instructions },
      { role: 'user', content: user },
    ],
    // No later request starts like this one: an explicit cache write would be paid for nothing.
    cacheWrite: 'none',
    ...(input.promptCacheKey === undefined ? {} : { promptCacheKey: input.promptCacheKey }),
  };
  return {
    request,
    itemCount: items.length,
    droppedUnits: drop,
    omittedItems,
    droppableUnits: Math.max(0, units.length - 1 - drop),
    estimatedTokens: estimateRequestTokens(request),
  };
}

/** The cheap size of a request (tool schemas and call arguments included), with a margin for the JSON escaping the wire adds. */
export function estimateRequestTokens(request: ModelRequest): number {
  let tokens = 0;
  for (const message of request.messages) {
    tokens += cheapTokenEstimate(message.content) + ITEM_OVERHEAD_TOKENS;
    if (message.role === 'assistant') for (const call of message.toolCalls) tokens += cheapTokenEstimate(call.name + call.arguments);
  }
  for (const tool of request.tools ?? []) tokens += cheapTokenEstimate(JSON.stringify(tool));
  return Math.ceil(tokens * 1.1);
}

/**
 * The largest transcript (fewest dropped units) whose estimate fits `maxInputTokens`, by binary
 * search over the number of dropped units. Returns null when not even the newest unit fits.
 */
export function fitSummaryRequest(
  input: Omit<SummaryRequestInput, 'dropUnits'>,
  maxInputTokens: number,
  minDropUnits = 0,
): SummaryRequest | null {
  const first = buildSummaryRequest({ ...input, dropUnits: minDropUnits });
  if (first.estimatedTokens <= maxInputTokens) return first;
  let low = minDropUnits + 1;
  let high = minDropUnits + first.droppableUnits;
  let best: SummaryRequest | null = null;
  while (low <= high) {
    const middle = Math.floor((low + high) / 2);
    const candidate = buildSummaryRequest({ ...input, dropUnits: middle });
    if (candidate.estimatedTokens <= maxInputTokens) {
      best = candidate;
      high = middle - 1;
    } else {
      low = middle + 1;
    }
  }
  return best;
}
