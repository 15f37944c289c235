export { createEditFileTool, type EditFileArgs } from './edit-file.js';
