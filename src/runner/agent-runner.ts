// Runs one turn of the agent in a session: the piece both `glassbox exec` and the HTTP server use.
// It opens or resumes the session, builds the tools and the permission gate, runs the sampling
// loop with the session recorder attached, and closes the turn in the file.

import { glassboxVersion } from '../version/index.js';
import {
  ToolRuntime,
  runSamplingLoop,
  systemMessage,
  userMessage,
  type AnyTool,
  type ApprovalBroker,
  type CompactionHooks,
  type OpenBatchCall,
  type ResponseItem,
  type RunEvent,
  type TerminalRunEvent,
} from '../agent/index.js';
import type { ExecutionPolicy, SandboxMode } from '../workspace/index.js';
import {
  modelSettingsOf,
  modelSettingsProblem,
  retryPolicyOf,
  type ModelGateway,
  type ModelSettings,
  type ResponseFormat,
  type RetryPolicy,
} from '../model/index.js';
import {
  cheapTokenEstimate,
  compactionSettings,
  createCompactionHooks,
  readCompactionConfig,
  resolveCompactionSettings,
  type CompactionDeps,
  type CompactionTuning,
  type ResolvedCompaction,
} from '../compaction/index.js';
import { SessionGrants, loadCommandClassifier, type ApprovalPolicy } from '../permissions/index.js';
import { detectSandbox, gitSnapshot, type SandboxDetector } from '../sandbox/index.js';
import { buildSystemPrompt, type SystemPrompt } from './system-prompt.js';
import { JsonlSessionStore, resumeSession, type NewSessionRecord, type SessionStore, type SessionWriter } from '../sessions/index.js';
import {
  createEditingTools,
  createReadOnlyTools,
  createShellTool,
  createSkillTool,
  createToolSessionState,
  createUpdatePlanTool,
  type ToolSessionState,
} from '../tools/index.js';
import { toolsOffered } from './skill-context.js';
import { planPolicy, planPrompt, planTools } from './plan-mode.js';
import { createPermissionGate } from './permission-gate.js';
import { SessionRecorder } from './session-recorder.js';
import { checkpointedTools } from './turn-checkpoints.js';
import { prepareRunExtensions, type TurnObserver } from './run-extensions.js';
import { readPermissionRules } from './permission-rules-files.js';
import { notifyingApprovals, preCompactHook, promptHooks, readTurnHooks, toolHooksFor } from './turn-hooks.js';
import type { TelemetrySettings } from '../telemetry/index.js';
import { resolveRoot } from '../workspace/index.js';
import { join } from 'node:path';

/** How a turn's tools may act. Only turns run tools: a runner used for compaction needs none. */
export interface ToolPolicySettings {
  sandbox: SandboxMode;
  approvalPolicy: ApprovalPolicy;
  network: boolean;
}

/**
 * The session, the model and the tools a runner works with; plus, optionally, the tool policy
 * for its turns (a turn may bring its own, `TurnRequest.policy`).
 */
export interface RunnerSettings extends Partial<ToolPolicySettings>, ModelSettings {
  root: string;
  home: string;
  /** Speaks `wireApi`; the model settings go into each of the turn's requests. */
  gateway: ModelGateway;
  maxRounds?: number;
  tokenBudget?: number;
  compactAt?: string;
  contextWindow?: string;
  /** Defaults to the JSONL store under `<home>/sessions`. */
  store?: SessionStore;
  /** Defaults to every built-in tool. */
  tools?: AnyTool[];
  /** Replaces the default compaction hooks (tests, benchmarks); null turns compaction off. */
  compaction?: CompactionHooks | null;
  /** Adjusts the default compaction hooks (mode, retry delays, budgets) without replacing them. */
  compactionTuning?: Partial<CompactionTuning>;
  /** Defaults to probing bubblewrap once per process (tests inject an unavailable sandbox). */
  detectSandbox?: SandboxDetector;
  /** MCP servers from `<home>/config.json` and `.glassbox/config.json`; false: none. Default true. */
  mcp?: boolean;
  /** Export an OpenTelemetry trace of each turn (`--otlp-endpoint`, `OTEL_*`); null or absent: no tracing. */
  telemetry?: TelemetrySettings | null;
  /** Checkpoint what each tool call changes in the project, for rewind (default true). */
  checkpoints?: boolean;
  /** The schema every turn's final answer must match (`exec --output-schema`), sent with its rounds' requests. */
  responseFormat?: ResponseFormat;
}

