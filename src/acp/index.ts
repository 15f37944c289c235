// The Agent Client Protocol face of Glassbox (`glassbox acp`), on @agentclientprotocol/sdk.
export { serveAcp, stopReasonOf, type AcpServer, type AcpServerOptions } from './acp-agent.js';
export { ACP_PRESET_MODES, acpModes, type AcpMode } from './acp-modes.js';
