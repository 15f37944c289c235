export { createGrepTool, findRipgrep, locateRipgrep } from './grep.js';
export type { GrepArgs, GrepToolOptions } from './grep.js';
export { DEFAULT_GREP_LIMITS } from './grep-report.js';
export type { GrepLimits } from './grep-report.js';
