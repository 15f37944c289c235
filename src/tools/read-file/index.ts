export { createReadFileTool, DEFAULT_READ_FILE_LIMITS } from './read-file.js';
export type { ReadFileArgs, ReadFileLimits } from './read-file.js';
