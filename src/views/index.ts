// Views: the pure, browser-safe readings of run data that every face shares (the web workbench,
// the interactive terminal, the server and the tools): run events and records folded into a
// transcript, what a tool call says in one line, what a patch touches, a call's arguments.
// Borrows only types, so the web bundle can run it.

export { actionPhrase, callPhrase, callSubject, phraseText, type ActionPhrase } from './action-phrase.js';
export type { ChangeRow, Checklist, ChecklistStep, RequestedChange, ToolPresentation } from './tool-presentation.js';
export { checklistLines, checklistOf } from './plan-checklist.js';
export { callChecklist, latestPlan, planTracker } from './latest-plan.js';
export { presentationOf, TOOL_PRESENTATIONS, writtenPaths } from './tool-presentations.js';
export { patchPaths, patchTargets, type PatchTargets } from './patch-targets.js';
export { argumentsObject, prettyArguments } from './tool-arguments.js';
export {
  applyRunEvent,
  compactionView,
  factsOfRecord,
  newTurn,
  reduceTurn,
  reduceTurnAt,
  startLiveTurn,
  type CompactionFields,
  type TranscriptFact,
} from './transcript-reducer.js';
export type {
  ApprovalView,
  AssistantRole,
  CompactionView,
  NoticeCause,
  PermissionView,
  RunningPhase,
  Stamp,
  ToolCallState,
  ToolCallStatus,
  TranscriptEntry,
  TranscriptTurn,
  TurnOutcome,
} from './transcript-types.js';
export { hookRunStopped, hookRunText } from './hook-run-text.js';
export { projectRelative } from './change-rows.js';
export { requestedChange } from './requested-change.js';
export { appliedDiff } from './applied-diff.js';
export { SKILL_LIST_TAG, SKILL_TOOL_NAME, skillContextCost, skillTokenEstimate, systemSkillList } from './skill-context-cost.js';
export {
  SHELL_FIELD_SEPARATOR,
  shellEnding,
  shellFailed,
  shellOutcome,
  shellOutputTail,
  type ShellOutcome,
} from './shell-outcome.js';
