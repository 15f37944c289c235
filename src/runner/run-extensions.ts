// What a turn adds to the built-in tools and the session recorder when configured: MCP servers
// (their tools, started when the turn starts and stopped when it ends) and an OpenTelemetry trace
// (an observer beside the recorder). With neither configured it costs three small file reads and
// hands the recorder back untouched; neither module (nor any SDK) is loaded. The third read is the
// mark of a project a sandboxed command may have planted git metadata in (sandbox/'s
// unverified-tree.ts): while it is there every turn starts with a warning saying so.

import { join } from 'node:path';
import type { AnyTool, ModelCallRecord, RunEvent, RunObserver } from '../agent/index.js';
import type { McpConfig, McpToolSet } from '../mcp/index.js';
import type { RunTrace, TelemetrySettings } from '../telemetry/index.js';
import { describeUnverifiedTree, readUnverifiedTree } from '../sandbox/index.js';
import { readProjectFile } from '../workspace/index.js';

export interface RunExtensionSettings {
  root: string;
  home: string;
  /** Read `mcpServers` from the config files; false: none (tests, benchmarks). */
  mcp: boolean;
  telemetry: TelemetrySettings | null;
  version: string;
}

export interface StartupWarning {
  code: string;
  message: string;
}

/** An observer that also takes the compaction summarizer's model calls. */
export type TurnObserver = RunObserver & { onModelCall(call: ModelCallRecord): void | Promise<void> };

export interface RunExtensions {
  /** The MCP tools, once `start` resolved. */
  readonly tools: AnyTool[];
  /** Starts the servers and the trace; never rejects (a server that fails is a warning). */
  start(signal: AbortSignal): Promise<void>;
  /**
   * The recorder, with the trace beside it and start-up warnings (its own, then `more` from the
   * rest of the turn's start) emitted after `run_started`.
   */
  observe(recorder: TurnObserver, more?: readonly StartupWarning[]): TurnObserver;
  /** Stops the servers and flushes the trace (bounded). Never rejects. */
  close(): Promise<void>;
}

const NO_MCP: McpConfig = { servers: [], warnings: [] };
const NO_TOOLS: McpToolSet = { tools: [], warnings: [], servers: [], close: async () => {} };

/** Whether either config file mentions MCP at all: without one, the mcp module is never loaded. */
async function mentionsMcp(home: string, root: string): Promise<boolean> {
  // A file that cannot be read as a config (a FIFO, too large, a link out of the project) counts
  // as a mention: the MCP module reads both again and says what is wrong, where warnings go.
  const texts = await Promise.all(
    [readProjectFile(join(home, 'config.json'), { root: null }), readProjectFile(join(root, '.glassbox', 'config.json'), { root })].map(
      (read) =>
        read.then(
          (text) => text ?? '',
          () => 'mcpServers',
        ),
    ),
  );
  return texts.some((text) => text.includes('mcpServers'));
}

/** Reads the config (a bad `mcpServers` entry rejects here, before any session is opened). */
export async function prepareRunExtensions(settings: RunExtensionSettings): Promise<RunExtensions> {
  const [mentioned, unverified] = await Promise.all([
    settings.mcp ? mentionsMcp(settings.home, settings.root) : false,
    readUnverifiedTree(settings.home, settings.root),
  ]);
  const mcp = mentioned ? await import('../mcp/index.js') : null;
  const config: McpConfig = mcp ? await mcp.readMcpConfig(settings.home, settings.root) : NO_MCP;
  let toolSet: McpToolSet = NO_TOOLS;
  let trace: RunTrace | null = null;
  const warnings: StartupWarning[] = [];
  if (unverified !== null) warnings.push({ code: 'PROJECT_UNVERIFIED', message: describeUnverifiedTree(unverified) });
  return {
    get tools() {
      return toolSet.tools;
    },
    async start(signal) {
      const [tools, traced] = await Promise.allSettled([
        mcp ? mcp.startMcpTools(config, { version: settings.version, signal }) : Promise.resolve(NO_TOOLS),
        settings.telemetry
          ? import('../telemetry/index.js').then((telemetry) => telemetry.startRunTrace(settings.telemetry!, settings.version))
          : Promise.resolve(null),
      ]);
      if (tools.status === 'fulfilled') toolSet = tools.value;
      else warnings.push({ code: 'MCP_UNAVAILABLE', message: `MCP servers could not be started: ${(tools.reason as Error)?.message}` });
      warnings.push(...toolSet.warnings);
      if (traced.status === 'fulfilled') trace = traced.value;
      else warnings.push({ code: 'TRACE_UNAVAILABLE', message: `Tracing is off for this run: ${(traced.reason as Error)?.message}` });
    },
    observe(recorder, more = []) {
      warnings.push(...more);
      if (trace === null && warnings.length === 0) return recorder;
      const runTrace = trace;
      const emit = (event: RunEvent): void => {
        runTrace?.onEvent(event);
        recorder.onEvent?.(event);
      };
      return {
        onEvent(event) {
          emit(event);
          // `run_started` comes first in every run's event stream, so start-up warnings follow it.
          if (event.type === 'run_started') for (const warning of warnings.splice(0)) emit({ type: 'warning', ...warning });
        },
        onCommit: (items) => recorder.onCommit?.(items),
        onModelCall(call) {
          runTrace?.onModelCall(call);
          return recorder.onModelCall(call);
        },
      };
    },
    async close() {
      await Promise.all([toolSet.close().catch(() => {}), trace?.finish().catch(() => {})]);
    },
  };
}
