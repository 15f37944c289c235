// Checkpoints and rewind: what each tool call changed in the project (kept as content-addressed
// copies under `<home>/snapshots/` and `file_checkpoint` records), and putting the files back to
// their state before a turn with the conversation branched there. No git, nothing under `.git`.
export { BlobStore, BlobStoreError, sha256 } from './blob-store.js';
export { FileCheckpointer, excludedHome, type CallMark, type FileChangeRecord } from './file-checkpointer.js';
export { checkpointTools, type CheckpointHooks } from './checkpoint-tools.js';
export {
  planRewind,
  restoreDiff,
  restoreLocation,
  sessionTurns,
  type CurrentFile,
  type PlannedRestore,
  type RewindPlan,
  type RewindProblem,
} from './rewind-plan.js';
export {
  RewindError,
  performRewind,
  prepareRewind,
  type PreparedRewind,
  type RewindOutcome,
  type RewindScope,
} from './rewind-session.js';
