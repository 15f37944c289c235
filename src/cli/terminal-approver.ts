// Asks a person at the terminal about pending approvals, one at a time. Without a TTY there is
// nobody to ask: requests are denied at once and the model is told so.

import { createInterface } from 'node:readline/promises';
import type { ApprovalRegistry, PendingApproval } from '../agent/index.js';

export function attachTerminalApprover(registry: ApprovalRegistry, input: NodeJS.ReadStream = process.stdin, output: NodeJS.WriteStream = process.stderr): () => void {
  if (!input.isTTY) {
    return registry.onRequested((pending) => {
      registry.resolve(pending.runId, pending.callId, 'deny', 'Not approved: glassbox is running without a terminal to ask (no TTY). Rerun interactively or change --approval-policy/--sandbox.', 'no-tty');
    });
  }
  let queue: Promise<void> = Promise.resolve();
  return registry.onRequested((pending) => {
    queue = queue.then(() => ask(registry, pending, input, output)).catch(() => {});
  });
}

async function ask(registry: ApprovalRegistry, pending: PendingApproval, input: NodeJS.ReadStream, output: NodeJS.WriteStream): Promise<void> {
  if (!registry.list(pending.runId).some((p) => p.callId === pending.callId)) return;
  const rl = createInterface({ input, output, terminal: true });
  const controller = new AbortController();
  // Stop asking once the request is settled elsewhere (timeout, cancel).
  const poll = setInterval(() => {
    if (!registry.list(pending.runId).some((p) => p.callId === pending.callId)) controller.abort();
  }, 250);
  try {
    output.write(`\n┌ approval needed: ${pending.summary}\n│ why: ${pending.reason}\n`);
    const answer = (await rl.question('└ [y] approve once · [a] approve for this session · [n] deny (optionally "n: message") › ', { signal: controller.signal })).trim();
    const lower = answer.toLowerCase();
    if (lower === 'y' || lower === 'yes') registry.resolve(pending.runId, pending.callId, 'approve');
    else if (lower === 'a' || lower === 'always') registry.resolve(pending.runId, pending.callId, 'approve_session');
    else {
      const message = answer.replace(/^n(o)?\s*:?\s*/i, '').trim();
      registry.resolve(pending.runId, pending.callId, 'deny', message === '' ? null : message);
    }
  } catch {
    // Aborted because the approval was settled elsewhere.
  } finally {
    clearInterval(poll);
    rl.close();
  }
}
