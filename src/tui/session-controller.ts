// The interactive session without the screen: it owns the runner, the current session id, the
// running turn and its approvals, the transcript and the status numbers, and publishes one
// immutable snapshot that the ink view subscribes to (useSyncExternalStore). Turns, compaction,
// fork and resume all go through the runner and sessions modules, exactly as `exec`, `compact`
// and `fork` do, so everything lands in the same session format.

import { randomUUID } from 'node:crypto';
import { isAbsolute, join, relative, sep } from 'node:path';
import { ApprovalRegistry, type ApprovalDecisionKind, type PendingApproval, type RunEvent } from '../agent/index.js';
import { readCompactionConfig } from '../compaction/index.js';
import { resolveModel } from '../model/index.js';
import { openRunner, runTurn, type Runner, type RunnerSettings, type SessionEndReason, type ToolPolicySettings } from '../runner/index.js';
import { exactAllowRule, saveAllowRule } from '../permissions/index.js';
import { buildApprovalPreview, type ApprovalPreview } from './approval-preview.js';
import type { Picker } from './picker-view.js';
import { SessionMeter, type MeterLimits, type MeterReading } from './session-meter.js';
import { PromptHistoryFile, TypedPrompts } from './prompt-history.js';
import { loadSession } from './session-history.js';
import { SessionHookRuns } from './session-hook-runs.js';
import { addEntry, emptyTranscript, reduceRunEvent, type NewEntry, type TranscriptState } from './transcript-state.js';
import { WorkspaceChanges } from './workspace-changes.js';
import { DEFAULT_SNAPSHOT_LIMITS } from './workspace-snapshot.js';
import { oneLine } from '../terminal-text/index.js';

export type SandboxModeName = ToolPolicySettings['sandbox'];
export type ApprovalPolicyName = ToolPolicySettings['approvalPolicy'];

export interface ControllerOptions {
  /** Everything a turn needs; `model`, `sandbox` and `approvalPolicy` change with /model, /sandbox, /approvals. */
  runner: RunnerSettings & ToolPolicySettings;
  sandboxModes: readonly SandboxModeName[];
  approvalPolicies: readonly ApprovalPolicyName[];
  glassboxVersion: string;
  /** Shown once at the top (e.g. the offline demo notice). */
  notices?: string[];
  /** Why the OS sandbox cannot run here, for /status; null or absent when it works. */
  sandboxUnavailable?: string | null;
  /**
   * Wipes the terminal before another session's transcript is shown (/clear, /resume, /fork):
   * what ink printed into the scrollback cannot be taken back any other way.
   */
  clearScreen?: () => void;
  /** `--plan`: the first prompt runs in plan mode (as after `/plan`). */
  planFirst?: boolean;
  /** Quiet after a turn before the `idle_prompt` Notification hooks run (default: 60 s, as Claude Code). */
  idlePromptMs?: number;
}

export { IDLE_PROMPT_MS } from './session-hook-runs.js';

export interface PendingView extends PendingApproval {
  preview: ApprovalPreview | null;
  /** The exact allow rule "approve always" would save for this call; null when none describes it. */
  alwaysRule: string | null;
}

export type Busy = null | 'turn' | 'compact' | 'command';

export interface Snapshot {
  transcript: TranscriptState;
  busy: Busy;
  sessionId: string | null;
  model: string;
  wireApi: RunnerSettings['wireApi'];
  sandbox: SandboxModeName;
  approvalPolicy: ApprovalPolicyName;
  meter: MeterReading;
  limits: MeterLimits | null;
  pending: PendingView | null;
  /** Prompts for the editor's Up key; `historyVersion` changes when a session is loaded. */
  promptHistory: readonly string[];
  historyVersion: number;
  exitRequested: boolean;
  /** Prompts sent while busy, as shown, oldest first: sent one by one when the turn ends. */
  queued: readonly string[];
  /** Queued prompts a cancel put back, for the editor (a new `version` each time). */
  restoredPrompts: { prompts: readonly string[]; version: number } | null;
  /** What the printed transcript shows in full (Ctrl-O: tool outputs, Ctrl-T: reasoning). */
  expanded: TranscriptExpansion;
  /** A list to choose from in place of the editor (`/model`, `/resume`). */
  picker: Picker | null;
}

export interface TranscriptExpansion {
  tools: boolean;
  reasoning: boolean;
}

/** How often streamed text is drawn: ~8 frames a second reads as smooth streaming. */
export const DELTA_INTERVAL_MS = 120;

