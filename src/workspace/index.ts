// The project tree and how it may be touched: path containment on real paths, secret-file names,
// names git reads as a repository, the execution policy of a call, and the one guarded reader of
// the files Glassbox reads from a project by itself, and the project content read through it (skills,
// prompt commands, their front matter). A leaf: it imports nothing from the rest of
// Glassbox, so tools, permissions and the sandbox can all build on it.

export { isInside, realLocation, resolveRoot } from './path-containment.js';
export { HOME_SECRET_PATHS, SECRET_FILE_EXCEPTIONS, SECRET_FILE_GLOBS, isSecretPath, maySecretFileName } from './secret-paths.js';
export { foldFileName, isGitMetadataName } from './git-metadata-name.js';
export { SANDBOX_MODES, UNRESTRICTED_EXECUTION, isExecutionPolicy, type ExecutionPolicy, type SandboxMode } from './execution-policy.js';
export { MAX_PROJECT_FILE_BYTES, RefusedFileError, readProjectFile, type ReadProjectFileOptions } from './read-project-file.js';
export { FrontMatterError, parseFrontMatter, type FrontMatter } from './front-matter.js';
export {
  MAX_SKILL_DESCRIPTION,
  MAX_SKILL_FILE_BYTES,
  findSkills,
  listSkillFiles,
  readSkillBody,
  readSkillFile,
  skillFolders,
  type FoundSkills,
  type Skill,
  type SkillPlaces,
  type SkillSource,
} from './project-skills.js';
export {
  MAX_PROMPT_COMMAND_BYTES,
  expandPromptCommand,
  findPromptCommands,
  splitArguments,
  type FoundPromptCommands,
  type PromptCommand,
  type PromptCommandPlaces,
} from './prompt-commands.js';
export {
  DEFAULT_SNAPSHOT_LIMITS,
  SKIPPED_DIRECTORIES,
  listStamps,
  readContent,
  readContentSync,
  sameStamp,
  stampOf,
  takeSnapshot,
  type FileStamp,
  type SnapshotEntry,
  type SnapshotLimits,
  type WorkspaceSnapshot,
} from './workspace-snapshot.js';
export { projectPin } from './project-pin.js';
