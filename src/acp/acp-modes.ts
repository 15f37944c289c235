// The session modes an ACP client can switch between: Glassbox's sandbox and approval presets,
// the same pairs `--sandbox` and `--approval-policy` set for `exec`. A mode is applied per turn
// (`TurnRequest.policy`), so a switch during a turn takes effect with the next prompt.

import type { SessionMode, SessionModeState } from '@agentclientprotocol/sdk';
import type { ToolPolicySettings } from '../runner/index.js';

export interface AcpMode extends SessionMode {
  policy: Omit<ToolPolicySettings, 'network'>;
}

export const ACP_PRESET_MODES: readonly AcpMode[] = [
  {
    id: 'read-only',
    name: 'Read only',
    description: 'Reads and searches the project; every write or command outside the safe list asks first (read-only sandbox).',
    policy: { sandbox: 'read-only', approvalPolicy: 'on-request' },
  },
  {
    id: 'workspace-write',
    name: 'Workspace write, with approvals',
    description: 'Writes inside the project and runs commands in the workspace-write sandbox; asks before anything else.',
    policy: { sandbox: 'workspace-write', approvalPolicy: 'on-request' },
  },
  {
    id: 'full-access',
    name: 'Full access',
    description: 'No sandbox and no approvals: everything the model asks for runs (danger-full-access, never ask).',
    policy: { sandbox: 'danger-full-access', approvalPolicy: 'never' },
  },
];

/**
 * The modes offered: the presets, plus the command line's own pair when it is none of them
 * (`--approval-policy untrusted`), so starting `glassbox acp` with flags never silently loosens or
 * tightens what they asked for.
 */
export function acpModes(configured: Omit<ToolPolicySettings, 'network'>): { modes: AcpMode[]; initial: AcpMode } {
  const preset = ACP_PRESET_MODES.find(
    (mode) => mode.policy.sandbox === configured.sandbox && mode.policy.approvalPolicy === configured.approvalPolicy,
  );
  if (preset !== undefined) return { modes: [...ACP_PRESET_MODES], initial: preset };
  const custom: AcpMode = {
    id: 'command-line',
    name: 'As started',
    description: `The command line's settings: --sandbox ${configured.sandbox} --approval-policy ${configured.approvalPolicy}.`,
    policy: { sandbox: configured.sandbox, approvalPolicy: configured.approvalPolicy },
  };
  return { modes: [custom, ...ACP_PRESET_MODES], initial: custom };
}

/** The protocol's view of the modes (without the policies). */
export function modeState(modes: readonly AcpMode[], current: AcpMode): SessionModeState {
  return {
    currentModeId: current.id,
    availableModes: modes.map(({ id, name, description }) => ({ id, name, description })),
  };
}
