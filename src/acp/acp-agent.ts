// `glassbox acp`: Glassbox as an Agent Client Protocol agent (JSON-RPC 2.0 over stdio) on the
// official SDK. Every ACP session is an ordinary Glassbox session: `session/new` creates its file
// (so its id is the one `exec --resume` and the workbench know), each `session/prompt` is one
// `runTurn` that resumes it, and `session/load` replays it. Tools, permissions, sandbox and
// compaction are the runner's; the protocol only carries what they do.

import { randomUUID } from 'node:crypto';
import { isAbsolute, join } from 'node:path';
import { statSync } from 'node:fs';
import {
  PROTOCOL_VERSION,
  RequestError,
  agent,
  methods,
  type AgentContext,
  type ContentBlock,
  type InitializeResponse,
  type McpServer,
  type PromptResponse,
  type SessionUpdate,
  type Stream,
  type StopReason,
} from '@agentclientprotocol/sdk';
import { ApprovalRegistry, type TerminalRunEvent } from '../agent/index.js';
import {
  compactSession,
  glassboxVersion,
  openRunner,
  runTurn,
  type Runner,
  type RunnerSettings,
  type ToolPolicySettings,
} from '../runner/index.js';
import { JsonlSessionStore, type SessionStore } from '../sessions/index.js';
import { resolveRoot } from '../workspace/index.js';
import { availableCommands, readCommand } from './acp-commands.js';
import { acpModes, modeState, type AcpMode } from './acp-modes.js';
import { editorFiles, type ClientFiles } from './editor-files.js';
import { historyUpdates } from './history-updates.js';
import { bridgeApprovals } from './permission-bridge.js';
import { RunUpdates, UsageMeter, type UsageLimits } from './run-updates.js';

export interface AcpServerOptions {
  /** The runner settings of every session but its root (the client's cwd). */
  settings: Omit<RunnerSettings, 'root'> & ToolPolicySettings;
  /** Diagnostics: stderr. Stdout carries nothing but protocol messages. */
  log: (line: string) => void;
}

interface AcpSession {
  id: string;
  root: string;
  runner: Runner;
  mode: AcpMode;
  meter: UsageMeter;
  approvals: ApprovalRegistry;
  running: { controller: AbortController; done: Promise<unknown> } | null;
  detach: () => void;
}

/** Failures a turn ends with that ACP names as stop reasons; the rest are errors. */
const STOP_REASONS: Readonly<Record<string, StopReason>> = {
  OUTPUT_TRUNCATED: 'max_tokens',
  TOKEN_BUDGET_EXHAUSTED: 'max_tokens',
  MAX_ROUNDS_REACHED: 'max_turn_requests',
  MODEL_REFUSED: 'refusal',
  CONTENT_FILTERED: 'refusal',
};

/** A turn's end as `session/prompt` answers it: a stop reason, or a JSON-RPC error that says why. */
export function stopReasonOf(terminal: TerminalRunEvent): StopReason {
  if (terminal.type === 'run_succeeded') return 'end_turn';
  if (terminal.type === 'run_cancelled') return 'cancelled';
  const reason = STOP_REASONS[terminal.error.code];
  if (reason !== undefined) return reason;
  throw new RequestError(-32603, `The turn failed [${terminal.error.code}]: ${terminal.error.message}`, { code: terminal.error.code });
}

/** The client's cwd as a project root: absolute, an existing directory, its real path. */
function projectRoot(cwd: string): string {
  if (!isAbsolute(cwd)) throw RequestError.invalidParams({ cwd }, `cwd must be an absolute path, got ${JSON.stringify(cwd)}`);
  let root: string;
  try {
    root = resolveRoot(cwd);
  } catch {
    throw RequestError.invalidParams({ cwd }, `project root ${cwd} does not exist`);
  }
  if (!statSync(root).isDirectory()) throw RequestError.invalidParams({ cwd }, `project root ${cwd} is not a directory`);
  return root;
}

/**
 * MCP servers come from Glassbox's own config (`mcpServers` in `<home>/config.json`, a project's
 * only when pinned there), where their commands are fingerprinted and run under our permissions.
 * A client's list would bypass that pinning, so it is refused rather than silently ignored.
 */
