export { chatCompletionsDialect } from './chat-completions-dialect.js';
