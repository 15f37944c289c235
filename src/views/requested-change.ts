// What a file-writing call asks for, read from its arguments alone by the tool's presentation
// (tool-presentations.ts): no file is read, so it shows only the model's own text. The faces show
// it where the runner's dry run (tools/'s `previewChange`) cannot say more: the terminal under a
// call that would fail, the workbench while the server's preview is not there.

import { argumentsObject } from './tool-arguments.js';
import type { RequestedChange } from './tool-presentation.js';
import { presentationOf } from './tool-presentations.js';

/** What the call asks for, or null for a call that writes no file through its arguments. */
export function requestedChange(toolName: string, rawArguments: string, root = ''): RequestedChange | null {
  const args = argumentsObject(rawArguments);
  if (args === null) return null;
  return presentationOf(toolName).changes?.(args, root) ?? null;
}
