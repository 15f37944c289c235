// Records a turn into its session as it happens: every committed history item, a short summary
// of every model call, and the audit-worthy events. Hangs off the loop's observer interface.

import type { ModelCallRecord, ResponseItem, RunEvent, RunObserver } from '../agent/index.js';
import type { AuditEvent, NewSessionRecord, SessionWriter } from '../sessions/index.js';

const AUDITED = new Set<RunEvent['type']>([
  'tool_permission_decided',
  'approval_requested',
  'approval_resolved',
  'tool_started',
  'tool_finished',
  'hook_ran',
]);

export function toAuditEvent(event: RunEvent): AuditEvent | null {
  if (!AUDITED.has(event.type)) return null;
  if (event.type === 'tool_finished') {
    // The output is already in the committed function_call_output item; don't store it twice.
    const { output: _output, ...rest } = event;
    return rest;
  }
  return event as AuditEvent;
}

/** The most of a round's uncommitted answer a turn-end record keeps. */
export const MAX_PARTIAL_TEXT_CHARS = 64 * 1024;

export class SessionRecorder implements RunObserver {
  private failure: Error | null = null;
  private uncommitted = '';

  constructor(
    private readonly writer: SessionWriter,
    private readonly turn: number,
    private readonly forward: (event: RunEvent) => void,
  ) {}

  /** The first write error, if any: the run is then failed rather than silently unrecorded. */
  get writeFailure(): Error | null {
    return this.failure;
  }

  private append(record: NewSessionRecord): Promise<void> {
    return this.writer.append(record).then(
      () => undefined,
      (error: Error) => {
        this.failure ??= error;
        throw error;
      },
    );
  }

  /**
   * What the current round streamed that no commit has recorded: a cancelled or failed turn's
   * end record keeps it, so the text the person saw is still there after a reload.
   */
  get uncommittedText(): string {
    return this.uncommitted;
  }

  onEvent(event: RunEvent): void {
    // A retried stream's text was discarded on screen too: it is no partial answer.
    if (event.type === 'model_requested' || event.type === 'stream_retry') this.uncommitted = '';
    else if (event.type === 'assistant_delta' && this.uncommitted.length < MAX_PARTIAL_TEXT_CHARS) {
      this.uncommitted = (this.uncommitted + event.delta).slice(0, MAX_PARTIAL_TEXT_CHARS);
    }
    const audit = toAuditEvent(event);
    if (audit) this.append({ type: 'audit', turn: this.turn, event: audit }).catch(() => {});
    if (event.type === 'warning')
      this.append({ type: 'warning', turn: this.turn, code: event.code, message: event.message }).catch(() => {});
    this.forward(event);
  }

  async onCommit(items: readonly ResponseItem[]): Promise<void> {
    this.uncommitted = '';
    // Queued together so the writer lands them in one write, still in order.
    await Promise.all(items.map((item) => this.append({ type: 'response_item', turn: this.turn, item })));
  }

  /**
   * Queued, not awaited: the writer keeps records in order, and the round's next commit waits
   * behind it anyway; a failed write is remembered and fails that commit.
   */
  onModelCall(call: ModelCallRecord): void {
    this.append({
      type: 'model_call',
      turn: this.turn,
      round: call.round,
      stage: call.stage,
      usage: call.usage,
      durationMs: call.durationMs,
      finishReason: call.finishReason,
      error: call.error,
    }).catch(() => {});
  }
}
