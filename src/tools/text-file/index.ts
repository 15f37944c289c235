export * from './text-content.js';
export * from './capped-diff.js';
export * from './closest-lines.js';
export * from './file-access.js';
