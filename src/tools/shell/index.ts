export {
  createShellTool,
  DEFAULT_TIMEOUT_MS,
  MAX_TIMEOUT_MS,
  type ShellArguments,
  type ShellToolOptions,
} from './shell.js';