export interface Runner {
  readonly settings: RunnerSettings;
  readonly root: string;
  readonly store: SessionStore;
  readonly tools: AnyTool[];
  /**
   * Context window, threshold and summary instructions, from flags, `<home>/config.json` and the
   * catalog. Resolved on first use (a turn, a manual compaction), not in `openRunner`, so a bad
   * setting is reported where callers already clean up; rejects with `CompactionConfigError`.
   */
  compaction(): Promise<ResolvedCompaction>;
  /**
   * The tools' state for a session (which files were read, for `edit_file`), kept across the
   * session's turns while this runner lives, so a file read in one turn can be edited in the next.
   */
  toolState(sessionId: string): ToolSessionState;
}

export interface TurnRequest {
  prompt: string;
  /** A session id, a unique prefix, or `last`; null starts a new session. */
  resume?: string | null;
  runId: string;
  signal: AbortSignal;
  approvals: ApprovalBroker;
  onEvent?: (event: RunEvent) => void;
  /** This turn's tool policy; default: the runner's (`RunnerSettings`). */
  policy?: ToolPolicySettings;
  /**
   * The environment block's git lines (`gitSnapshot` of the sandbox layer, for this runner's root),
   * when the caller started gathering them before the runner was ready: `exec` does, so the
   * sandboxed `git status` runs while the runner's code loads. Used only if the turn starts a new
   * session; by default they are gathered when it does.
   */
  gitSnapshot?: Promise<string>;
  /**
   * Resuming a session whose last turn is this run's and was interrupted (its worker died): continue
   * that turn — the interrupted round is redone, nothing committed is repeated, the prompt is added
   * only if the turn had not recorded it yet — instead of starting a new one. A team worker's takeover.
   */
  continueRun?: boolean;
  /**
   * With `continueRun`: which of the cut-off round's calls never started (a team worker asks its
   * approval rows). They run again, asking the same approval, instead of getting an interrupted output.
   */
  unstartedCalls?: (callIds: readonly string[]) => Promise<ReadonlySet<string>>;
  /**
   * `plan`: a read-only turn in which the model proposes a plan (`--plan`, `/plan`): the sandbox
   * is read-only whatever the policy says, only read-only tools and the shell are offered, and the
   * prompt carries the plan-mode instructions (plan-mode.ts). Default: an ordinary turn.
   */
  mode?: 'plan';
  /**
   * Aborted once this process may no longer write the session (a team worker lost its run to
   * another worker): the session's writer refuses every record from then on, at once, without
   * asking the store. It does not stop the turn; abort `signal` for that (a worker aborts both).
   */
  fence?: AbortSignal;
}

/** The turn's policy, or a clear error for a runner opened without one (a programming error). */
function turnPolicy(settings: RunnerSettings, request: TurnRequest): ToolPolicySettings {
  if (request.policy) return request.policy;
  const { sandbox, approvalPolicy, network } = settings;
  if (sandbox === undefined || approvalPolicy === undefined || network === undefined) {
    throw new TypeError('runTurn: no tool policy: set sandbox, approvalPolicy and network in RunnerSettings or in the TurnRequest.');
  }
  return { sandbox, approvalPolicy, network };
}

export interface TurnResult {
  sessionId: string;
  runId: string;
  terminal: TerminalRunEvent;
  /** Set when the turn ran but its session file could not be finalized (turn-end record, fsync, index). */
  persistError: string | null;
}

export { glassboxVersion };

export async function openRunner(settings: RunnerSettings): Promise<Runner> {
  // A bad cap or temperature would fail every request; say which setting, before anything is opened.
  const settingsProblem = modelSettingsProblem(settings);
  if (settingsProblem !== null) throw new Error(`Invalid runner settings: ${settingsProblem}.`);
  const root = resolveRoot(settings.root);
  const store = settings.store ?? new JsonlSessionStore(join(settings.home, 'sessions'));
  const tools = settings.tools ?? [
    ...createReadOnlyTools(),
    ...createEditingTools(),
    createShellTool({ glassboxHome: settings.home, sandboxDetector: settings.detectSandbox }),
    createSkillTool({ glassboxHome: settings.home }),
    createUpdatePlanTool(),
  ];
  let resolved: Promise<ResolvedCompaction> | null = null;
  const compaction = (): Promise<ResolvedCompaction> =>
    (resolved ??= readCompactionConfig(settings.home).then((config) =>
      resolveCompactionSettings({ model: settings.model, contextWindow: settings.contextWindow, compactAt: settings.compactAt, config }),
    ));
  const toolStates = new Map<string, ToolSessionState>();
  const toolState = (sessionId: string): ToolSessionState => {
    let state = toolStates.get(sessionId);
    if (!state) {
      state = createToolSessionState();
      toolStates.set(sessionId, state);
    }
    return state;
  };
  return { settings, root, store, tools, compaction, toolState };
}

