// Views: the pure, browser-safe readings of run data that every face shares (the web workbench,
// the interactive terminal, the server and the tools): what a tool call says in one line, what a
// patch touches, a call's arguments. Imports nothing, so the web bundle can use it at run time.

export { actionPhrase, callPhrase, phraseText, type ActionPhrase } from './action-phrase.js';
export { patchPaths, patchTargets, type PatchTargets } from './patch-targets.js';
export { argumentsObject } from './tool-arguments.js';
export { shellEnding, shellFailed, shellOutcome, shellOutputTail, type ShellOutcome } from './shell-outcome.js';