export class SessionController {
  private runner: Runner | null = null;
  private opening: Promise<Runner> | null = null;
  private settings: RunnerSettings & ToolPolicySettings;
  private readonly approvals = new ApprovalRegistry();
  private readonly pendingQueue: PendingView[] = [];
  private readonly listeners = new Set<() => void>();
  private deltaTimer: ReturnType<typeof setTimeout> | null = null;
  private controller: AbortController | null = null;
  private running: Promise<void> | null = null;
  private readonly queued: Array<{ prompt: string; shown: string; mode?: 'plan' }> = [];
  readonly meter = new SessionMeter();
  readonly changes: WorkspaceChanges;
  private state: Snapshot;
  /** Prompts from `<home>/history.jsonl` and those sent in this process, oldest first. */
  private readonly typed: TypedPrompts;
  /** The next prompt runs in plan mode (`--plan`, a bare `/plan`). */
  private planNext: boolean;
  /** A plan turn succeeded and waits for /accept or /reject. */
  private proposedPlan = false;
  /** SessionEnd and the idle Notification: the hooks run outside a turn. */
  readonly hookRuns: SessionHookRuns;

  constructor(readonly options: ControllerOptions) {
    this.settings = { ...options.runner };
    this.planNext = options.planFirst === true;
    // Glassbox's home inside the project (sessions, history) is not a change the agent made.
    const home = relative(options.runner.root, options.runner.home).split(sep).join('/');
    const excluded = home === '' || home.startsWith('..') || isAbsolute(home) ? [] : [home];
    this.changes = new WorkspaceChanges(options.runner.root, { ...DEFAULT_SNAPSHOT_LIMITS, excluded });
    this.typed = new TypedPrompts(new PromptHistoryFile(options.runner.home), (message) =>
      this.note({ kind: 'notice', tone: 'warning', text: `prompt history not saved: ${oneLine(message, 200)}` }),
    );
    let transcript = emptyTranscript();
    for (const text of options.notices ?? []) transcript = addEntry(transcript, { kind: 'notice', tone: 'info', text });
    this.state = {
      transcript,
      busy: null,
      sessionId: null,
      model: this.settings.model,
      wireApi: this.settings.wireApi,
      sandbox: this.settings.sandbox,
      approvalPolicy: this.settings.approvalPolicy,
      meter: this.meter.read(),
      limits: null,
      pending: null,
      promptHistory: [],
      historyVersion: 0,
      exitRequested: false,
      queued: [],
      restoredPrompts: null,
      expanded: { tools: false, reasoning: false },
      picker: null,
    };
    this.approvals.onRequested((pending) => void this.enqueueApproval(pending));
    this.hookRuns = new SessionHookRuns({
      runner: () => this.getRunner(),
      warn: (text) => this.note({ kind: 'notice', tone: 'warning', text: oneLine(text, 300) }),
      stillIdle: (sessionId) => !this.isBusy && this.state.sessionId === sessionId,
      ...(options.idlePromptMs === undefined ? {} : { idlePromptMs: options.idlePromptMs }),
    });
  }

