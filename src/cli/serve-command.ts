// `glassbox serve`: the workbench and its HTTP + SSE API on loopback. The server's --sandbox and
// --approval-policy are caps on what a browser may ask for; runs default to read-only/on-request.
// The URL with the access token goes to stdout (one line, easy to script); everything else to stderr.
// Registering the command loads nothing heavy: the model, runner and server load when it runs.

import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import type { ModelGateway, WireApi } from '../model/index.js';
import { addModelOptions } from './model-options.js';
import type { ModelOptionValues } from './run-config.js';
import { EXIT, UsageError } from './usage-error.js';
import { databaseUrlOption, forgetDatabaseUrlVariable, openSessionStore, resolveDatabaseUrl } from './session-store-option.js';

/** The team's run lease (and, on a team server, the session lease): a dead worker's run moves on after this. */
const TEAM_LEASE_MS = 5_000;

export interface ServeCliOptions extends ModelOptionValues {
  databaseUrl?: string;
  port?: string;
  host?: string;
  open?: boolean;
  token?: string;
  sandbox?: string;
  approvalPolicy?: string;
  network?: boolean;
  compactAt?: string;
  contextWindow?: string;
  maxRounds?: string;
  tokenBudget?: string;
  otlpEndpoint?: string;
  traceContent?: boolean;
  /** `--no-worker`: with a database, serve the API only and leave the runs to workers. */
  worker?: boolean;
  /** `glassbox worker`: work a team's runs, serve nothing. */
  workerOnly?: boolean;
  /** `--project-root` (repeatable): directories a run may name as its project, with what is under them. */
  projectRoot?: string[];
  /** `--repository` (repeatable): repositories a run may name, as written. */
  repository?: string[];
  /** `--work-dir`: mirrors and worktrees of repository runs. */
  workDir?: string;
  /** Team lease in ms (tests; default 5 s). */
  leaseMs?: string;
  /** `--stop-grace <seconds>`: how long a stopping team worker lets its runs go on (default 10). */
  stopGrace?: string;
}

export interface ServeIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Resolves when the server should stop; default: the first SIGINT or SIGTERM. */
  stopSignal?: Promise<void>;
}

export function registerServeCommand(program: Command): Command {
  return addModelOptions(program.command('serve').description('serve the workbench and its HTTP API on this machine'))
    .option('--port <port>', 'port to listen on; 0 picks a free one', '4100')
    .option('--host <host>', 'address to bind (keep the loopback default unless you know why)', '127.0.0.1')
    .option('--open', 'open the workbench in the default browser')
    .addOption(
      new Option(
        '--token <token>',
        'fixed access token (default: "server.token" in <home>/config.json, else a new random one per start)',
      ).env('GLASSBOX_TOKEN'),
    )
    .option(
      '--sandbox <mode>',
      'the most permissive sandbox a run may use: read-only | workspace-write | danger-full-access (default workspace-write)',
    )
    .option(
      '--approval-policy <policy>',
      'the most permissive approval policy a run may use: untrusted | on-request | never (default on-request)',
    )
    .option('--network', 'allow network access inside the sandbox')
    .option('--max-rounds <n>', 'stop each run after N model rounds')
    .option('--token-budget <n>', 'stop each run once it has used N tokens')
    .option('--otlp-endpoint <url>', 'export an OpenTelemetry trace of every run over OTLP/HTTP (default: OTEL_EXPORTER_OTLP_ENDPOINT)')
    .option('--trace-content', 'attach prompts, answers, tool arguments and results to the traces')
    .option('--project-root <dir>', 'a directory runs may name as their project, or one under it (repeatable)', collect, [])
    .option('--repository <url-or-path>', 'a repository runs may name with a ref; checked out per run (repeatable)', collect, [])
    .option('--work-dir <dir>', "where repository runs' mirrors and worktrees live (default: the home's path + -work)")
    .addOption(databaseUrlOption())
    .option('--no-worker', 'with --database-url: serve the API only; `glassbox worker` processes work the runs')
    .option(
      '--stop-grace <seconds>',
      'with --database-url: on the first SIGINT/SIGTERM let running runs finish for up to this long before handing them to the other workers (a run waiting for an approval goes at once; a second signal hands all over); default 10',
    )
    .addOption(new Option('--lease-ms <ms>').hideHelp())
    .action(async (options: ServeCliOptions) => {
      process.exitCode = await serveCommand(options, { stdout: process.stdout, stderr: process.stderr });
    });
}

