export { createApplyPatchTool, type ApplyPatchArgs } from './apply-patch.js';
export { parsePatch, scanPatchPaths, type PatchOperation, type PatchHunk, type HunkLine } from './parse-patch.js';
export { planPatch, type PatchPlan, type PatchSummaryEntry } from './plan-patch.js';
