// The workspace snapshot lives in workspace/ since checkpoints (rewind) walk the project the same way.
export {
  DEFAULT_SNAPSHOT_LIMITS,
  SKIPPED_DIRECTORIES,
  listStamps,
  readContent,
  sameStamp,
  takeSnapshot,
  type FileStamp,
  type SnapshotEntry,
  type SnapshotLimits,
  type WorkspaceSnapshot,
} from '../workspace/index.js';
