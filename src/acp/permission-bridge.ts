// Approvals as `session/request_permission`. The permission gate decides what needs asking,
// exactly as for `exec` and the terminal; this only carries the question to the editor and its
// answer back to the ApprovalRegistry. allow_once → approve, allow_always → approve for the
// session (the gate's own session grant), reject_once → deny, reject_always → deny, and deny this
// tool's later calls in this session without asking. An answer that is none of the options
// offered, an error, a closed connection or a cancelled turn is a denial: the turn goes on (or
// ends) cleanly and the model is told why.

import type { PermissionOption, RequestPermissionResponse, SessionUpdate } from '@agentclientprotocol/sdk';
import type { ApprovalDecisionKind, ApprovalRegistry, PendingApproval } from '../agent/index.js';
import { previewChange, type ChangePreview } from '../runner/index.js';
import { toolCallFields } from './tool-call-fields.js';

const OPTIONS: ReadonlyArray<PermissionOption & { decision: ApprovalDecisionKind }> = [
  { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once', decision: 'approve' },
  { optionId: 'allow_always', name: 'Allow for this session', kind: 'allow_always', decision: 'approve_session' },
  { optionId: 'reject_once', name: 'Reject', kind: 'reject_once', decision: 'deny' },
  { optionId: 'reject_always', name: 'Reject this tool for this session', kind: 'reject_always', decision: 'deny' },
];

export interface PermissionAsk {
  sessionId: string;
  root: string;
  /** Sends the request; rejects on an error answer or a closed connection. */
  request: (
    params: { sessionId: string; toolCall: Extract<SessionUpdate, { sessionUpdate: 'tool_call_update' }>; options: PermissionOption[] },
    signal: AbortSignal,
  ) => Promise<RequestPermissionResponse>;
  log: (line: string) => void;
}

/** The preview's diff as text, for the question (ACP's diff content wants whole texts). */
function previewText(preview: ChangePreview): string {
  const lines: string[] = [];
  for (const file of preview.files) {
    lines.push(`${file.change} ${file.path}${file.to ? ` → ${file.to}` : ''}`);
    for (const line of file.lines)
      lines.push(
        line.kind === 'add' ? `+${line.text}` : line.kind === 'del' ? `-${line.text}` : line.kind === 'hunk' ? line.text : ` ${line.text}`,
      );
    if (file.omittedLines > 0) lines.push(`… ${file.omittedLines} more lines`);
  }
  if (preview.problem !== null) lines.push(`(${preview.problem})`);
  return lines.join('\n');
}

/** Asks the client about every approval of `registry`; returns the unsubscribe. */
export function bridgeApprovals(registry: ApprovalRegistry, ask: PermissionAsk): () => void {
  const rejected = new Set<string>();
  // One question at a time, as the terminal asks them: an editor shows one permission card.
  let queue: Promise<void> = Promise.resolve();
  const unsubscribe = registry.onRequested((pending) => {
    queue = queue
      .then(() => askOne(registry, ask, pending, rejected))
      .catch((error: unknown) => ask.log(`acp: approval: ${String(error)}`));
  });
  return unsubscribe;
}

function stillPending(registry: ApprovalRegistry, pending: PendingApproval): boolean {
  return registry.list(pending.runId).some((p) => p.callId === pending.callId);
}

async function askOne(registry: ApprovalRegistry, ask: PermissionAsk, pending: PendingApproval, rejected: Set<string>): Promise<void> {
  if (!stillPending(registry, pending)) return;
  if (rejected.has(pending.toolName)) {
    registry.resolve(pending.runId, pending.callId, 'deny', 'The user rejected this tool for the rest of the session.', 'client');
    return;
  }
  let preview: ChangePreview | null = null;
  try {
    preview = await previewChange(pending.toolName, pending.arguments, ask.root);
  } catch {
    preview = null;
  }
  const fields = toolCallFields(pending.toolName, pending.arguments, ask.root, false);
  const lines = [`${pending.summary}`, `Why: ${pending.reason}`];
  if (preview !== null && preview.files.length + (preview.problem === null ? 0 : 1) > 0) lines.push('', previewText(preview));
  // Stop waiting once the request is settled elsewhere (the turn was cancelled, the timeout).
  const settled = new AbortController();
  const poll = setInterval(() => {
    if (!stillPending(registry, pending)) settled.abort();
  }, 250);
  let answer: RequestPermissionResponse | null = null;
  let failure: string | null = null;
  try {
    answer = await ask.request(
      {
        sessionId: ask.sessionId,
        toolCall: {
          sessionUpdate: 'tool_call_update',
          toolCallId: pending.callId,
          status: 'pending',
          ...fields,
          content: [{ type: 'content', content: { type: 'text', text: lines.join('\n') } }],
        },
        options: OPTIONS.map(({ optionId, name, kind }) => ({ optionId, name, kind })),
      },
      settled.signal,
    );
  } catch (error) {
    failure = (error as Error)?.message ?? String(error);
  } finally {
    clearInterval(poll);
  }
  if (!stillPending(registry, pending)) return;
  const outcome = (answer as { outcome?: { outcome?: unknown; optionId?: unknown } } | null)?.outcome;
  if (outcome?.outcome === 'selected') {
    const option = OPTIONS.find((o) => o.optionId === outcome.optionId);
    if (option !== undefined) {
      if (option.kind === 'reject_always') rejected.add(pending.toolName);
      registry.resolve(pending.runId, pending.callId, option.decision, null, 'client');
      return;
    }
    failure = `the client chose an option that was not offered (${JSON.stringify(outcome.optionId)})`;
  } else if (outcome?.outcome === 'cancelled') {
    registry.resolve(pending.runId, pending.callId, 'deny', 'The client cancelled the permission request.', 'client');
    return;
  } else if (failure === null) {
    failure = 'the client answered the permission request with something that is not an outcome';
  }
  ask.log(`acp: approval denied: ${failure}`);
  registry.resolve(pending.runId, pending.callId, 'deny', `Not approved: ${failure}.`, 'client');
}
