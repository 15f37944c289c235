// `createServer`: the Hono app with its guards and routes, the run manager and approval registry
// behind it, and `listen`/`close` around a Node HTTP server.

import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { z } from 'zod';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ApprovalRegistry, type AnyTool, type TerminalRunEvent } from '../agent/index.js';
import { glassboxVersion, openRunner, runTurn, type Runner, type RunnerSettings } from '../runner/index.js';
import { JsonlSessionStore } from '../sessions/index.js';
import { emptyUsage, modelSettingsOf } from '../model/index.js';
import type { Health, ModelsInfo } from '../protocol/index.js';
import { accessTokenProblem, generateAccessToken, tokenCookie, tokensMatch } from './access-token.js';
import { CompactionBridge } from './compaction-bridge.js';
import { HttpError, toHttpError } from './http-error.js';
import { queryObject, RequestAbortedError, validate } from './json-body.js';
import { authGuard, hostGuard } from './request-guard.js';
import { createPgTeam } from './pg-team.js';
import type { ApprovalDesk, RunBackend } from './run-backend.js';
import { RunManager, type RunParameters, type TurnHooks } from './run-manager.js';
import { prepareRunProject, RunProjectError, type PreparedProject } from './run-project.js';
import { registerRunRoutes } from './run-routes.js';
import type { ServerContext } from './server-context.js';
import { clampToCaps, type ServerSettings } from './server-settings.js';
import { registerSessionRoutes } from './session-routes.js';
import { DEFAULT_HEARTBEAT_MS } from './sse-response.js';
import { acceptsGzip, DEFAULT_WEB_ROOT, PAGE_SECURITY_HEADERS, WorkbenchFiles } from './workbench-files.js';

export interface ListeningAddress {
  /** The URL to open: it carries the token, which the first visit trades for a cookie. */
  url: string;
  /** `http://host:port`, without the token. */
  origin: string;
  port: number;
  token: string;
}

export interface GlassboxServer {
  readonly app: Hono;
  readonly token: string;
  readonly runs: RunBackend;
  readonly approvals: ApprovalDesk;
  /** This process's worker id when it works a team's runs; null otherwise. */
  readonly workerId: string | null;
  listen(): Promise<ListeningAddress>;
  /**
   * Cancel active runs (a team worker's: hand them over after its stop grace, which `hurry` cuts
   * short), end every stream and stop listening. Idempotent.
   */
  close(hurry?: Promise<void>): Promise<void>;
}

const SHUTDOWN_REASON = 'The server is shutting down.';
const NO_QUERY = z.strictObject({});
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

function defaultLog(message: string): void {
  process.stderr.write(`glassbox serve: ${message}\n`);
}

