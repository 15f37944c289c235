// A session handed to someone else: `glassbox sessions export <id> --format html|md|jsonl`. The
// file leaves the machine, so every string in it goes through the same redactor as trace content
// (the key variables' values, token shapes). Session files store no requests (they would grow
// quadratically), so each turn-stage call's request is rebuilt by replaying the records up to it,
// as /debug does. In the HTML every distinct message is stored once and a request is a list of
// index ranges into them, so a 1,000-call session stays about the size of its transcript.

import { itemsToModelMessages } from '../agent/index.js';
import { estimateCost, lookupModel } from '../model/index.js';
import { HistoryReplay, type SessionRecord } from '../sessions/index.js';
import { sessionExportPage, type ExportData, type ExportEntry } from './session-export-page.js';

export type { ExportData, ExportEntry };

export const SESSION_EXPORT_FORMATS = ['html', 'md', 'jsonl'] as const;
export type SessionExportFormat = (typeof SESSION_EXPORT_FORMATS)[number];

/** Replaces every string in a JSON value (keys stay: they are Glassbox's own names). */
function redactDeep(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((each) => redactDeep(each, redact));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, each]) => [key, redactDeep(each, redact)]));
  }
  return value;
}

function toRanges(indices: readonly number[]): [number, number][] {
  const ranges: [number, number][] = [];
  for (const index of indices) {
    const last = ranges[ranges.length - 1];
    if (last !== undefined && last[1] + 1 === index) last[1] = index;
    else ranges.push([index, index]);
  }
  return ranges;
}

export function exportData(records: readonly SessionRecord[], redact: (text: string) => string, withRequests = true): ExportData {
  const replay = new HistoryReplay();
  const messages: unknown[] = [];
  const seen = new Map<string, number>();
  const entries: ExportEntry[] = [];
  let meta: Record<string, unknown> = {};
  let model = '';
  for (const record of records) {
    if (record.type === 'session_meta') {
      meta = { ...record };
      model = record.model;
    }
    if (record.type === 'turn_started') model = record.model;
    if (record.type === 'model_call') {
      let request: [number, number][] | null = null;
      if (withRequests && record.stage === 'turn') {
        // Keyed on the text before redaction: a message every later request carries again is
        // redacted once, not once per request.
        const indices = itemsToModelMessages(replay.finish().history).map((message) => {
          const text = JSON.stringify(message);
          let index = seen.get(text);
          if (index === undefined) {
            index = messages.length;
            messages.push(redactDeep(message, redact));
            seen.set(text, index);
          }
          return index;
        });
        request = toRanges(indices);
      }
      const cost = record.usage === null ? null : estimateCost(record.usage, lookupModel(model).entry);
      entries.push({
        k: 'call',
        record: redactDeep(record, redact) as typeof record,
        model: redact(model),
        costUsd: cost?.total ?? null,
        request,
      });
    } else if (record.type !== 'session_meta') {
      entries.push({ k: 'record', record: redactDeep(record, redact) as SessionRecord });
    }
    replay.add(record);
  }
  return { meta: redactDeep(meta, redact) as Record<string, unknown>, messages, entries };
}

function fence(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}\n${text}\n${ticks}`;
}

function quote(text: string): string {
  return text
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
}

/** A readable transcript: turns, prompts, answers, tool calls and their outputs, usage. */
export function sessionMarkdown(records: readonly SessionRecord[], redact: (text: string) => string): string {
  const data = exportData(records, redact, false);
  const lines: string[] = [`# Session ${String(data.meta.sessionId ?? '')}`, ''];
  lines.push(`- model: ${String(data.meta.model ?? '')} (${String(data.meta.wireApi ?? '')})`, `- project: ${String(data.meta.cwd ?? '')}`);
  lines.push(`- created: ${String(data.meta.createdAt ?? '')}`, '');
  let totalCost = 0;
  let priced = false;
  for (const entry of data.entries) {
    if (entry.k === 'call') {
      const usage = entry.record.usage;
      if (entry.costUsd !== null) {
        totalCost += entry.costUsd;
        priced = true;
      }
      const tokens = usage === null ? 'no usage' : `${usage.inputTokens} in, ${usage.outputTokens} out`;
      lines.push(`*model call ${entry.record.stage} round ${entry.record.round}: ${tokens}, ${entry.record.durationMs} ms*`, '');
      continue;
    }
    const record = entry.record;
    switch (record.type) {
      case 'turn_started':
        lines.push(`## Turn ${record.turn}`, '', `**User:**`, '', quote(record.prompt), '');
        break;
      case 'response_item': {
        const item = record.item;
        if (item.type === 'message' && item.role === 'assistant') lines.push(`**Assistant:**`, '', item.content, '');
        else if (item.type === 'function_call') lines.push(`**Tool call** \`${item.name}\``, '', fence(item.arguments), '');
        else if (item.type === 'function_call_output')
          lines.push(`**${item.isError ? 'Tool error' : 'Tool output'}** \`${item.name}\``, '', fence(item.output), '');
        else if (item.type === 'compaction_summary') lines.push('**Compaction summary:**', '', quote(item.summary), '');
        break;
      }
      case 'audit':
        if (record.event.type === 'approval_resolved') {
          lines.push(
            `*approval: ${record.event.name} ${record.event.decision} by ${record.event.by}${record.event.message ? ` — ${record.event.message}` : ''}*`,
            '',
          );
        }
        break;
      case 'compaction':
        lines.push(`*context compacted (${record.kind})*`, '');
        break;
      case 'warning':
        lines.push(`*warning ${record.code}: ${record.message}*`, '');
        break;
      case 'turn_failed':
        lines.push(`*turn ${record.turn} failed [${record.error.code}]: ${record.error.message}*`, '');
        break;
      case 'turn_cancelled':
        lines.push(`*turn ${record.turn} cancelled: ${record.reason}*`, '');
        break;
      default:
        break;
    }
  }
  lines.push('---', '', `Estimated cost: ${priced ? `$${totalCost.toFixed(4)}` : 'n/a'} (catalog prices).`, '');
  return lines.join('\n');
}

/** The session in `format`, redacted. */
export function exportSession(records: readonly SessionRecord[], format: SessionExportFormat, redact: (text: string) => string): string {
  if (format === 'jsonl') return records.map((record) => `${JSON.stringify(redactDeep(record, redact))}\n`).join('');
  if (format === 'md') return sessionMarkdown(records, redact);
  return sessionExportPage(exportData(records, redact));
}