/** `glassbox worker --database-url …`: works a team server's queued runs; no HTTP. */
export function registerWorkerCommand(program: Command): Command {
  return addModelOptions(program.command('worker').description("work the runs a team's servers queue in PostgreSQL (docs/team-server.md)"))
    .option('--sandbox <mode>', 'the most permissive sandbox a run may use (default workspace-write)')
    .option('--approval-policy <policy>', 'the most permissive approval policy a run may use (default on-request)')
    .option('--network', 'allow network access inside the sandbox')
    .option('--max-rounds <n>', 'stop each run after N model rounds')
    .option('--token-budget <n>', 'stop each run once it has used N tokens')
    .option('--otlp-endpoint <url>', 'export an OpenTelemetry trace of every run over OTLP/HTTP')
    .option('--trace-content', 'attach prompts, answers, tool arguments and results to the traces')
    .option('--project-root <dir>', 'a directory runs may name as their project, or one under it (repeatable)', collect, [])
    .option('--repository <url-or-path>', 'a repository runs may name with a ref; checked out per run (repeatable)', collect, [])
    .option('--work-dir <dir>', "where repository runs' mirrors and worktrees live (default: the home's path + -work)")
    .addOption(databaseUrlOption())
    .option(
      '--stop-grace <seconds>',
      'with --database-url: on the first SIGINT/SIGTERM let running runs finish for up to this long before handing them to the other workers (a run waiting for an approval goes at once; a second signal hands all over); default 10',
    )
    .addOption(new Option('--lease-ms <ms>').hideHelp())
    .action(async (options: ServeCliOptions) => {
      process.exitCode = await serveCommand(
        { ...options, workerOnly: true, port: '0' },
        { stdout: process.stdout, stderr: process.stderr },
      );
    });
}

/** Absolute and existing: a root that does not exist would refuse every run that names it. */
function projectRoots(values: readonly string[] | undefined): string[] {
  return (values ?? []).map((value) => {
    const root = resolve(value);
    if (!existsSync(root) || !statSync(root).isDirectory()) throw new UsageError(`--project-root ${value} is not a directory`);
    return root;
  });
}

/** A stopping team worker's runs go on this long before they are handed over. */
const DEFAULT_STOP_GRACE_MS = 10_000;

