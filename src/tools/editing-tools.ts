// The tools that change files, as one group so the registry can add (or withhold) them together.

import type { AnyTool } from '../agent/index.js';
import { createApplyPatchTool } from './apply-patch/index.js';
import { createEditFileTool } from './edit-file/index.js';
import { createWriteFileTool } from './write-file/index.js';

export function createEditingTools(): AnyTool[] {
  return [createWriteFileTool(), createEditFileTool(), createApplyPatchTool()];
}

export { createApplyPatchTool, type ApplyPatchArgs } from './apply-patch/index.js';
export { createEditFileTool, type EditFileArgs } from './edit-file/index.js';
export { createWriteFileTool, type WriteFileArgs } from './write-file/index.js';
export { commitFileChanges, writeFileAtomic, type FileChange, type CommitOptions } from './atomic-write.js';
