export type { CommandClassification, SecretRead } from './command-classification.js';
export {
  CommandClassifier,
  loadCommandClassifier,
  MAX_CLASSIFIED_COMMAND_LENGTH,
  type ClassifyOptions,
} from './command-classifier.js';
export {
  COMMAND_TOOL_NAMES,
  SANDBOX_UNAVAILABLE_HINT,
  decidePermission,
  effectivePermissionInput,
  isToolVisible,
  type ToolVisibilityInfo,
} from './decide-permission.js';
export type { CommandRuleView, RuleWord } from './command-classification.js';
export {
  PermissionRuleError,
  claudeCodeToolNames,
  parseConfigRule,
  type ConfigRule,
  type RuleList,
  type RuleTarget,
} from './config-rule.js';
export { readPermissionRulesSection, type PermissionRulesSection } from './config-rules-file.js';
export { configRulesHiding, findConfigRule, matchCommandWords } from './match-config-rules.js';
export { exactAllowRule } from './exact-allow-rule.js';
export { saveAllowRule } from './save-allow-rule.js';
export {
  APPROVAL_POLICIES,
  type DecidingConfigRule,
  type ApprovalPolicy,
  type PermissionDecision,
  type PermissionInput,
  type PermissionRule,
  type PermissionSettings,
} from './permission-types.js';
export { describeProtectedWrite, protectedWriteReason, type ProtectedWriteReason } from './protected-write-reason.js';
export { SessionGrants } from './session-grants.js';
export { GIT_RUNS_CONFIGURED_PROGRAMS } from './git-rule.js';
