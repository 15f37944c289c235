// What route handlers share: the resolved settings and the server's long-lived parts.

import type { AnyTool } from '../agent/index.js';
import type { Runner } from '../runner/index.js';
import type { SessionStore } from '../sessions/index.js';
import type { CompactionBridge } from './compaction-bridge.js';
import type { ApprovalDesk, RunBackend } from './run-backend.js';
import type { RunParameters } from './run-manager.js';
import type { RunPolicy, ServerSettings } from './server-settings.js';

export interface ServerContext {
  settings: ServerSettings;
  /** Defaults after clamping to the caps. */
  defaults: RunPolicy;
  /** In process (RunManager + ApprovalRegistry) or through PostgreSQL (pg-team.ts). */
  runs: RunBackend;
  approvals: ApprovalDesk;
  store: SessionStore;
  compaction: CompactionBridge;
  heartbeatMs: number;
  version: string;
  /** Aborted when the server closes. */
  shutdownSignal: AbortSignal;
  /** A runner for these run parameters (runs), or for the server's defaults (compaction, inspection). */
  openRunner(parameters?: RunParameters): Promise<Runner>;
  /** The tools runs get, for rebuilding recorded requests. */
  tools(): Promise<readonly AnyTool[]>;
}
