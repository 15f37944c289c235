export {
  isActive,
  useLiveRun,
  type LiveEvent,
  type LiveRun,
  type LiveRunCallbacks,
  type LiveRunStatus,
  type RunEnd,
} from './use-live-run.js';
