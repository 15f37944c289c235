// What a session listing shows about one session. Built incrementally from records, so the
// writer can keep it current as it appends and the index can store it without rereading files.

import { sessionSummarySchema, type SessionSummary } from '../protocol/index.js';
import type { SessionMetaRecord, SessionRecord } from './session-records.js';

// The shape is protocol/'s (the index stores it, the API serves it); building it is done here.
export { sessionSummarySchema, type SessionSummary };

export const TITLE_MAX_CHARS = 120;

/** A one-line title from a prompt; cut on code points so no surrogate pair is split. */
export function sessionTitle(prompt: string): string {
  const flat = prompt.replace(/\s+/g, ' ').trim();
  const chars = Array.from(flat);
  if (chars.length <= TITLE_MAX_CHARS) return flat;
  return `${chars
    .slice(0, TITLE_MAX_CHARS - 1)
    .join('')
    .trimEnd()}…`;
}

export class SessionSummaryBuilder {
  private readonly summary: SessionSummary;
  private titled = false;

  constructor(meta: SessionMetaRecord) {
    this.summary = {
      sessionId: meta.sessionId,
      createdAt: meta.createdAt,
      updatedAt: meta.ts,
      title: '',
      cwd: meta.cwd,
      model: meta.model,
      wireApi: meta.wireApi,
      turns: 0,
      totalTokens: 0,
      parent: meta.parent,
    };
  }

  add(record: SessionRecord): void {
    // A fork copies its parent's records with their original times; those must not make the
    // fork look older than its own creation.
    if (record.ts > this.summary.updatedAt) this.summary.updatedAt = record.ts;
    switch (record.type) {
      case 'turn_started':
        if (!this.titled) {
          this.summary.title = sessionTitle(record.prompt);
          this.titled = true;
        }
        if (record.turn >= this.summary.turns) {
          this.summary.turns = record.turn;
          this.summary.model = record.model;
          this.summary.wireApi = record.wireApi;
        }
        break;
      case 'turn_completed':
      case 'turn_failed':
      case 'turn_cancelled':
        this.summary.totalTokens += record.usage.total.totalTokens;
        break;
      default:
        break;
    }
  }

  snapshot(): SessionSummary {
    return { ...this.summary, parent: this.summary.parent === null ? null : { ...this.summary.parent } };
  }
}
