export { createWriteFileTool, type WriteFileArgs } from './write-file.js';
