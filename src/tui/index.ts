// The interactive terminal session (`glassbox`, `glassbox chat`, `glassbox --resume`): ink +
// React on top of the runner. Loaded only when a session starts, so `--version`, `exec` and the
// server never pay for React or ink.

export { runInteractive, type InteractiveOptions } from './interactive-session.js';
export type { ApprovalPolicyName, SandboxModeName } from './session-controller.js';
export type { FirstFrame } from './first-frame.js';
