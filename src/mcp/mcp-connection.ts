// One MCP server for the length of a run, on the official SDK client: connect (stdio or
// Streamable HTTP) with a start-up deadline, list its tools, call them with a per-call deadline and
// the run's abort signal, and close. Every failure becomes a `ToolError` the model can read; a
// server that crashed stays down for the rest of the run and says why on every later call. A
// remote server's answers are byte-bounded while they stream (model/'s bounded fetch): the SDK
// would otherwise hold a 200 MB answer whole, several times over, before anything could look at it.
// Loaded only when a run has MCP servers configured: the SDK is not part of start-up.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError, type CallToolResult, type Tool as McpToolInfo } from '@modelcontextprotocol/sdk/types.js';
import { ToolError } from '../agent/index.js';
import { boundedFetch } from '../model/index.js';
import { MAX_MCP_RESPONSE_BYTES, PROJECT_ROOT_VARIABLE, expandVariables, type McpServerConfig } from './mcp-config.js';
import { mcpServerFingerprint } from './mcp-fingerprint.js';
import { GroupStdioTransport } from './stdio-transport.js';

export type { McpToolInfo };
export type McpServerState = 'starting' | 'ready' | 'failed' | 'closed';

/** Pages of `tools/list` read at most; a server with more is cut off (the cap applies anyway). */
const MAX_TOOL_PAGES = 20;

export class McpConnection {
  state: McpServerState = 'starting';
  /** Why the server is not usable, when `state` is `failed`. */
  failure: string | null = null;
  tools: McpToolInfo[] = [];
  private client: Client | null = null;
  private stdio: GroupStdioTransport | null = null;
  private http: StreamableHTTPClientTransport | null = null;
  /**
   * One per request in flight. An oversized answer cannot be tied to its request (the SDK picks
   * the ids), so it fails every request then waiting; the SDK would otherwise wait for an answer
   * that will never come until the call's timeout.
   */
  private readonly inflight = new Set<AbortController>();

  constructor(
    readonly config: McpServerConfig,
    private readonly version: string,
  ) {}

  /** Connect and list the tools; never throws: a failure is recorded in `state`/`failure`. */
  async start(signal?: AbortSignal): Promise<void> {
    const { config } = this;
    if (config.pinnedFingerprint !== undefined) {
      // Checked again as late as possible: a command may have changed a file it runs since the
      // config was read.
      const now = await mcpServerFingerprint(config).catch((error: Error) => `unreadable: ${error.message}`);
      if (now !== config.pinnedFingerprint) {
        this.fail(
          `could not start: what it runs changed since you enabled it (its command line, or the contents of a project file it runs: ${now.startsWith('unreadable') ? now : `now ${now}`})`,
        );
        return;
      }
    }
    const client = new Client({ name: 'glassbox', version: this.version }, { capabilities: {} });
    this.client = client;
    const guard = this.guard(signal);
    try {
      const transport = this.createTransport();
      client.onclose = () => {
        if (this.state === 'closed') return;
        const how = this.stdio?.describeFailure() || 'the connection closed';
        this.fail(this.state === 'starting' ? `could not start: ${how}` : `the server stopped: ${how}`);
      };
      // Logged by the transport only; calls see the failure through their own rejections.
      client.onerror = () => {};
      const options = { timeout: config.startupTimeoutMs, signal: guard.signal };
      await client.connect(transport, options);
      const tools: McpToolInfo[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_TOOL_PAGES; page += 1) {
        const listed = await client.listTools(cursor === undefined ? undefined : { cursor }, options);
        tools.push(...listed.tools);
        cursor = listed.nextCursor;
        if (!cursor) break;
      }
      this.tools = tools;
      if (this.state === 'starting') this.state = 'ready';
    } catch (error) {
      const tooLarge = guard.tooLarge();
      this.fail(`could not start: ${tooLarge ? tooLarge.message : this.describe(error, config.startupTimeoutMs)}`);
      await this.closeTransport();
    } finally {
      guard.done();
    }
  }

  /** A request's signal: the caller's, aborted also when an oversized answer arrives. */
  private guard(signal: AbortSignal | undefined): { signal: AbortSignal; tooLarge(): ToolError | null; done(): void } {
    const controller = new AbortController();
    this.inflight.add(controller);
    return {
      signal: signal ? AbortSignal.any([signal, controller.signal]) : controller.signal,
      tooLarge: () => (controller.signal.aborted && controller.signal.reason instanceof ToolError ? controller.signal.reason : null),
      done: () => this.inflight.delete(controller),
    };
  }

  private responseTooLarge(): ToolError {
    const mib = Math.round(MAX_MCP_RESPONSE_BYTES / (1024 * 1024));
    const error = new ToolError(
      'MCP_RESPONSE_TOO_LARGE',
      `MCP server "${this.config.name}" sent an answer larger than ${mib} MiB; it was not read further. Ask it for less (a narrower query, a page, a range).`,
    );
    for (const controller of this.inflight) controller.abort(error);
    return error;
  }