/** Tokens the tool schemas add to every request, which a history-only estimate would miss. */
export function toolSchemaTokens(definitions: readonly unknown[]): number {
  return definitions.length === 0 ? 0 : cheapTokenEstimate(JSON.stringify(definitions));
}

interface OpenedSession {
  writer: SessionWriter;
  history: ResponseItem[];
  newItems: ResponseItem[];
  turn: number;
  /** An interrupted turn of this run, continued (`TurnRequest.continueRun`): its turn_started is already recorded. */
  continued: boolean;
  /** The continued turn's cut-off round, finished before the first model call (`SamplingLoopOptions.openBatch`). */
  openBatch: OpenBatchCall[];
  resumed: boolean;
  /** The compaction breaker tripped in an earlier turn of this session. */
  compactionDisabled: boolean;
  /** What the system message left out (a refused AGENTS.md), shown after `run_started`. */
  warnings: SystemPrompt['warnings'];
}

/**
 * A new session's system message, started as soon as the turn is: its environment block (a
 * directory listing, AGENTS.md, `git status` in the sandbox) is read while the turn's config and
 * extensions load. Nothing in it depends on them, and it writes nothing.
 */
function startSystemPrompt(runner: Runner, started?: Promise<string>): Promise<SystemPrompt> {
  const { settings } = runner;
  const system = buildSystemPrompt({
    root: runner.root,
    glassboxHome: settings.home,
    git: () =>
      started ?? gitSnapshot({ root: runner.root, glassboxHome: settings.home, detectSandbox: settings.detectSandbox ?? detectSandbox }),
  });
  // A turn that fails before it opens the session never awaits this.
  system.catch(() => {});
  return system;
}

async function openSession(runner: Runner, request: TurnRequest, systemPrompt: Promise<SystemPrompt> | null): Promise<OpenedSession> {
  const { settings, store } = runner;
  if (request.resume) {
    const sessionId = await store.resolveId(request.resume);
    // Takes the lock, replays, and appends synthetic outputs for calls a crash left unanswered.
    const resumed = await resumeSession(store, sessionId, {
      ...(request.continueRun === true && request.unstartedCalls !== undefined
        ? { runId: request.runId, unstartedCalls: request.unstartedCalls }
        : {}),
      // Its repair appends come before runTurn holds the writer: fenced from the open on.
      ...(request.fence === undefined ? {} : { fence: request.fence }),
    });
    // A fork at turn 0 (how a first turn is retried or edited) has no history at all, so no
    // system message to keep byte for byte: it gets one now, as a new session would.
    const opening = resumed.history.length === 0 ? await startSystemPrompt(runner) : null;
    const open = request.continueRun === true && resumed.lastTurn?.runId === request.runId ? resumed.lastTurn : null;
    if (open !== null && open.items > 0) {
      return {
        writer: resumed.writer,
        history: resumed.history,
        newItems: [],
        turn: open.turn,
        continued: true,
        openBatch: resumed.openBatch,
        resumed: true,
        compactionDisabled: resumed.autoCompactionDisabled,
        warnings: [],
      };
    }
    return {
      writer: resumed.writer,
      history: resumed.history,
      newItems: [...(opening ? [systemMessage(opening.text)] : []), userMessage(planPrompt(request.prompt, request.mode))],
      turn: open?.turn ?? resumed.turns + 1,
      continued: open !== null,
      openBatch: [],
      resumed: true,
      compactionDisabled: resumed.autoCompactionDisabled,
      warnings: opening?.warnings ?? [],
    };
  }
  // The environment snapshot (git status, in the sandbox) is gathered while the session file is created.
  const [writer, system] = await Promise.all([
    store.create({ cwd: runner.root, model: settings.model, wireApi: settings.wireApi, glassboxVersion: glassboxVersion() }),
    systemPrompt ?? startSystemPrompt(runner),
  ]);
  return {
    writer,
    history: [],
    newItems: [systemMessage(system.text), userMessage(planPrompt(request.prompt, request.mode))],
    turn: 1,
    continued: false,
    openBatch: [],
    resumed: false,
    compactionDisabled: false,
    warnings: system.warnings,
  };
}

