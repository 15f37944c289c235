// Asks a person at the terminal about pending approvals, one at a time. Without a TTY there is
// nobody to ask: requests are denied at once and the model is told so.

import { createInterface } from 'node:readline/promises';
import type { ApprovalRegistry, PendingApproval } from '../agent/index.js';
import { escapeControls, visibleText } from '../terminal-text/index.js';
import { prettyArguments } from '../views/index.js';

export interface TerminalApproverOptions {
  /** Ctrl-C at the prompt: the terminal is in raw mode, so no SIGINT reaches the process. */
  onInterrupt?: () => void;
  /**
   * "Approve always": the exact allow rule for a pending call (null: none can describe it), and
   * how to save it to the user's config. The rule is shown before `[s]` saves it.
   */
  alwaysAllow?: {
    ruleFor(pending: PendingApproval): string | null;
    save(rule: string): Promise<string>;
  };
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
    // Shown, not obeyed: escape sequences could redraw the prompt to show a harmless command while
    // a different one waits for the "y".
    output.write(`\n┌ approval needed: ${escapeControls(pending.summary)}\n│ why: ${escapeControls(pending.reason)}\n`);
    // The one-line summary clips long arguments; nobody approves what they could not read.
    if (pending.summary.endsWith(' characters)') && pending.arguments.trim().length > 0) {
      output.write(`│ arguments in full:\n${visibleText(prettyArguments(pending.arguments)).replace(/^/gm, '│   ')}\n`);
    }
    const rule = options.alwaysAllow?.ruleFor(pending) ?? null;
    if (rule !== null) output.write(`│ [s] saves the allow rule ${escapeControls(rule)} to your config and approves\n`);
    const choices = `└ [y] approve once · [a] approve for this session${rule === null ? '' : ' · [s] always'} · [n] deny (optionally "n: message") › `;
    const answer = (await rl.question(choices, { signal: controller.signal })).trim();
    const lower = answer.toLowerCase();
    if (lower === 'y' || lower === 'yes') registry.resolve(pending.runId, pending.callId, 'approve');
    else if (lower === 'a' || lower === 'always') registry.resolve(pending.runId, pending.callId, 'approve_session');
    else if (lower === 's' && rule !== null && options.alwaysAllow) {
      // The rule applies from the next turn on (rules are read when a turn starts); the session
      // grant covers the rest of this one.
      try {
        const file = await options.alwaysAllow.save(rule);
        output.write(`│ saved ${escapeControls(rule)} to ${escapeControls(file)}\n`);
        registry.resolve(pending.runId, pending.callId, 'approve_session');
      } catch (error) {
        output.write(`│ the rule was not saved: ${escapeControls((error as Error).message)}; approved once\n`);
        registry.resolve(pending.runId, pending.callId, 'approve');
      }
    } else {
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