  private createTransport(): GroupStdioTransport | StreamableHTTPClientTransport {
    const { transport, name } = this.config;
    const variables: NodeJS.ProcessEnv = { ...process.env, [PROJECT_ROOT_VARIABLE]: this.config.projectRoot };
    if (transport.kind === 'stdio') {
      const env: Record<string, string> = {};
      for (const [key, value] of Object.entries(transport.env))
        env[key] = expandVariables(value, variables, `mcpServers.${name}.env.${key}`);
      const args = transport.args.map((arg, index) => expandVariables(arg, variables, `mcpServers.${name}.args[${index}]`));
      const cwd = expandVariables(transport.cwd, variables, `mcpServers.${name}.cwd`);
      this.stdio = new GroupStdioTransport({ command: transport.command, args, cwd, env, graceMs: this.config.stopGraceMs });
      return this.stdio;
    }
    const headers: Record<string, string> = {};
    for (const [key, value] of Object.entries(transport.headers))
      headers[key] = expandVariables(value, variables, `mcpServers.${name}.headers.${key}`);
    const url = new URL(expandVariables(transport.url, variables, `mcpServers.${name}.url`));
    this.http = new StreamableHTTPClientTransport(url, {
      requestInit: { headers },
      fetch: boundedFetch(MAX_MCP_RESPONSE_BYTES, () => this.responseTooLarge()),
    });
    return this.http;
  }

  private fail(reason: string): void {
    if (this.state === 'closed' || this.state === 'failed') return;
    this.state = 'failed';
    this.failure = reason;
  }

  /** Call one tool. Throws `ToolError` for everything the model should hear about. */
  async call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    const server = this.config.name;
    if (this.state !== 'ready' || !this.client) {
      throw new ToolError('MCP_SERVER_UNAVAILABLE', `MCP server "${server}" is not available: ${this.failure ?? this.state}.`);
    }
    const guard = this.guard(signal);
    try {
      const options = { signal: guard.signal, timeout: this.config.toolTimeoutMs };
      const result = await this.client.callTool({ name: tool, arguments: args }, undefined, options);
      return result as CallToolResult;
    } catch (error) {
      if (signal.aborted) throw error;
      const tooLarge = guard.tooLarge();
      if (tooLarge) throw tooLarge;
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        const seconds = Math.round(this.config.toolTimeoutMs / 1000);
        const noise = this.stdio?.describeFailure();
        throw new ToolError(
          'MCP_TIMEOUT',
          `MCP server "${server}" did not answer the ${tool} call within ${seconds} s (toolTimeoutSec); the call was cancelled.${noise ? ` (${noise})` : ''}`,
        );
      }
      if ((this.state as McpServerState) === 'failed' || (error instanceof McpError && error.code === ErrorCode.ConnectionClosed)) {
        this.fail(`the server stopped: ${this.stdio?.describeFailure() || 'the connection closed'}`);
        throw new ToolError(
          'MCP_SERVER_CRASHED',
          `MCP server "${server}" stopped during the ${tool} call (${this.failure}). Its tools are unavailable for the rest of this run.`,
        );
      }
      if (error instanceof McpError) throw new ToolError('MCP_ERROR', `MCP server "${server}": the ${tool} call failed: ${error.message}`);
      throw new ToolError(
        'MCP_BAD_RESULT',
        `MCP server "${server}" answered the ${tool} call with something that is not a valid tool result: ${describeInvalid(error)}`,
      );
    } finally {
      guard.done();
    }
  }

  private describe(error: unknown, timeoutMs: number): string {
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
      const noise = this.stdio?.describeFailure();
      return `no answer within ${Math.round(timeoutMs / 1000)} s (startupTimeoutSec)${noise ? `; ${noise}` : ''}`;
    }
    const code = (error as NodeJS.ErrnoException)?.code;
    if (code === 'ENOENT' && this.config.transport.kind === 'stdio') return `command not found: ${this.config.transport.command}`;
    const message = firstLine((error as Error)?.message ?? String(error));
    const noise = this.stdio?.describeFailure();
    return noise ? `${message}; ${noise}` : message;
  }

  private async closeTransport(): Promise<void> {
    const client = this.client;
    this.client = null;
    if (this.http) {
      // Ends the server-side session; a server that is down must not hold the run up.
      await Promise.race([this.http.terminateSession().catch(() => {}), delay(1_000)]);
    }
    await client?.close().catch(() => {});
    await this.stdio?.close().catch(() => {});
  }

  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    await this.closeTransport();
  }

  /** Process id of a stdio server, for tests that check nothing is left running. */
  get pid(): number | null {
    return this.stdio?.pid ?? null;
  }
}

/** A schema failure (the SDK checks results with zod) as `path: problem`, else the message's first line. */
function describeInvalid(error: unknown): string {
  const issues = (error as { issues?: { path?: unknown[]; message?: string }[] })?.issues;
  if (Array.isArray(issues) && issues.length > 0) {
    return issues
      .slice(0, 3)
      .map((issue) => `${(issue.path ?? []).join('.') || '(result)'}: ${issue.message ?? 'invalid'}`)
      .join('; ');
  }
  return firstLine((error as Error)?.message ?? String(error));
}

function firstLine(text: string): string {
  const line = text.split('\n').find((part) => part.trim() !== '') ?? text;
  return line.length > 500 ? `${line.slice(0, 500)}...` : line;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