function urlHost(host: string): string {
  if (WILDCARD_HOSTS.has(host)) return '127.0.0.1';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

export function createServer(settings: ServerSettings): GlassboxServer {
  const token = settings.token ?? generateAccessToken();
  const tokenProblem = accessTokenProblem(token);
  if (tokenProblem !== null) throw Object.assign(new Error(tokenProblem), { exitCode: 2 });
  const host = settings.host ?? '127.0.0.1';
  const log = settings.log ?? defaultLog;
  const store = settings.store ?? new JsonlSessionStore(join(settings.home, 'sessions'));
  const defaults = clampToCaps(settings.defaults, settings.caps);
  const compaction = new CompactionBridge(settings);
  // Aborted by `close`, so a manual compaction's model call does not outlive the server.
  const shutdown = new AbortController();
  const approvals = new ApprovalRegistry(settings.approvalTimeoutMs);

  const runnerSettings = (parameters: RunParameters | undefined, root = settings.root): RunnerSettings => ({
    root,
    home: settings.home,
    ...modelSettingsOf({ ...settings, model: parameters?.model ?? settings.model, wireApi: parameters?.wireApi ?? settings.wireApi }),
    gateway: settings.gatewayFor(parameters?.wireApi ?? settings.wireApi),
    sandbox: parameters?.sandbox ?? defaults.sandbox,
    approvalPolicy: parameters?.approvalPolicy ?? defaults.approvalPolicy,
    network: settings.network,
    maxRounds: settings.maxRounds,
    tokenBudget: settings.tokenBudget,
    telemetry: settings.telemetry ?? null,
    compactAt: parameters?.compactAt ?? settings.compactAt,
    contextWindow: settings.contextWindow,
    store,
    tools: settings.tools,
    compaction: settings.compaction,
  });
  const openServerRunner = (parameters?: RunParameters): Promise<Runner> => openRunner(runnerSettings(parameters));
  let toolList: Promise<readonly AnyTool[]> | null = null;

  const startTurn = async (
    parameters: RunParameters,
    hooks: TurnHooks & {
      continueRun?: boolean;
      leaseLost?: AbortSignal;
      unstartedCalls?: (callIds: readonly string[]) => Promise<ReadonlySet<string>>;
    },
  ): Promise<{ terminal: TerminalRunEvent }> => {
    let project: PreparedProject;
    try {
      // Queued before this field existed: the server's root.
      project = await prepareRunProject(parameters.project ?? null, settings, hooks.runId);
    } catch (error) {
      if (!(error instanceof RunProjectError)) throw error;
      return {
        terminal: {
          type: 'run_failed',
          error: { code: error.code, message: error.message },
          usage: { total: emptyUsage(), byStage: {}, calls: 0 },
          rounds: 0,
        },
      };
    }
    try {
      const runner = await openRunner(runnerSettings(parameters, project.root));
      return await runTurn(runner, {
        prompt: parameters.prompt,
        resume: parameters.sessionId,
        runId: hooks.runId,
        signal: hooks.signal,
        approvals: hooks.approvals,
        onEvent: hooks.onEvent,
        continueRun: hooks.continueRun,
        ...(hooks.leaseLost === undefined ? {} : { fence: hooks.leaseLost }),
        ...(hooks.unstartedCalls === undefined ? {} : { unstartedCalls: hooks.unstartedCalls }),
      });
    } finally {
      // Not when the lease was lost or the run handed over: the worker that takes it over continues in the worktree.
      if (hooks.leaseLost?.aborted !== true) await project.cleanup();
    }
  };
  // A team's runs go through PostgreSQL (any server streams any run); by default they run here.
  const team =
    settings.team === undefined ? null : createPgTeam(settings.team, startTurn, { approvalTimeoutMs: settings.approvalTimeoutMs, log });
  const runs: RunBackend = team?.runs ?? new RunManager({ approvals, keepFinishedRuns: settings.keepFinishedRuns, log, startTurn });
  const approvalDesk: ApprovalDesk = team?.approvals ?? approvals;

  let boundPort: number | null = null;
  const context: ServerContext = {
    settings,
    defaults,
    runs,
    approvals: approvalDesk,
    store,
    compaction,
    heartbeatMs: settings.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
    version: glassboxVersion(),
    shutdownSignal: shutdown.signal,
    openRunner: openServerRunner,
    tools: () => {
      toolList ??= openServerRunner().then(
        (runner) => runner.tools,
        (error: unknown) => {
          // Not cached: the cause (a broken config.json) may be fixed by the next request.
          toolList = null;
          throw error;
        },
      );
      return toolList;
    },
  };

  const app = new Hono();
  const workbench = new WorkbenchFiles(settings.webRoot ?? DEFAULT_WEB_ROOT);

  app.onError((error, c) => {
    if (error instanceof RequestAbortedError) {
      // Routine (a closed tab, a killed script): one line per request, not a stack trace.
      log(`${c.req.method} ${JSON.stringify(c.req.path)}: ${error.message}; request dropped`);
      return c.json({ error: error.message }, 400);
    }
    const known = toHttpError(error);
    if (known !== null) return c.json(known.body(), known.status);
    // Only the message and stack: request bodies and headers (which hold the token) are never logged.
    log(
      `internal error on ${c.req.method} ${JSON.stringify(c.req.path)}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    return c.json({ error: 'internal server error; see the server log' }, 500);
  });

  app.notFound((c) => {
    if (c.req.path.startsWith('/api/') || c.req.path === '/api') return c.json({ error: `no route ${c.req.method} ${c.req.path}` }, 404);
    return c.text('not found', 404, PAGE_SECURITY_HEADERS);
  });

  app.use('*', hostGuard({ bindHost: host, port: () => boundPort }));
  app.use('/api/*', authGuard(token));

  app.get('/api/health', (c) => {
    validate(NO_QUERY, queryObject(c), 'query');
    return c.json({
      ok: true,
      version: context.version,
      model: settings.model,
      wireApi: settings.wireApi,
      demo: settings.demo,
      root: settings.root,
    } satisfies Health);
  });

  app.get('/api/models', async (c) => {
    validate(NO_QUERY, queryObject(c), 'query');
    const limits = await compaction.modelLimits(settings.model);
    return c.json({
      models: [{ id: settings.model, contextWindow: limits.contextWindow, maxOutputTokens: limits.maxOutputTokens }],
      defaults: { model: settings.model, wireApi: settings.wireApi, sandbox: defaults.sandbox, approvalPolicy: defaults.approvalPolicy },
      caps: { sandbox: settings.caps.sandbox, approvalPolicy: settings.caps.approvalPolicy },
    } satisfies ModelsInfo);
  });

  registerRunRoutes(app, context);
  registerSessionRoutes(app, context);

  app.get('/assets/*', async (c) => {
    const file = await workbench.asset(c.req.path.slice('/assets/'.length));
    if (file === null) return c.text('not found', 404, PAGE_SECURITY_HEADERS);
    const headers: Record<string, string> = {
      ...PAGE_SECURITY_HEADERS,
      'content-type': file.contentType,
      // Hashed names change with their content, so the browser may keep them for good.
      'cache-control': file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      vary: 'accept-encoding',
    };
    if (file.gzip && acceptsGzip(c.req.header('accept-encoding'))) {
      return c.body(file.gzip, 200, { ...headers, 'content-encoding': 'gzip' });
    }
    return c.body(file.body, 200, headers);
  });

  // `/` and client-side routes of the workbench (paths without a file extension).
  app.get('*', async (c) => {
    if (c.req.path.startsWith('/api/')) throw new HttpError(404, `no route GET ${c.req.path}`);
    const offered = c.req.query('token');
    if (c.req.path === '/' && offered !== undefined) {
      if (!tokensMatch(token, offered))
        return c.text('wrong access token: open the URL glassbox serve printed', 401, PAGE_SECURITY_HEADERS);
      // Trade the token for a cookie and drop it from the address bar (and from history).
      return c.body(null, 302, { ...PAGE_SECURITY_HEADERS, location: '/', 'set-cookie': tokenCookie(token), 'cache-control': 'no-store' });
    }
    const last = c.req.path.slice(c.req.path.lastIndexOf('/') + 1);
    if (last.includes('.')) return c.text('not found', 404, PAGE_SECURITY_HEADERS);
    const page = await workbench.index();
    return c.body(page.body, 200, { ...PAGE_SECURITY_HEADERS, 'content-type': page.contentType, 'cache-control': 'no-store' });
  });

  let server: ServerType | null = null;
  let closing: Promise<void> | null = null;

  const listen = (): Promise<ListeningAddress> => {
    if (server !== null) return Promise.reject(new Error('the server is already listening'));
    return new Promise((resolve, reject) => {
      const started = serve(
        { fetch: app.fetch, port: settings.port ?? 4100, hostname: host, overrideGlobalObjects: false },
        (info: AddressInfo) => {
          started.off('error', reject);
          boundPort = info.port;
          const origin = `http://${urlHost(host)}:${info.port}`;
          resolve({ url: `${origin}/?token=${token}`, origin, port: info.port, token });
        },
      );
      started.once('error', (error) => {
        server = null;
        reject(error);
      });
      server = started;
    });
  };

  const close = (hurry?: Promise<void>): Promise<void> => {
    closing ??= (async () => {
      shutdown.abort(SHUTDOWN_REASON);
      await runs.close(SHUTDOWN_REASON);
      await team?.close(SHUTDOWN_REASON, hurry);
      const current = server as Server | null;
      if (current === null || !current.listening) return;
      await new Promise<void>((resolve) => {
        current.close(() => resolve());
        // Streams have ended with their runs; what is left is idle keep-alive sockets.
        current.closeAllConnections();
      });
    })();
    return closing;
  };

  return { app, token, runs, approvals: approvalDesk, workerId: team?.workerId ?? null, listen, close };
}