export async function runTurn(runner: Runner, request: TurnRequest): Promise<TurnResult> {
  const { settings } = runner;
  const policy = planPolicy(turnPolicy(settings, request), request.mode);
  const systemPrompt = request.resume ? null : startSystemPrompt(runner, request.gitSnapshot);
  // Before the session is opened: a bad --compact-at must not leave a started turn behind.
  const compaction = settings.compaction === undefined ? await runner.compaction() : null;
  // Both before the session is opened: a malformed permission rule must not leave a started turn behind.
  const [extensions, permissionRules, hooks] = await Promise.all([
    prepareRunExtensions({
      root: runner.root,
      home: settings.home,
      mcp: settings.mcp !== false,
      telemetry: settings.telemetry ?? null,
      version: glassboxVersion(),
    }),
    readPermissionRules(settings.home, runner.root),
    readTurnHooks(settings.home, runner.root),
  ]);
  // MCP servers start while the session opens; they are stopped however the turn ends.
  const [opened] = await Promise.all([
    openSession(runner, request, systemPrompt).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    ),
    extensions.start(request.signal),
  ]);
  if ('error' in opened) {
    await extensions.close();
    throw opened.error;
  }
  const session = opened.value;
  const revoke = (): void => session.writer.revoke?.('another process holds the session now');
  if (request.fence?.aborted === true) revoke();
  else request.fence?.addEventListener('abort', revoke, { once: true });
  const forward = request.onEvent ?? (() => {});
  const recorder = new SessionRecorder(session.writer, session.turn, forward);
  const observer = extensions.observe(recorder, [...permissionRules.warnings, ...hooks.warnings, ...session.warnings]);
  try {
    if (!session.continued)
      await session.writer.append({
        type: 'turn_started',
        turn: session.turn,
        runId: request.runId,
        prompt: request.prompt,
        policy: { approvalPolicy: policy.approvalPolicy, sandbox: policy.sandbox },
        model: settings.model,
        wireApi: settings.wireApi,
        // Kept so a face shows the threshold this turn ran with, not the one it would resolve now.
        ...(compaction ? { compaction: { inputWindow: compaction.inputWindow, threshold: compaction.threshold } } : {}),
        ...(request.mode === 'plan' ? { mode: 'plan' as const } : {}),
      });
    const state = runner.toolState(session.writer.sessionId);
    const gate = createPermissionGate({
      root: runner.root,
      home: settings.home,
      approvalPolicy: policy.approvalPolicy,
      sandbox: policy.sandbox,
      network: policy.network,
      configRules: permissionRules.rules,
      grants: sessionGrantsOf(state),
      detectSandbox: async () => (await (settings.detectSandbox ?? detectSandbox)()).available,
    });
    const hookRunner = toolHooksFor(hooks, runner, session.writer.sessionId, policy.sandbox);
    const notifications = notifyingApprovals(hookRunner, request.approvals, (event) => observer.onEvent?.(event));
    // The skill tool only for a session whose system message lists skills: it costs every request
    // its definition, and without the list the model has nothing to load.
    const offered = planTools(
      [...toolsOffered(runner.tools, [...session.history, ...session.newItems]), ...extensions.tools],
      request.mode,
    );
    const tools = new ToolRuntime({
      tools:
        settings.checkpoints === false
          ? offered
          : checkpointedTools(offered, { root: runner.root, home: settings.home, state, writer: session.writer, turn: session.turn }),
      root: runner.root,
      state,
      gate,
      approvals: notifications.broker,
      ...(hookRunner ? { hooks: hookRunner.toolHooks } : {}),
    });
    const hasShell = tools.definitions().some((definition) => definition.name === 'shell');
    // What a first call would load or probe before it can start, done while the first request
    // is in flight: the bash grammar (the permission gate classifies every command), and each
    // tool's own preparation under the session's policy for a call that asks for nothing more.
    const prepare = (): void => {
      if (hasShell) loadCommandClassifier().catch(() => {});
      const execution: ExecutionPolicy = {
        mode: policy.sandbox,
        sandboxed: policy.sandbox !== 'danger-full-access',
        network: policy.network,
        secretsApproved: false,
      };
      // A library user's prepare may throw or return nothing: neither may reach the process.
      for (const tool of offered) {
        if (tool.prepare === undefined) continue;
        Promise.resolve()
          .then(() => tool.prepare?.({ root: runner.root, execution }))
          .catch(() => {});
      }
    };
    const terminal = await runSamplingLoop({
      gateway: loadingWhileAnswered(settings.gateway, prepare),
      ...modelSettingsOf(settings),
      sessionId: session.writer.sessionId,
      runId: request.runId,
      resumed: session.resumed,
      history: session.history,
      newItems: session.newItems,
      openBatch: session.openBatch,
      tools,
      signal: request.signal,
      observer,
      // A broken stream's round waits as the gateway's own retries do.
      ...streamRetryOf(settings.gateway),
      responseFormat: settings.responseFormat,
      compaction: promptHooks(
        hookRunner,
        {
          prompt: request.prompt,
          sessionKey: `${runner.store.location}\u0000${session.writer.sessionId}`,
          resumed: session.resumed,
          // A takeover whose turn had recorded its prompt: the hooks passed it then.
          continued: session.continued && session.newItems.length === 0,
        },
        compaction
          ? compactionHooks(runner, compaction, session, observer, toolSchemaTokens(tools.definitions()), preCompactHook(hookRunner))
          : (settings.compaction ?? undefined),
      ),
      maxRounds: settings.maxRounds,
      tokenBudget: settings.tokenBudget,
    });
    await notifications.settle();
    // The terminal event has been emitted: from here on the run's outcome stands, and a failure
    // to finalize the file (turn-end record, fsync, index) is reported beside it, not instead.
    let persistError: string | null = null;
    try {
      await session.writer.append(turnEndRecord(session.turn, request.runId, terminal, recorder.uncommittedText));
      await session.writer.sync();
    } catch (error) {
      // A run that failed because the session could not be written has said so already.
      if (!(terminal.type === 'run_failed' && recorder.writeFailure !== null)) persistError = (error as Error).message;
    }
    try {
      await session.writer.close();
    } catch (error) {
      persistError ??= (error as Error).message;
    }
    return { sessionId: session.writer.sessionId, runId: request.runId, terminal, persistError };
  } catch (error) {
    await session.writer.close().catch(() => {});
    throw error;
  } finally {
    request.fence?.removeEventListener('abort', revoke);
    await extensions.close();
  }
}

