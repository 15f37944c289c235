export { createListDirTool, DEFAULT_LIST_DIR_OPTIONS, formatSize } from './list-dir.js';
export type { ListDirArgs, ListDirOptions } from './list-dir.js';
