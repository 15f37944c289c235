// The permission settings the decision tests start from: a project root and a Glassbox home that
// never exist on disk (decisions are pure), a sandbox that is available, no network.
import { SessionGrants, type PermissionSettings } from '../../src/permissions/index.js';

export const PROJECT_ROOT = '/work/project';
export const GLASSBOX_HOME = '/home/user/.glassbox';

/** Settings under the `on-request` policy and `workspace-write` sandbox, with fresh grants unless overridden. */
export function permissionSettings(overrides: Partial<PermissionSettings> = {}): PermissionSettings {
  return {
    root: PROJECT_ROOT,
    approvalPolicy: 'on-request',
    sandbox: 'workspace-write',
    sandboxAvailable: true,
    network: false,
    glassboxHome: GLASSBOX_HOME,
    sessionGrants: new SessionGrants(),
    ...overrides,
  };
}
