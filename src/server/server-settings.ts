// What `createServer` needs, and the policy caps: the server's sandbox and approval policy are the
// most a run may ask for, because the person who started the server decided how far a browser
// tab may go.

import type { AnyTool, CompactionHooks } from '../agent/index.js';
import { SANDBOX_MODES, type SandboxMode } from '../workspace/index.js';
import type { ModelGateway, ModelSettings, WireApi } from '../model/index.js';
import { APPROVAL_POLICIES, type ApprovalPolicy } from '../permissions/index.js';
import type { SessionStore } from '../sessions/index.js';
import type { TelemetrySettings } from '../telemetry/index.js';
import type { TeamSettings } from './pg-team.js';

export interface RunPolicy {
  sandbox: SandboxMode;
  approvalPolicy: ApprovalPolicy;
}

/**
 * The model settings are every run's defaults: a run may name its own model and wire API; effort,
 * output cap and temperature apply to all (temperature only on a wire that accepts it).
 */
export interface ServerSettings extends ModelSettings {
  /** Project root the agent works in. */
  root: string;
  /** Glassbox home: sessions live in `<home>/sessions`. */
  home: string;
  /** Directories a run may name as its project, with what lies under them (`--project-root`); default none. */
  projectRoots?: string[];
  /** Repositories (URLs or paths, as written) a run may name (`--repository`); default none. */
  repositories?: string[];
  /** Where repository runs' mirrors and worktrees live (`--work-dir`); default `<home>-work`, never inside the home. */
  workDir?: string;
  /** The gateway runs use for a wire API (a run may choose the other one). */
  gatewayFor: (wireApi: WireApi) => ModelGateway;
  /** True when the model is the built-in offline demo. */
  demo: boolean;
  /** The most permissive settings a run may ask for. */
  caps: RunPolicy;
  /** What a run gets when it does not say; clamped to the caps. */
  defaults: RunPolicy;
  /** Network access inside the sandbox, for every run. */
  network: boolean;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 4100; 0 picks a free port. */
  port?: number;
  /** Fixed access token; default: random per start. */
  token?: string;
  compactAt?: string;
  contextWindow?: string;
  maxRounds?: number;
  tokenBudget?: number;
  /** Export an OpenTelemetry trace of every run (`--otlp-endpoint`, `OTEL_*`); absent: none. */
  telemetry?: TelemetrySettings | null;
  /** SSE comment interval; default 15 s. */
  heartbeatMs?: number;
  /** How long an approval waits for the browser before it counts as denied. */
  approvalTimeoutMs?: number;
  /** Finished runs kept for replay; default 100. */
  keepFinishedRuns?: number;
  /** The built workbench (index.html + assets/); default `dist/web` of this package. */
  webRoot?: string;
  /** Overrides the JSONL store under `<home>/sessions` (tests). */
  store?: SessionStore;
  /** Overrides the built-in tools (tests). */
  tools?: AnyTool[];
  /** Overrides the default compaction hooks (tests). */
  compaction?: CompactionHooks | null;
  /** Runs through PostgreSQL (`serve --database-url`, docs/team-server.md); absent: in this process. */
  team?: TeamSettings;
  /** Where unexpected errors are reported; default stderr. Never given secrets. */
  log?: (message: string) => void;
}

/** Least permissive first. `never` is the most permissive policy: it never asks. */
export const SANDBOX_ORDER: readonly SandboxMode[] = SANDBOX_MODES;
export const APPROVAL_ORDER: readonly ApprovalPolicy[] = APPROVAL_POLICIES;

export function sandboxWithin(requested: SandboxMode, cap: SandboxMode): boolean {
  return SANDBOX_ORDER.indexOf(requested) <= SANDBOX_ORDER.indexOf(cap);
}

export function approvalPolicyWithin(requested: ApprovalPolicy, cap: ApprovalPolicy): boolean {
  return APPROVAL_ORDER.indexOf(requested) <= APPROVAL_ORDER.indexOf(cap);
}

/** The defaults, lowered to the caps where they exceed them. */
export function clampToCaps(defaults: RunPolicy, caps: RunPolicy): RunPolicy {
  return {
    sandbox: sandboxWithin(defaults.sandbox, caps.sandbox) ? defaults.sandbox : caps.sandbox,
    approvalPolicy: approvalPolicyWithin(defaults.approvalPolicy, caps.approvalPolicy) ? defaults.approvalPolicy : caps.approvalPolicy,
  };
}
