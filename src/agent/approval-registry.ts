// Pending approvals the loop awaits. A front end (terminal prompt, web page) lists and resolves
// them; nobody answering within the timeout means "deny", and cancelling the run ends the wait.

import type { ApprovalDecisionKind } from './run-events.js';
import type { ApprovalBroker, ApprovalRequest, ApprovalResolution } from './tool-gate.js';

export const DEFAULT_APPROVAL_TIMEOUT_MS = 10 * 60 * 1000;

export interface PendingApproval extends ApprovalRequest {
  requestedAt: string;
  expiresAt: string;
}

interface Waiter {
  pending: PendingApproval;
  settle: (resolution: ApprovalResolution) => void;
}

export class ApprovalRegistry implements ApprovalBroker {
  private readonly waiters = new Map<string, Waiter>();
  private readonly listeners = new Set<(pending: PendingApproval) => void>();

  constructor(private readonly timeoutMs: number = DEFAULT_APPROVAL_TIMEOUT_MS) {}

  private static key(runId: string, callId: string): string {
    return `${runId}\u0000${callId}`;
  }

  /** Called for every new pending approval (e.g. to prompt on a TTY). Returns an unsubscribe. */
  onRequested(listener: (pending: PendingApproval) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  list(runId?: string): PendingApproval[] {
    return [...this.waiters.values()].map((w) => w.pending).filter((p) => runId === undefined || p.runId === runId);
  }

  /** Resolve a pending approval; false when there is no such pending request. */
  resolve(runId: string, callId: string, decision: ApprovalDecisionKind, message: string | null = null, by = 'user'): boolean {
    const waiter = this.waiters.get(ApprovalRegistry.key(runId, callId));
    if (!waiter) return false;
    waiter.settle({ decision, by, message });
    return true;
  }

  request(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalResolution> {
    const key = ApprovalRegistry.key(request.runId, request.callId);
    const now = Date.now();
    const pending: PendingApproval = {
      ...request,
      requestedAt: new Date(now).toISOString(),
      expiresAt: new Date(now + this.timeoutMs).toISOString(),
    };
    return new Promise((resolve) => {
      const settle = (resolution: ApprovalResolution): void => {
        if (!this.waiters.has(key)) return;
        this.waiters.delete(key);
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        resolve(resolution);
      };
      const onAbort = (): void => settle({ decision: 'deny', by: 'cancelled', message: null });
      const timer = setTimeout(
        () => settle({ decision: 'deny', by: 'timeout', message: `No decision within ${Math.round(this.timeoutMs / 1000)} s.` }),
        this.timeoutMs,
      );
      this.waiters.set(key, { pending, settle });
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      for (const listener of this.listeners) listener(pending);
    });
  }
}
