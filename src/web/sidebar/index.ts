export { NewRunForm, allowedUpTo, type ContinueTarget, type NewRunFormProps } from './new-run-form.js';
export { SessionList, type SessionListProps } from './session-list.js';
export { groupLabel, groupSessions } from './session-groups.js';
export { RunStatus, type RunStatusProps } from './run-status.js';