function stopping(graceMs: number): string {
  return graceMs === 0
    ? 'handing active runs to the other workers'
    : `active runs finish here for up to ${graceMs / 1000} s, then go to the other workers; signal again to hand them over now`;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function parsePort(value: string | undefined): number {
  const text = (value ?? '4100').trim();
  const port = Number(text);
  if (!/^\d{1,5}$/.test(text) || port > 65_535) throw new UsageError(`--port expects a port number from 0 to 65535, got "${value}"`);
  return port;
}

/** The first SIGINT or SIGTERM (`promise`) and the second (`again`: stop waiting for the runs). */
function firstSignal(): { promise: Promise<void>; again: Promise<void>; dispose(): void } {
  let count = 0;
  let first = (): void => {};
  let second = (): void => {};
  const promise = new Promise<void>((resolve) => (first = resolve));
  const again = new Promise<void>((resolve) => (second = resolve));
  const onSignal = (): void => {
    count += 1;
    (count === 1 ? first : second)();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const dispose = (): void => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  return { promise, again, dispose };
}

/**
 * Best effort: a missing opener or a headless machine is not an error, the URL is printed anyway.
 * The opener comes from a system directory, not PATH, where a project's `.venv/bin` or
 * `node_modules/.bin` could hold one a sandboxed command wrote (sandbox/'s trusted-program.ts).
 */
async function openBrowser(url: string): Promise<void> {
  const [name, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]];
  try {
    let command = name;
    if (process.platform !== 'win32') {
      const { findTrustedProgram } = await import('../sandbox/index.js');
      const found = await findTrustedProgram(name);
      if (found.path === null) return;
      command = found.path;
    }
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
  } catch {
    // ignored: see above
  }
}

export async function serveCommand(options: ServeCliOptions, io: ServeIo): Promise<number> {
  const { parseApprovalPolicy, parsePositiveInt, parseSandboxMode, parseStopGrace, resolveCommonConfig } = await import('./run-config.js');
  const config = resolveCommonConfig(options);
  // Read once and out of the environment before any child (a run's tools, the browser opener) starts.
  const databaseUrl = resolveDatabaseUrl(options.databaseUrl, config.home);
  forgetDatabaseUrlVariable();
  if (options.workerOnly && databaseUrl === undefined)
    throw new UsageError('glassbox worker needs --database-url (or GLASSBOX_DATABASE_URL)');
  if (options.worker === false && databaseUrl === undefined)
    throw new UsageError('--no-worker needs --database-url: without a database, runs run in serve');
  const leaseMs = parsePositiveInt(options.leaseMs, '--lease-ms');
  const stopGraceMs = parseStopGrace(options.stopGrace) ?? DEFAULT_STOP_GRACE_MS;
  const port = parsePort(options.port);
  const host = (options.host ?? '127.0.0.1').trim();
  if (host === '') throw new UsageError('--host must not be empty');
  const caps = {
    sandbox: parseSandboxMode(options.sandbox, 'workspace-write'),
    approvalPolicy: parseApprovalPolicy(options.approvalPolicy, 'on-request'),
  };
  const maxRounds = parsePositiveInt(options.maxRounds, '--max-rounds');
  const pgModule = databaseUrl === undefined ? null : (await import('pg')).default;
  const tokenBudget = parsePositiveInt(options.tokenBudget, '--token-budget');
  // A bad endpoint is a usage error before the server starts; reads the environment only.
  const { resolveTelemetrySettings } = await import('../telemetry/index.js');
  const telemetry = resolveTelemetrySettings({ otlpEndpoint: options.otlpEndpoint, traceContent: options.traceContent });
  const { accessTokenProblem, createServer } = await import('../server/index.js');
  const { resolveServerToken } = await import('./server-token-config.js');
  const configured = resolveServerToken(options.token, config.home);
  if (configured !== undefined) {
    const problem = accessTokenProblem(configured.token);
    if (problem !== null) throw new UsageError(`${configured.source}: ${problem}`);
  }

  // A bad --compact-at, --context-window or <home>/config.json is a usage error before anything starts.
  const { readCompactionConfig, resolveCompactionSettings } = await import('../compaction/index.js');
  resolveCompactionSettings({
    model: config.model,
    contextWindow: options.contextWindow,
    compactAt: options.compactAt,
    config: await readCompactionConfig(config.home),
  });
  const { configKeyWarnings } = await import('./config-key-warnings.js');
  for (const warning of await configKeyWarnings(config.home, config.root)) io.stderr.write(`glassbox: warning: ${warning}\n`);
  const { openModel } = await import('./open-model.js');
  const { createGateway, dialectOf, modelSettingsOf, sameProvider } = await import('../model/index.js');
  const model = await openModel(config, { stderr: io.stderr });
  // The configured wire API's gateway is the opened one. The other OpenAI dialect talks to the same
  // endpoint with the same key (and the demo provider answers every wire); the anthropic dialect and
  // the OpenAI ones are different providers, so switching between them takes that provider's own
  // key and endpoint from the environment (ANTHROPIC_API_KEY / OPENAI_API_KEY and their *_BASE_URL).
  const { resolveModelConfig } = await import('./run-config.js');
  const gateways = new Map<WireApi, ModelGateway>([[config.wireApi, model.gateway]]);
  const gatewayFor = (wireApi: WireApi): ModelGateway => {
    let gateway = gateways.get(wireApi);
    if (gateway === undefined) {
      if (config.demo || sameProvider(wireApi, config.wireApi)) {
        gateway = createGateway({
          wireApi,
          baseURL: model.gateway.baseURL,
          apiKey: config.apiKey,
          streamIdleTimeoutMs: config.streamIdleTimeoutMs,
        });
      } else {
        const other = resolveModelConfig({ wireApi, streamIdleTimeout: options.streamIdleTimeout });
        if (other.baseURL === null) {
          throw new Error(
            `The ${wireApi} wire API needs ${dialectOf(wireApi).provider.keyVariable} (or its base URL variable) set where glassbox serve runs.`,
          );
        }
        gateway = createGateway({ wireApi, baseURL: other.baseURL, apiKey: other.apiKey, streamIdleTimeoutMs: other.streamIdleTimeoutMs });
      }
      gateways.set(wireApi, gateway);
    }
    return gateway;
  };

  const signal =
    io.stopSignal === undefined ? firstSignal() : { promise: io.stopSignal, again: new Promise<void>(() => {}), dispose: () => {} };
  let sessions: Awaited<ReturnType<typeof openSessionStore>> | null = null;
  try {
    // Unreachable, or a schema newer than this glassbox: exit 2 with the reason, before listening.
    // A team worker's session lease is as long as its run lease: a run taken over from a dead
    // worker must find the session free as soon as the run is (docs/team-server.md).
    sessions = await openSessionStore(databaseUrl, { leaseMs: leaseMs ?? TEAM_LEASE_MS });
    const server = createServer({
      store: sessions.store,
      ...modelSettingsOf(config),
      root: config.root,
      home: config.home,
      projectRoots: projectRoots(options.projectRoot),
      repositories: options.repository ?? [],
      ...(options.workDir !== undefined ? { workDir: resolve(options.workDir) } : {}),
      gatewayFor,
      demo: config.demo,
      caps,
      defaults: { sandbox: 'read-only', approvalPolicy: 'on-request' },
      network: options.network === true,
      host,
      port,
      token: configured?.token,
      compactAt: options.compactAt,
      contextWindow: options.contextWindow,
      maxRounds,
      tokenBudget,
      telemetry,
      ...(databaseUrl === undefined || pgModule === null
        ? {}
        : {
            team: {
              databaseUrl,
              worker: options.worker !== false,
              leaseMs: leaseMs ?? TEAM_LEASE_MS,
              stopGraceMs,
              Pool: pgModule.Pool,
              Client: pgModule.Client,
            },
          }),
    });
    if (options.workerOnly) {
      io.stderr.write(`glassbox worker: working runs from ${sessions.store?.location} as ${server.workerId}; Ctrl-C to stop\n`);
      await signal.promise;
      io.stderr.write(`glassbox worker: stopping (${stopping(stopGraceMs)})…\n`);
      await server.close(signal.again);
      return EXIT.ok;
    }
    let address: Awaited<ReturnType<typeof server.listen>>;
    try {
      address = await server.listen();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE') throw new UsageError(`port ${port} on ${host} is in use; pick another with --port (0 picks a free one)`);
      if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
        throw new UsageError(`cannot bind to --host ${host}: ${(error as Error).message}`);
      throw error;
    }
    io.stdout.write(`${address.url}\n`);
    io.stderr.write(
      `glassbox serve: workbench for ${config.root} at ${address.origin} (model ${config.model}, caps: sandbox ${caps.sandbox}, approvals ${caps.approvalPolicy}${server.workerId === null ? '' : `, worker ${server.workerId}`}${sessions.store === undefined ? '' : `, sessions in ${sessions.store.location}`}); Ctrl-C to stop\n`,
    );
    if (options.open) void openBrowser(address.url);
    await signal.promise;
    io.stderr.write(`glassbox serve: stopping (${server.workerId === null ? 'cancelling active runs' : stopping(stopGraceMs)})…\n`);
    await server.close(signal.again);
    return EXIT.ok;
  } finally {
    signal.dispose();
    await model.close();
    await sessions?.close();
  }
}
