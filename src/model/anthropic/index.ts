export { anthropicDialect } from './anthropic-dialect.js';
