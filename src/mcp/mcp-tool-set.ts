// The MCP servers of one run: started together when the run starts (only if any is configured:
// without one the SDK is never loaded), their tools turned into Glassbox tools within the
// allowlists and a cap, and all stopped when the run ends. A server that fails to start costs
// the run a warning, not the run.

import type { AnyTool } from '../agent/index.js';
import { type McpConfig, type McpConfigWarning, type McpServerConfig, describeTransport } from './mcp-config.js';
import type { McpServerState } from './mcp-connection.js';
import { createMcpTool, MAX_MCP_SCHEMA_CHARS, mcpSchemaProblem, mcpToolName, type McpToolDescription } from './mcp-tool.js';

/** MCP tools offered to the model at most, over all servers: each is sent with every request. */
export const MAX_MCP_TOOLS = 50;
/** All offered MCP tools' input schemas together, in JSON characters: also sent with every request. */
export const MAX_MCP_SCHEMAS_CHARS = 256 * 1024;

export interface McpToolStatus {
  name: string;
  /** The name the model sees. */
  exposedAs: string;
  readOnly: boolean;
  trusted: boolean;
  /** False when left out by the server's `tools` allowlist, the caps or its schema. */
  offered: boolean;
}

export interface McpServerStatus {
  name: string;
  source: McpServerConfig['source'];
  transport: string;
  enabled: boolean;
  state: McpServerState | 'disabled';
  failure: string | null;
  tools: McpToolStatus[];
  pid: number | null;
}

export interface McpToolSet {
  tools: AnyTool[];
  warnings: McpConfigWarning[];
  servers: McpServerStatus[];
  /** Stops every server; safe to call more than once. */
  close(): Promise<void>;
}

export interface StartMcpOptions {
  /** Glassbox's version, sent in `initialize`. */
  version: string;
  signal?: AbortSignal;
  maxTools?: number;
  /** Per tool and over all tools: the input schemas' JSON characters (defaults above). */
  maxSchemaChars?: number;
  maxSchemasChars?: number;
}

export const EMPTY_MCP_TOOL_SET: McpToolSet = { tools: [], warnings: [], servers: [], close: async () => {} };

export async function startMcpTools(config: McpConfig, options: StartMcpOptions): Promise<McpToolSet> {
  const enabled = config.servers.filter((server) => server.enabled);
  const disabled = config.servers.filter((server) => !server.enabled);
  if (enabled.length === 0) {
    if (config.servers.length === 0 && config.warnings.length === 0) return EMPTY_MCP_TOOL_SET;
    return { ...EMPTY_MCP_TOOL_SET, warnings: [...config.warnings], servers: disabled.map((server) => disabledStatus(server)) };
  }
  const { McpConnection } = await import('./mcp-connection.js');
  const connections = enabled.map((server) => new McpConnection(server, options.version));
  await Promise.all(connections.map((connection) => connection.start(options.signal)));

  const warnings: McpConfigWarning[] = [...config.warnings];
  const tools: AnyTool[] = [];
  const taken = new Set<string>();
  const cap = options.maxTools ?? MAX_MCP_TOOLS;
  const schemaCap = options.maxSchemaChars ?? MAX_MCP_SCHEMA_CHARS;
  const schemasCap = options.maxSchemasChars ?? MAX_MCP_SCHEMAS_CHARS;
  const statuses: McpServerStatus[] = [];
  let capped = 0;
  let schemaChars = 0;
  const overBudget: string[] = [];
  for (const connection of connections) {
    const server = connection.config;
    if (connection.state !== 'ready') {
      warnings.push({
        code: 'MCP_SERVER_FAILED',
        message: `MCP server "${server.name}" ${connection.failure ?? 'is not available'}; its tools are not available in this run.`,
      });
      statuses.push({
        ...disabledStatus(server),
        enabled: true,
        state: connection.state,
        failure: connection.failure,
        pid: connection.pid,
      });
      continue;
    }
    const allow = server.allowedTools === null ? null : new Set(server.allowedTools);
    const known = new Set(connection.tools.map((tool) => tool.name));
    for (const name of server.allowedTools ?? []) {
      if (!known.has(name))
        warnings.push({
          code: 'MCP_UNKNOWN_TOOL',
          message: `${server.path}: mcpServers.${server.name}.tools names "${name}", which the server does not offer.`,
        });
    }
    const toolStatuses: McpToolStatus[] = [];
    for (const info of connection.tools) {
      const description = info as McpToolDescription;
      const trusted = server.trusted || server.trustedTools.includes(info.name);
      const exposedAs = mcpToolName(server.name, info.name);
      const readOnly = description.annotations?.readOnlyHint === true;
      let offered = (allow === null || allow.has(info.name)) && !taken.has(exposedAs);
      if (offered) {
        // Measured before the adapter walks the schema: it recurses, and a deep one would throw.
        const schema = mcpSchemaProblem(description.inputSchema, schemaCap);
        if (schema.problem !== null) {
          offered = false;
          warnings.push({
            code: 'MCP_SCHEMA_TOO_LARGE',
            message: `MCP tool "${info.name}" of server "${server.name}" is not offered: ${schema.problem}; it would be sent with every request.`,
          });
        } else if (schemaChars + schema.chars > schemasCap) {
          offered = false;
          overBudget.push(exposedAs);
        } else if (tools.length >= cap) {
          offered = false;
          capped += 1;
        } else {
          schemaChars += schema.chars;
        }
      }
      if (offered) {
        taken.add(exposedAs);
        tools.push(
          createMcpTool({
            server: { name: server.name, call: (tool, args, signal) => connection.call(tool, args, signal) },
            tool: description,
            trusted,
          }),
        );
      }
      toolStatuses.push({ name: info.name, exposedAs, readOnly, trusted, offered });
    }
    statuses.push({
      name: server.name,
      source: server.source,
      transport: describeTransport(server),
      enabled: true,
      state: connection.state,
      failure: null,
      tools: toolStatuses,
      pid: connection.pid,
    });
  }
  if (capped > 0) {
    warnings.push({
      code: 'MCP_TOOLS_CAPPED',
      message: `${capped} MCP tool${capped > 1 ? 's were' : ' was'} left out: at most ${cap} are offered to the model. List the ones you need in mcpServers.<name>.tools.`,
    });
  }
  if (overBudget.length > 0) {
    warnings.push({
      code: 'MCP_SCHEMAS_CAPPED',
      message: `${overBudget.length} MCP tool${overBudget.length > 1 ? 's were' : ' was'} left out (${overBudget.slice(0, 5).join(', ')}${overBudget.length > 5 ? ', ...' : ''}): the offered tools' input schemas may take at most ${schemasCap.toLocaleString('en-US')} characters in all. List the ones you need in mcpServers.<name>.tools.`,
    });
  }
  statuses.push(...disabled.map((server) => disabledStatus(server)));
  let closing: Promise<void> | null = null;
  return {
    tools,
    warnings,
    servers: statuses,
    close: () => (closing ??= Promise.all(connections.map((connection) => connection.close())).then(() => undefined)),
  };
}

function disabledStatus(server: McpServerConfig): McpServerStatus {
  return {
    name: server.name,
    source: server.source,
    transport: describeTransport(server),
    enabled: false,
    state: 'disabled',
    failure: null,
    tools: [],
    pid: null,
  };
}
