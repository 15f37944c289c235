// The hooks the interactive session runs outside a turn: SessionEnd when a session is left (/clear,
// /resume or /fork into another, quit) and the `idle_prompt` Notification once the editor has been
// quiet for a while after a turn. Both hold the session's lock while their runs are recorded, so
// the next turn, resume or exit waits for them (`settled`). The SessionEnd runs of a quit can be
// cancelled (`cancelEnding`): a hook that hangs must not hold the terminal until its own timeout.

import { endSession, notifyIdle, type Runner, type SessionEndReason } from '../runner/index.js';

/** Claude Code sends `idle_prompt` once the prompt has waited 60 seconds. */
export const IDLE_PROMPT_MS = 60_000;
const IDLE_MESSAGE = 'Glassbox is waiting for your input';

export interface SessionHookRunsOptions {
  runner: () => Promise<Runner>;
  /** How a failure is told (a notice in the transcript). */
  warn: (text: string) => void;
  /** Whether the session is still the current one and nothing runs: an idle notice is only due then. */
  stillIdle: (sessionId: string) => boolean;
  idlePromptMs?: number;
}

export class SessionHookRuns {
  private ending: Promise<void> = Promise.resolve();
  private idleNotice: Promise<void> = Promise.resolve();
  private idleTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly endings = new Set<AbortController>();

  constructor(private readonly options: SessionHookRunsOptions) {}

  /** The wait for the next prompt starts: once quiet for `idlePromptMs`, the idle hooks run (once a quiet spell). */
  armIdle(sessionId: string): void {
    this.disarmIdle();
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (!this.options.stillIdle(sessionId)) return;
      this.idleNotice = this.idleNotice
        .then(async () => notifyIdle({ runner: await this.options.runner(), sessionId, message: IDLE_MESSAGE }))
        .catch((error: Error) => this.options.warn(`Notification hooks: ${error.message}`));
    }, this.options.idlePromptMs ?? IDLE_PROMPT_MS);
    // Waiting for it must not keep the process alive once the terminal is done.
    this.idleTimer.unref?.();
  }

  /** A key was pressed: an armed wait starts again. */
  restartIdle(sessionId: string | null): void {
    if (this.idleTimer !== null && sessionId !== null) this.armIdle(sessionId);
  }

  /** Whether the wait for the idle Notification is running. */
  get idleArmed(): boolean {
    return this.idleTimer !== null;
  }

  disarmIdle(): void {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  /** The SessionEnd hooks of the session being left, recorded in it; queued behind any still running. */
  end(sessionId: string, reason: SessionEndReason): void {
    const controller = new AbortController();
    this.endings.add(controller);
    this.ending = this.ending
      .then(async () => {
        if (controller.signal.aborted) return;
        await endSession({ runner: await this.options.runner(), sessionId, reason, signal: controller.signal });
      })
      .catch((error: Error) => this.options.warn(`SessionEnd hooks: ${error.message}`))
      .finally(() => this.endings.delete(controller));
  }

  /** Stops the SessionEnd hooks still running or queued (each hook's run is recorded as cancelled); whether there were any. */
  cancelEnding(): boolean {
    const any = this.endings.size > 0;
    for (const controller of this.endings) controller.abort('SessionEnd hooks cancelled by the user');
    return any;
  }

  /** Whether SessionEnd hooks are still running or queued. */
  get endingRuns(): boolean {
    return this.endings.size > 0;
  }

  /** Resolves when no hook run outside a turn holds the session any more. */
  async settled(): Promise<void> {
    await this.ending;
    await this.idleNotice;
  }
}
