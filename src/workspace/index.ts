// The project tree and how it may be touched: path containment on real paths, secret-file names,
// names git reads as a repository, the execution policy of a call, and the one guarded reader of
// the files Glassbox reads from a project by itself. A leaf: it imports nothing from the rest of
// Glassbox, so tools, permissions and the sandbox can all build on it.

export { isInside, realLocation, resolveRoot } from './path-containment.js';
export { HOME_SECRET_PATHS, SECRET_FILE_EXCEPTIONS, SECRET_FILE_GLOBS, isSecretPath, maySecretFileName } from './secret-paths.js';
export { foldFileName, isGitMetadataName } from './git-metadata-name.js';
export { SANDBOX_MODES, UNRESTRICTED_EXECUTION, isExecutionPolicy, type ExecutionPolicy, type SandboxMode } from './execution-policy.js';
export { MAX_PROJECT_FILE_BYTES, RefusedFileError, readProjectFile, type ReadProjectFileOptions } from './read-project-file.js';
