// Where the OS sandbox cannot run, Glassbox says so before the first turn rather than at the first
// refused command: commands then run only if they are on the short list of literal read-only
// commands or a person approves them (docs/permissions.md, "Without a sandbox").

import type { SandboxMode } from '../workspace/index.js';

export interface SandboxState {
  available: boolean;
  reason: string;
}

/** What bwrap's probe found, for the sandboxed modes; null under danger-full-access (no sandbox wanted). */
export async function sandboxState(mode: SandboxMode): Promise<SandboxState | null> {
  if (mode === 'danger-full-access') return null;
  const { detectSandbox } = await import('../sandbox/index.js');
  const { available, reason } = await detectSandbox();
  return { available, reason };
}

/** The start-up notice, or null when the sandbox works (or is not wanted). */
export function sandboxNotice(state: SandboxState | null): string | null {
  if (state === null || state.available) return null;
  return (
    `no OS sandbox on this machine (${state.reason}): commands run only if they are on the short list of literal ` +
    'read-only commands (ls, cat, grep, head…) or a person approves them. To sandbox the rest, install bubblewrap ' +
    '(apt-get install bubblewrap) and enable unprivileged user namespaces.'
  );
}
