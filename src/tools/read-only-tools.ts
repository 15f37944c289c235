// The tools that only look: safe to run in parallel and under any sandbox mode.

import type { AnyTool } from '../agent/index.js';
import { createGlobTool } from './glob/index.js';
import { createGrepTool, type GrepToolOptions } from './grep/index.js';
import { createListDirTool } from './list-dir/index.js';
import { createReadFileTool } from './read-file/index.js';

export interface ReadOnlyToolsOptions {
  grep?: GrepToolOptions;
}

export function createReadOnlyTools(options: ReadOnlyToolsOptions = {}): AnyTool[] {
  return [createReadFileTool(), createListDirTool(), createGlobTool(), createGrepTool(options.grep)];
}