function refuseClientMcp(servers: readonly McpServer[] | undefined): void {
  if (servers === undefined || servers.length === 0) return;
  throw RequestError.invalidParams(
    { mcpServers: servers.map((server) => server.name) },
    "glassbox acp does not take MCP servers from the client: configure them in Glassbox's config.json (mcpServers), where they are pinned and permission-checked",
  );
}

/** The prompt's blocks as the text of one user message. */
function promptText(blocks: readonly ContentBlock[]): string {
  const parts: string[] = [];
  for (const block of blocks) {
    if (block.type === 'text') parts.push(block.text);
    else if (block.type === 'resource_link') parts.push(`[${block.name}](${block.uri})`);
    else if (block.type === 'resource' && 'text' in block.resource) {
      parts.push(`<context uri=${JSON.stringify(block.resource.uri)}>\n${block.resource.text}\n</context>`);
    } else
      throw RequestError.invalidParams(
        { type: block.type },
        `glassbox acp takes text and embedded text resources, not ${block.type} content`,
      );
  }
  return parts.join('\n\n');
}

export interface AcpServer {
  /** Resolves once the connection closed and every running turn ended (its session file closed). */
  closed: Promise<void>;
}

export function serveAcp(stream: Stream, options: AcpServerOptions): AcpServer {
  const { settings, log } = options;
  const sessions = new Map<string, AcpSession>();
  const { modes, initial } = acpModes(settings);
  let compactionUpdates = false;
  let clientFiles: ClientFiles = { read: false, write: false };

  const notify = (client: AgentContext, sessionId: string, update: SessionUpdate): Promise<void> =>
    client.notify(methods.client.session.update, { sessionId, update }).catch(() => {});

  async function openAcpSession(client: AgentContext, root: string, sessionId: string | null, opened?: Runner): Promise<AcpSession> {
    const runner = opened ?? (await openRunner({ ...settings, root }));
    let limits: UsageLimits | null = null;
    try {
      const resolved = await runner.compaction();
      limits = { window: resolved.inputWindow, entry: resolved.modelEntry };
    } catch (error) {
      log(`glassbox: ${(error as Error).message}`);
    }
    let id = sessionId;
    if (id === null) {
      // The session file exists from `session/new` on, so its id is the ACP session id, and a
      // session the editor never prompted is still there to load.
      const writer = await runner.store.create({
        cwd: root,
        model: settings.model,
        wireApi: settings.wireApi,
        glassboxVersion: glassboxVersion(),
      });
      id = writer.sessionId;
      await writer.close();
    }
    const approvals = new ApprovalRegistry();
    const acpId = id;
    // The file tools go through the editor when it offers its files (after their path policy).
    const files = editorFiles(clientFiles, acpId, client);
    if (files !== null) runner.toolState(acpId).editorFiles = files;
    const detach = bridgeApprovals(approvals, {
      sessionId: acpId,
      root,
      log,
      request: (params, signal) =>
        client.request(methods.client.session.requestPermission, params, { cancellationSignal: signal, stopWaitingOnCancel: true }),
    });
    const session: AcpSession = { id: acpId, root, runner, mode: initial, meter: new UsageMeter(limits), approvals, running: null, detach };
    sessions.set(acpId, session);
    return session;
  }

  /**
   * The meter a replay counts into: a new one, so loading a session twice does not count its
   * calls twice; a running turn keeps counting into its own.
   */
  function freshMeter(session: AcpSession): UsageMeter {
    const meter = new UsageMeter(session.meter.limits);
    if (session.running === null) session.meter = meter;
    return meter;
  }

  /** After the answer that names the session, so the client knows which session they are for. */
  function offerCommands(client: AgentContext, session: AcpSession): void {
    void availableCommands(session.root, settings.home).then(({ commands, warnings }) => {
      for (const warning of warnings) log(`glassbox: warning: ${warning}`);
      setImmediate(() => void notify(client, session.id, { sessionUpdate: 'available_commands_update', availableCommands: commands }));
    });
  }

  /** `/compact`: the session's history summarized now (`compactSession`, as `glassbox compact`). */
  async function compactNow(
    session: AcpSession,
    instructions: string | null,
    updates: RunUpdates,
    signal: AbortSignal,
  ): Promise<PromptResponse> {
    const say = (text: string): Promise<void> => updates.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
    try {
      const event = await compactSession({
        runner: session.runner,
        sessionId: session.id,
        signal,
        onEvent: (e) => updates.handle(e),
        ...(instructions === null ? {} : { instructions }),
      });
      await updates.flush();
      await say(
        `Compacted the conversation: about ${event.tokensBefore.toLocaleString('en-US')} → ${event.tokensAfter.toLocaleString('en-US')} tokens.`,
      );
      return { stopReason: 'end_turn' };
    } catch (error) {
      await updates.flush();
      if (signal.aborted) return { stopReason: 'cancelled' };
      await say(`Not compacted: ${(error as Error)?.message ?? String(error)}`);
      return { stopReason: 'end_turn' };
    }
  }

  let listStore: SessionStore | null = null;
  /** The store sessions are listed from: the one every runner of this process writes to. */
  const store = (): SessionStore => (listStore ??= settings.store ?? new JsonlSessionStore(join(settings.home, 'sessions')));

  function sessionOf(sessionId: string): AcpSession {
    const session = sessions.get(sessionId);
    if (session === undefined) throw new RequestError(-32002, `no such session: ${sessionId} (session/new or session/load it first)`);
    return session;
  }

  const app = agent({ name: 'glassbox' })
    .onRequest(methods.agent.initialize, ({ params }): InitializeResponse => {
      compactionUpdates = params.clientCapabilities?.session?.compaction != null;
      clientFiles = {
        read: params.clientCapabilities?.fs?.readTextFile === true,
        write: params.clientCapabilities?.fs?.writeTextFile === true,
      };
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentInfo: { name: 'glassbox', title: 'Glassbox', version: glassboxVersion() },
        authMethods: [],
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: false, audio: false, embeddedContext: true },
          // No MCP servers from the client, over any transport (see refuseClientMcp).
          mcpCapabilities: { http: false, sse: false },
          sessionCapabilities: { close: {}, resume: {}, list: {} },
          _meta: {
            glassbox: {
              clientMcpServers: false,
              // read_file, write_file and edit_file go through fs/* when the client offers them.
              editorFileSystem: true,
            },
          },
        },
      };
    })
    .onRequest(methods.agent.session.new, async ({ params, client }) => {
      const root = projectRoot(params.cwd);
      refuseClientMcp(params.mcpServers);
      const session = await openAcpSession(client, root, null);
      offerCommands(client, session);
      return { sessionId: session.id, modes: modeState(modes, session.mode) };
    })
    .onRequest(methods.agent.session.load, async ({ params, client }) => {
      const session = await reopen(client, params.sessionId, params.cwd, params.mcpServers);
      const { records } = await session.runner.store.read(session.id);
      for (const update of historyUpdates(records, session.root, freshMeter(session))) await notify(client, session.id, update);
      offerCommands(client, session);
      return { modes: modeState(modes, session.mode) };
    })
    .onRequest(methods.agent.session.resume, async ({ params, client }) => {
      const session = await reopen(client, params.sessionId, params.cwd, params.mcpServers);
      const { records } = await session.runner.store.read(session.id);
      // No replay, only where the session stands.
      const usage = historyUpdates(records, session.root, freshMeter(session)).findLast((u) => u.sessionUpdate === 'usage_update') ?? null;
      if (usage !== null) await notify(client, session.id, usage);
      return { modes: modeState(modes, session.mode) };
    })
    .onRequest(methods.agent.session.list, async ({ params }) => {
      // Sessions of every face (exec, the terminal, the workbench, ACP), newest first; with a cwd,
      // only that project's (by its real path, as sessions record it).
      let cwd: string | null = null;
      if (params.cwd != null) {
        try {
          cwd = resolveRoot(params.cwd);
        } catch {
          return { sessions: [] };
        }
      }
      const page = await store().list({ limit: 50, cursor: params.cursor ?? null });
      return {
        sessions: page.sessions
          .filter((summary) => cwd === null || summary.cwd === cwd)
          .map((summary) => ({
            sessionId: summary.sessionId,
            cwd: summary.cwd,
            title: summary.title || null,
            updatedAt: summary.updatedAt,
          })),
        nextCursor: page.nextCursor,
      };
    })
    .onRequest(methods.agent.session.close, async ({ params }) => {
      const session = sessionOf(params.sessionId);
      session.running?.controller.abort('Cancelled: the client closed the session.');
      await session.running?.done;
      session.detach();
      sessions.delete(session.id);
      return {};
    })
    .onRequest(methods.agent.session.setMode, async ({ params, client }) => {
      const session = sessionOf(params.sessionId);
      const mode = modes.find((m) => m.id === params.modeId);
      if (mode === undefined)
        throw RequestError.invalidParams(
          { modeId: params.modeId },
          `unknown mode ${JSON.stringify(params.modeId)}; use one of ${modes.map((m) => m.id).join(', ')}`,
        );
      session.mode = mode;
      await notify(client, session.id, { sessionUpdate: 'current_mode_update', currentModeId: mode.id });
      return {};
    })
    .onNotification(methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.running?.controller.abort('Cancelled by the client (session/cancel).');
    })
    .onRequest(methods.agent.session.prompt, async ({ params, client }): Promise<PromptResponse> => {
      const session = sessionOf(params.sessionId);
      if (session.running !== null)
        throw RequestError.invalidRequest({ sessionId: session.id }, 'a prompt is already running in this session; cancel it first');
      const prompt = promptText(params.prompt);
      if (prompt.trim() === '') throw RequestError.invalidParams({}, 'the prompt is empty');
      const controller = new AbortController();
      const updates = new RunUpdates({
        root: session.root,
        meter: session.meter,
        compaction: compactionUpdates,
        send: (update) => notify(client, session.id, update),
        log,
      });
      const { prompts } = await availableCommands(session.root, settings.home);
      const command = readCommand(prompt, prompts);
      if (command.kind === 'empty-plan') throw RequestError.invalidParams({}, '/plan needs the task to plan: /plan <task>');
      if (command.kind === 'compact') {
        const done = compactNow(session, command.instructions, updates, controller.signal);
        session.running = { controller, done };
        try {
          return await done;
        } finally {
          session.running = null;
        }
      }
      const turn = runTurn(session.runner, {
        prompt: command.prompt,
        ...(command.mode === undefined ? {} : { mode: command.mode }),
        resume: session.id,
        runId: randomUUID(),
        signal: controller.signal,
        approvals: session.approvals,
        onEvent: (event) => updates.handle(event),
        policy: { ...session.mode.policy, network: settings.network },
      });
      session.running = { controller, done: turn.catch(() => {}) };
      try {
        const result = await turn;
        if (result.persistError !== null) log(`glassbox: warning: the session file could not be finalized: ${result.persistError}`);
        await updates.flush();
        return { stopReason: stopReasonOf(result.terminal) };
      } catch (error) {
        if (error instanceof RequestError) throw error;
        throw RequestError.internalError(undefined, (error as Error)?.message ?? String(error));
      } finally {
        session.running = null;
      }
    });

  async function reopen(
    client: AgentContext,
    sessionId: string,
    cwd: string,
    mcpServers: readonly McpServer[] | undefined,
  ): Promise<AcpSession> {
    const root = projectRoot(cwd);
    refuseClientMcp(mcpServers);
    const open = sessions.get(sessionId);
    if (open !== undefined) {
      if (open.root !== root) throw RequestError.invalidParams({ cwd }, `session ${sessionId} is open in ${open.root}, not ${root}`);
      return open;
    }
    const runner = await openRunner({ ...settings, root });
    const read = await runner.store.read(sessionId).catch(() => null);
    if (read === null) throw new RequestError(-32002, `no such session: ${sessionId}`);
    if (read.meta.cwd !== root) throw RequestError.invalidParams({ cwd }, `session ${sessionId} belongs to ${read.meta.cwd}, not ${root}`);
    const session = await openAcpSession(client, root, sessionId, runner);
    // The mode its last turn ran in, when that is one of ours: a reopened session goes on as it was.
    const last = read.records.findLast((record) => record.type === 'turn_started');
    const mode =
      last?.type === 'turn_started'
        ? modes.find((m) => m.policy.sandbox === last.policy.sandbox && m.policy.approvalPolicy === last.policy.approvalPolicy)
        : undefined;
    if (mode !== undefined) session.mode = mode;
    return session;
  }

  const connection = app.connect(stream);
  const closed = connection.closed.then(async () => {
    // The editor went away: running turns are cancelled (pending approvals with them) and awaited,
    // so each session file gets its end record.
    for (const session of sessions.values()) session.running?.controller.abort('Cancelled: the client disconnected.');
    await Promise.all([...sessions.values()].map((session) => session.running?.done));
    for (const session of sessions.values()) session.detach();
  });
  return { closed };
}
