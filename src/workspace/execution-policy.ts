// How a tool call may act on the machine: the sandbox mode of the session and, per call, what the
// permission layer decided. The agent core passes it from the gate to the tool without reading it
// (`ToolContext.execution` is opaque there); the permission rules decide it and the coding tools
// obey it.

import { SANDBOX_MODES, type SandboxMode } from '../protocol/index.js';

// The sandbox modes are one of protocol/'s enumerations (the API and the web name them too).
export { SANDBOX_MODES, type SandboxMode };

/** How one approved call executes: decided by the permission layer, obeyed by the tool. */
export interface ExecutionPolicy {
  mode: SandboxMode;
  /** Run commands inside the OS sandbox (bubblewrap). False for danger-full-access or an approved escalation. */
  sandboxed: boolean;
  /** Allow network access from sandboxed commands. */
  network: boolean;
  /** Secret files (`.env*`…) were approved for this call: do not mask them. */
  secretsApproved: boolean;
  /**
   * A directory search (grep) leaves out the files this says are covered by a deny or ask rule
   * from the user's or the project's config (`Read(secrets/**)`), as it leaves out secret files:
   * the permission decision sees only the directory. Absent when no such rule exists.
   */
  hiddenPath?: (absolutePath: string) => boolean;
}

/**
 * What a call gets when no permission policy decided anything (a host that runs the agent with
 * the allow-all gate, as trusted contexts and tests do): nothing restricted, nothing sandboxed.
 */
export const UNRESTRICTED_EXECUTION: ExecutionPolicy = Object.freeze({
  mode: 'danger-full-access',
  sandboxed: false,
  network: true,
  secretsApproved: true,
});

export function isExecutionPolicy(value: unknown): value is ExecutionPolicy {
  if (typeof value !== 'object' || value === null) return false;
  const policy = value as Record<string, unknown>;
  return (
    (SANDBOX_MODES as readonly unknown[]).includes(policy.mode) &&
    typeof policy.sandboxed === 'boolean' &&
    typeof policy.network === 'boolean' &&
    typeof policy.secretsApproved === 'boolean' &&
    (policy.hiddenPath === undefined || typeof policy.hiddenPath === 'function')
  );
}