  // ---- the store the view subscribes to ----

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): Snapshot => this.state;

  private update(change: Partial<Snapshot>): void {
    this.state = { ...this.state, ...change, meter: this.meter.read(), limits: this.meter.getLimits() };
    this.publish();
  }

  /** Tells the view; any update publishes at once, so a pending delta is never left undrawn. */
  private publish(): void {
    if (this.deltaTimer !== null) clearTimeout(this.deltaTimer);
    this.deltaTimer = null;
    for (const listener of this.listeners) listener();
  }

  /**
   * A streamed delta changes the state now but tells the view at most once per DELTA_INTERVAL_MS:
   * every render rewrites ink's whole live frame (the unfinished paragraph, the editor, the status
   * lines) and commits the paragraphs finished since the last one, so a frame per delta cost ~40
   * bytes per streamed character. Any other update (a key, a tool call, the turn's end) publishes
   * at once, with the deltas held so far.
   */
  private updateStreamed(transcript: TranscriptState): void {
    this.state = { ...this.state, transcript };
    if (this.deltaTimer === null) this.deltaTimer = setTimeout(() => this.publish(), DELTA_INTERVAL_MS);
  }

  note(entry: NewEntry): void {
    this.update({ transcript: addEntry(this.state.transcript, entry) });
  }

  get root(): string {
    return this.settings.root;
  }

  get home(): string {
    return this.settings.home;
  }

  get currentSettings(): RunnerSettings & ToolPolicySettings {
    return this.settings;
  }

  // ---- runner and settings ----

  /** The runner for the current settings; reopened after /model, /sandbox or /approvals. */
  async getRunner(): Promise<Runner> {
    // One opening at a time: the start opens it after the first paint, and a prompt sent meanwhile
    // waits for that opening instead of starting its own.
    while (this.opening !== null) await this.opening.catch(() => {});
    if (this.runner === null) {
      const opening = openRunner(this.settings);
      this.opening = opening;
      try {
        this.runner = await opening;
      } finally {
        this.opening = null;
      }
      try {
        const resolved = await this.runner.compaction();
        this.meter.setLimits({ window: resolved.inputWindow, threshold: resolved.threshold, entry: resolved.modelEntry });
      } catch {
        // A bad --compact-at is reported by the turn that needs it; the status line just lacks a window.
        this.meter.setLimits(null);
      }
      this.update({});
    }
    return this.runner;
  }

  async changeSettings(change: Partial<Pick<RunnerSettings, 'model' | 'sandbox' | 'approvalPolicy'>>): Promise<void> {
    this.settings = { ...this.settings, ...change };
    this.runner = null;
    this.update({ model: this.settings.model, sandbox: this.settings.sandbox, approvalPolicy: this.settings.approvalPolicy });
    await this.getRunner();
  }

  // ---- turns ----

  get isBusy(): boolean {
    return this.state.busy !== null;
  }

  /**
   * Runs one prompt as a turn of the current session (a new one when there is none). A prompt
   * sent while something runs waits in a queue and goes out when it ends, as typed-ahead input.
   */
  sendPrompt(prompt: string, shown: string = prompt, mode?: 'plan'): Promise<void> {
    this.disarmIdle();
    const turnMode = mode ?? (this.planNext ? 'plan' : undefined);
    this.planNext = false;
    if (this.isBusy) {
      // Shown under the running turn, not as a transcript line that would split the streaming answer.
      this.queued.push({ prompt, shown, ...(turnMode ? { mode: turnMode } : {}) });
      this.update({ queued: this.queued.map((q) => q.shown) });
      return Promise.resolve();
    }
    this.update({ transcript: addEntry(this.state.transcript, { kind: 'user', text: shown }) });
    return this.track('turn', async (signal) => {
      // /diff compares with a snapshot taken before the agent could change anything.
      await this.changes.ready();
      const runner = await this.getRunner();
      // The SessionEnd hooks of a session just left, and idle Notification hooks, hold its lock until they are done.
      await this.hookRuns.settled();
      const runId = randomUUID();
      const result = await runTurn(runner, {
        prompt,
        resume: this.state.sessionId,
        runId,
        signal,
        approvals: this.approvals,
        onEvent: (event) => this.onRunEvent(event),
        ...(turnMode ? { mode: turnMode } : {}),
      });
      // A plan waits for /accept or /reject; any other turn moves on without it.
      this.proposedPlan = turnMode === 'plan' && result.terminal.type === 'run_succeeded';
      if (this.proposedPlan)
        this.note({
          kind: 'notice',
          tone: 'info',
          text: `plan proposed, nothing changed: /accept runs it (${this.settings.sandbox}), /accept <sandbox>, or /reject`,
        });
      if (result.persistError !== null)
        this.note({ kind: 'notice', tone: 'warning', text: `the session file could not be finalized: ${result.persistError}` });
      this.update({ sessionId: result.sessionId });
    });
  }

  /** The next prompt runs in plan mode. */
  planNextPrompt(): void {
    this.planNext = true;
  }

  get hasProposedPlan(): boolean {
    return this.proposedPlan;
  }

  dropProposedPlan(): void {
    this.proposedPlan = false;
  }

  /** Runs work that can be cancelled with Esc/Ctrl-C; errors become a notice, never a crash. */
  async track(busy: Exclude<Busy, null>, work: (signal: AbortSignal) => Promise<void>): Promise<void> {
    if (this.isBusy) {
      this.note({ kind: 'notice', tone: 'warning', text: 'busy: wait for the current turn to end, or press Esc to cancel it' });
      return;
    }
    const controller = new AbortController();
    this.controller = controller;
    this.update({ busy });
    const run = (async () => {
      try {
        await work(controller.signal);
      } catch (error) {
        if (controller.signal.aborted) this.note({ kind: 'notice', tone: 'warning', text: 'cancelled' });
        else this.note({ kind: 'notice', tone: 'error', text: oneLine((error as Error)?.message ?? String(error), 600) });
      } finally {
        this.controller = null;
        this.pendingQueue.length = 0;
        this.update({ busy: null, pending: null });
      }
    })();
    this.running = run;
    await run;
    if (this.running === run) this.running = null;
    // A cancel sends nothing more: the user stopped the work, not just this turn. What was typed
    // ahead goes back into the editor, to send, change or drop.
    if (controller.signal.aborted && this.queued.length > 0) {
      const prompts = this.queued.splice(0).map((q) => q.prompt);
      const version = (this.state.restoredPrompts?.version ?? 0) + 1;
      this.update({ queued: [], restoredPrompts: { prompts, version } });
      const what = prompts.length === 1 ? 'the queued prompt is' : `${prompts.length} queued prompts are`;
      this.note({ kind: 'notice', tone: 'info', text: `not sent: ${what} back in the editor` });
      return;
    }
    const next = this.queued.shift();
    if (next !== undefined) this.update({ queued: this.queued.map((q) => q.shown) });
    if (next !== undefined && !this.state.exitRequested) await this.sendPrompt(next.prompt, next.shown, next.mode);
    else this.armIdle();
  }

  /** A key was pressed: the wait for the next prompt starts again. */
  noteActivity(): void {
    this.hookRuns.restartIdle(this.state.sessionId);
  }

  /** After a turn, with a session to notify about and nothing running: the idle Notification's wait starts. */
  private armIdle(): void {
    this.disarmIdle();
    if (this.state.sessionId === null || this.state.exitRequested || this.isBusy) return;
    this.hookRuns.armIdle(this.state.sessionId);
  }

  private disarmIdle(): void {
    this.hookRuns.disarmIdle();
  }

  onRunEvent(event: RunEvent): void {
    if (event.type === 'run_started') this.state = { ...this.state, sessionId: event.sessionId };
    if (event.type === 'model_completed') this.meter.addCall(event.usage, event.stage);
    if (event.type === 'history_compacted') this.meter.compacted(event.tokensAfter);
    if (event.type === 'tool_requested') this.changes.noteToolCall(event.name, event.arguments);
    const transcript = reduceRunEvent(this.state.transcript, event);
    if (event.type === 'assistant_delta' || event.type === 'reasoning_delta') {
      this.updateStreamed(transcript);
      return;
    }
    const change: Partial<Snapshot> = { transcript };
    if (event.type === 'approval_resolved') {
      const index = this.pendingQueue.findIndex((p) => p.callId === event.callId);
      if (index !== -1) this.pendingQueue.splice(index, 1);
      change.pending = this.pendingQueue[0] ?? null;
    }
    this.update(change);
  }

  /** Esc / Ctrl-C while busy: cancel the turn (pending approvals are denied by the registry). */
  cancel(): void {
    this.controller?.abort('Cancelled by the user (Esc/Ctrl-C).');
  }

  // ---- prompt history ----

  /** Reads `<home>/history.jsonl` into the editor's Up history. */
  async loadPromptHistory(): Promise<void> {
    this.update({ promptHistory: await this.typed.load(), historyVersion: this.state.historyVersion + 1 });
  }

  /** A prompt or command the user sent: kept for Up, here and (unless it looks secret) in later sessions. */
  rememberPrompt(prompt: string): void {
    this.typed.remember(prompt);
  }

  // ---- approvals ----

  private async enqueueApproval(pending: PendingApproval): Promise<void> {
    let preview: ApprovalPreview | null = null;
    try {
      preview = await buildApprovalPreview(pending.toolName, pending.arguments, this.settings.root);
    } catch {
      preview = null;
    }
    // Settled meanwhile (cancel, timeout): nothing to ask.
    if (!this.approvals.list(pending.runId).some((p) => p.callId === pending.callId)) return;
    this.pendingQueue.push({ ...pending, preview, alwaysRule: exactAllowRule(pending.toolName, pending.arguments, this.settings.root) });
    this.update({ pending: this.pendingQueue[0] });
  }

  decide(decision: ApprovalDecisionKind, message: string | null = null): void {
    const pending = this.state.pending;
    if (pending === null) return;
    this.approvals.resolve(pending.runId, pending.callId, decision, message, 'user');
  }

  /** Where "approve always" writes its rules: the user's own config, never a project's. */
  get userConfigFile(): string {
    return join(this.settings.home, 'config.json');
  }

  /**
   * "Approve always", once the user confirmed the rule they were shown: saved to the user's
   * config (it applies from the next turn, when rules are read), and this session gets the grant
   * `a` gives. A save that fails approves this call once and says why.
   */
  async approveAlways(): Promise<void> {
    const pending = this.state.pending;
    if (pending === null || pending.alwaysRule === null) return;
    try {
      const file = await saveAllowRule(this.settings.home, pending.alwaysRule);
      this.note({ kind: 'notice', tone: 'success', text: `saved the allow rule ${pending.alwaysRule} to ${file} (permissions.allow)` });
      this.approvals.resolve(pending.runId, pending.callId, 'approve_session', null, 'user');
    } catch (error) {
      this.note({
        kind: 'notice',
        tone: 'error',
        text: `the rule was not saved: ${oneLine(String((error as Error)?.message ?? error), 300)}; approved once`,
      });
      this.approvals.resolve(pending.runId, pending.callId, 'approve', null, 'user');
    }
  }

  // ---- sessions ----

  /** Shows a stored session and makes it the current one (resume, fork). */
  async openSession(sessionId: string): Promise<void> {
    this.disarmIdle();
    await this.hookRuns.settled();
    const runner = await this.getRunner();
    if (this.state.sessionId !== null && this.state.sessionId !== sessionId) this.endCurrentSession('other');
    await this.hookRuns.settled();
    const overrides = await readCompactionConfig(this.settings.home).then(
      (config) => config.models,
      // A broken config.json is reported by the turn that reads it; prices fall back to the catalog.
      () => ({}),
    );
    const entryFor = (model: string) => resolveModel(model, overrides).entry;
    const loaded = await loadSession(runner.store, sessionId, this.meter, this.state.transcript.epoch + 1, entryFor);
    this.changes.reset(loaded.writtenPaths);
    this.options.clearScreen?.();
    this.update({
      sessionId: loaded.sessionId,
      transcript: loaded.transcript,
      // What was typed here, newest first on Up, after the session's prompts that were not (sent by `exec`).
      promptHistory: this.typed.withSession(loaded.prompts),
      historyVersion: this.state.historyVersion + 1,
    });
  }

  /**
   * Prints the transcript again from a clean screen: what ink printed into the scrollback cannot
   * be redrawn in place, so a new epoch remounts it whole (after a resize, or a Ctrl-O/Ctrl-T).
   */
  repaint(expanded: TranscriptExpansion = this.state.expanded): void {
    this.options.clearScreen?.();
    this.update({ expanded, transcript: { ...this.state.transcript, epoch: this.state.transcript.epoch + 1 } });
  }

  /** Shows a list in place of the editor; `null` closes it. */
  setPicker(picker: Picker | null): void {
    this.update({ picker });
  }

  /** Ctrl-O / Ctrl-T: every tool output, or all reasoning, shown in full or folded again. */
  toggleExpanded(what: keyof TranscriptExpansion): void {
    this.repaint({ ...this.state.expanded, [what]: !this.state.expanded[what] });
  }

  /** /clear: the next prompt starts a new session; the old one stays resumable. */
  newSession(): void {
    this.disarmIdle();
    this.endCurrentSession('clear');
    this.meter.reset();
    this.changes.reset();
    this.options.clearScreen?.();
    this.update({ sessionId: null, transcript: emptyTranscript(this.state.transcript.epoch + 1) });
  }

  requestExit(): void {
    this.disarmIdle();
    this.update({ exitRequested: true });
  }

  /** On exit: a running turn is cancelled and awaited, so its session gets its end record. Once: a second call waits for the first. */
  shutdown(): Promise<void> {
    this.shuttingDown ??= this.shutdownOnce();
    return this.shuttingDown;
  }

  private shuttingDown: Promise<void> | null = null;

  private async shutdownOnce(): Promise<void> {
    this.disarmIdle();
    this.cancel();
    await this.running;
    await this.hookRuns.settled();
    this.endCurrentSession('prompt_input_exit');
    await this.hookRuns.settled();
    await this.typed.written();
  }

  /**
   * The SessionEnd hooks of the session being left (/clear, /resume or /fork into another, quit),
   * recorded in that session; the next turn or resume waits for them.
   */
  private endCurrentSession(reason: SessionEndReason): void {
    const sessionId = this.state.sessionId;
    if (sessionId !== null) this.hookRuns.end(sessionId, reason);
  }
}
