// Asks a person at the terminal about pending approvals, one at a time. Without a TTY there is
// nobody to ask: requests are denied at once and the model is told so.

import { createInterface } from 'node:readline/promises';
import type { ApprovalRegistry, PendingApproval } from '../agent/index.js';

/**
 * Text the model controls (a command, a path) is shown with control characters made visible:
 * otherwise escape sequences or carriage returns could redraw the prompt to show a harmless
 * command while a different one waits for the "y".
 */
export function visibleText(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (char) => {
    const code = char.charCodeAt(0);
    return code === 0x1b ? '\\e' : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** `visibleText` line by line: newlines stay layout, every other control character is shown. */
export function visibleLines(text: string): string {
  return text
    .split('\n')
    .map((line) => visibleText(line.replace(/\t/g, '  ').replace(/\r$/, '')))
    .join('\n');
}

export interface TerminalApproverOptions {
  /** Ctrl-C at the prompt: the terminal is in raw mode, so no SIGINT reaches the process. */
  onInterrupt?: () => void;
}

export function attachTerminalApprover(
  registry: ApprovalRegistry,
  input: NodeJS.ReadStream = process.stdin,
  output: NodeJS.WriteStream = process.stderr,
  options: TerminalApproverOptions = {},
): () => void {
  if (!input.isTTY) {
    return registry.onRequested((pending) => {
      registry.resolve(
        pending.runId,
        pending.callId,
        'deny',
        'Not approved: glassbox is running without a terminal to ask (no TTY). Rerun interactively or change --approval-policy/--sandbox.',
        'no-tty',
      );
    });
  }
  let queue: Promise<void> = Promise.resolve();
  return registry.onRequested((pending) => {
    queue = queue.then(() => ask(registry, pending, input, output, options)).catch(() => {});
  });
}

async function ask(
  registry: ApprovalRegistry,
  pending: PendingApproval,
  input: NodeJS.ReadStream,
  output: NodeJS.WriteStream,
  options: TerminalApproverOptions,
): Promise<void> {
  if (!registry.list(pending.runId).some((p) => p.callId === pending.callId)) return;
  const rl = createInterface({ input, output, terminal: true });
  const controller = new AbortController();
  rl.on('SIGINT', () => {
    // Ctrl-C means "stop the run", as it does everywhere else: deny this call and cancel.
    registry.resolve(pending.runId, pending.callId, 'deny', 'The user pressed Ctrl-C at the approval prompt.', 'user');
    controller.abort();
    options.onInterrupt?.();
  });
  // Stop asking once the request is settled elsewhere (timeout, cancel).
  const poll = setInterval(() => {
    if (!registry.list(pending.runId).some((p) => p.callId === pending.callId)) controller.abort();
  }, 250);
  try {
    output.write(`\n┌ approval needed: ${visibleText(pending.summary)}\n│ why: ${visibleText(pending.reason)}\n`);
    // The one-line summary clips long arguments; nobody approves what they could not read.
    if (pending.summary.endsWith(' characters)') && pending.arguments.trim().length > 0) {
      output.write(`│ arguments in full:\n${visibleLines(prettyArguments(pending.arguments)).replace(/^/gm, '│   ')}\n`);
    }
    const answer = (
      await rl.question('└ [y] approve once · [a] approve for this session · [n] deny (optionally "n: message") › ', {
        signal: controller.signal,
      })
    ).trim();
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

function prettyArguments(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    return raw;
  }
}
