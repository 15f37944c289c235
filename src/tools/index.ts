export * from './path-policy.js';
export {
  createToolSessionState,
  executionPolicy,
  toolSessionState,
  type EditorFiles,
  type FileStamp,
  type ToolSessionState,
} from './tool-session-state.js';
export { ALWAYS_IGNORED_NAMES, IgnoreRules, type LoadedIgnoreRules } from './ignore-rules.js';
export { createReadFileTool, DEFAULT_READ_FILE_LIMITS, type ReadFileArgs, type ReadFileLimits } from './read-file/index.js';
export { createListDirTool, DEFAULT_LIST_DIR_OPTIONS, type ListDirArgs, type ListDirOptions } from './list-dir/index.js';
export { createGlobTool, DEFAULT_GLOB_OPTIONS, type GlobArgs, type GlobOptions } from './glob/index.js';
export { createGrepTool, DEFAULT_GREP_LIMITS, type GrepArgs, type GrepLimits, type GrepToolOptions } from './grep/index.js';
export { createReadOnlyTools, type ReadOnlyToolsOptions } from './read-only-tools.js';
export * from './editing-tools.js';
export * from './shell/index.js';
export { createSkillTool, SKILL_TOOL_NAME, type SkillArgs, type SkillToolOptions } from './skill/index.js';
export { previewChange, type ChangePreview, type FilePreview, type PreviewLine, type PreviewLineKind } from './change-preview.js';
export { createUpdatePlanTool, UPDATE_PLAN_TOOL_NAME, type UpdatePlanArgs } from './update-plan/index.js';