/** Approve-for-session grants, one set per session while its runner lives (as its tool state). */
const grantsByState = new WeakMap<ToolSessionState, SessionGrants>();
function sessionGrantsOf(state: ToolSessionState): SessionGrants {
  let grants = grantsByState.get(state);
  if (grants === undefined) {
    grants = new SessionGrants();
    grantsByState.set(state, grants);
  }
  return grants;
}

function streamRetryOf(gateway: ModelGateway): { streamRetry?: { policy: RetryPolicy } } {
  const policy = retryPolicyOf(gateway);
  return policy === undefined ? {} : { streamRetry: { policy } };
}

/**
 * Runs `load` once the turn's first model request is on its way, so the bash grammar behind a
 * shell call's permission check (~100 ms of CPU on first use: docs/benchmarks.md, "First shell
 * call") loads while the model is thinking — idle time with a real model — not after it wrote the
 * command. A turn that never runs a command pays that CPU in time it spent waiting anyway.
 */
function loadingWhileAnswered(gateway: Pick<ModelGateway, 'streamResponse'>, load: () => unknown): Pick<ModelGateway, 'streamResponse'> {
  let started = false;
  return {
    streamResponse(request, options) {
      const stream = gateway.streamResponse(request, options);
      if (started) return stream;
      started = true;
      return (async function* () {
        // The first pull sends the request; the load runs after that write is queued.
        setImmediate(load);
        yield* stream;
      })();
    },
  };
}

/** The hooks for one turn: the breaker is per session, and compactions are filed under this turn. */
function compactionHooks(
  runner: Runner,
  resolved: ResolvedCompaction,
  session: OpenedSession,
  recorder: TurnObserver,
  overheadTokens: number,
  beforeCompact: CompactionDeps['beforeCompact'],
): CompactionHooks {
  const { settings } = runner;
  return createCompactionHooks(compactionSettings(resolved, { overheadTokens, ...settings.compactionTuning }), {
    gateway: settings.gateway,
    persist: async (entry) => {
      await session.writer.append({ type: 'compaction', turn: session.turn, ...entry });
    },
    onModelCall: (call) => recorder.onModelCall(call),
    disabled: session.compactionDisabled,
    ...(beforeCompact ? { beforeCompact } : {}),
  });
}

function turnEndRecord(turn: number, runId: string, terminal: TerminalRunEvent, uncommittedText: string): NewSessionRecord {
  const common = { turn, runId, usage: terminal.usage, rounds: terminal.rounds };
  const partial = uncommittedText.trim() === '' ? {} : { partialText: uncommittedText };
  switch (terminal.type) {
    case 'run_succeeded':
      return { type: 'turn_completed', ...common };
    case 'run_failed':
      return { type: 'turn_failed', ...common, error: terminal.error, ...partial };
    case 'run_cancelled':
      return { type: 'turn_cancelled', ...common, reason: terminal.reason, ...partial };
  }
}
