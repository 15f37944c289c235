export { createGlobTool, DEFAULT_GLOB_OPTIONS } from './glob.js';
export type { GlobArgs, GlobOptions } from './glob.js';
