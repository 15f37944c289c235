export { buildChildEnvironment } from './child-environment.js';
export { OutputCapture, DEFAULT_OUTPUT_LIMIT, formatOmission, type CapturedOutput } from './output-capture.js';
export {
  runProcess,
  isProcessGroupAlive,
  DEFAULT_KILL_GRACE_MS,
  type RunProcessOptions,
  type ProcessResult,
} from './run-process.js';
export {
  findProtectedPaths,
  HOME_SECRET_PATHS,
  SYSTEM_SECRET_PATHS,
  HOST_SOCKET_PATHS,
  type ProtectedPath,
  type ProtectedPathKind,
  type ProtectionReason,
  type ProtectedPathScan,
  type FindProtectedPathsOptions,
} from './protected-paths.js';
export {
  bubblewrapIsolation,
  buildBubblewrapArgs,
  createSandboxDetector,
  detectSandbox,
  SANDBOX_INSTALL_HINT,
  tmpfsSizeSupported,
  type BubblewrapSpec,
  type SandboxedMode,
  type SandboxAvailability,
  type SandboxDetector,
  type SandboxDetectorOptions,
} from './bubblewrap.js';
export { defaultResourceLimits, defaultProcessLimit, limitedShellArgs, sandboxTaskLimit, type ResourceLimits } from './resource-limits.js';
export {
  findHostView,
  HOME_TOOLCHAIN_PATHS,
  SYSTEM_TREES,
  PRIVATE_DIRECTORIES,
  type HostView,
  type HostMount,
  type HostViewOptions,
} from './host-view.js';
export { readSandboxConfig, type SandboxConfig } from './sandbox-config.js';
export { createProcessCgroup, findPidsParent, type ProcessCgroup } from './process-cgroup.js';
export {
  DEFAULT_MAX_ENTRIES as GIT_SCAN_MAX_ENTRIES,
  QUARANTINE_SUFFIX,
  scanGitMetadata,
  quarantineNewGitMetadata,
  type BareLookalike,
  type GitMetadataScan,
  type QuarantineResult,
  type QuarantinedGitMetadata,
  type ScanOptions as GitMetadataScanOptions,
} from './git-metadata.js';
export {
  describeUnverifiedTree,
  markTreeUnverified,
  readUnverifiedTree,
  unverifiedTreeMarker,
  type UnverifiedTree,
} from './unverified-tree.js';
export {
  runCommand,
  type RunCommandOptions,
  type CommandResult,
  type SandboxSettings,
} from './run-command.js';
export { prepareSandbox, type PrepareSandboxOptions } from './prepare-sandbox.js';
export { gitSnapshot, type GitSnapshotOptions } from './git-snapshot.js';
export {
  PROGRAM_VARIABLES,
  SYSTEM_DIRECTORIES,
  checkConfiguredProgram,
  findTrustedProgram,
  isSystemOwned,
  type ProgramLookup,
  type TrustedProgramOptions,
} from './trusted-program.js';
