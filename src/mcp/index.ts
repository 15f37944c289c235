// MCP (Model Context Protocol) servers as tools: config reading, the per-run tool set, and the
// tool adapter. The SDK loads only when a run has a server to start.

export {
  DEFAULT_STARTUP_TIMEOUT_MS,
  DEFAULT_STOP_GRACE_MS,
  DEFAULT_TOOL_TIMEOUT_MS,
  MAX_MCP_RESPONSE_BYTES,
  McpConfigError,
  PROJECT_ROOT_VARIABLE,
  describeTransport,
  describeTransportInFull,
  expandVariables,
  parseMcpServers,
  projectConfigPath,
  readMcpConfig,
  userConfigPath,
  type McpConfig,
  type McpConfigSource,
  type McpConfigWarning,
  type McpServerConfig,
  type McpTransportConfig,
} from './mcp-config.js';
export {
  MAX_FINGERPRINTED_FILE_BYTES,
  McpFingerprintError,
  filesRun,
  mcpServerFingerprint,
  type FileRun,
  type FingerprintSubject,
} from './mcp-fingerprint.js';
export {
  MAX_MCP_SCHEMA_CHARS,
  MCP_TOOL_PREFIX,
  createMcpTool,
  mcpSchemaProblem,
  mcpParameters,
  mcpToolName,
  shortDescription,
  type McpCaller,
  type McpToolDescription,
} from './mcp-tool.js';
export { formatMcpResult, type McpResultOutput } from './mcp-result.js';
export {
  EMPTY_MCP_TOOL_SET,
  MAX_MCP_SCHEMAS_CHARS,
  MAX_MCP_TOOLS,
  startMcpTools,
  type McpServerStatus,
  type McpToolSet,
  type McpToolStatus,
  type StartMcpOptions,
} from './mcp-tool-set.js';
