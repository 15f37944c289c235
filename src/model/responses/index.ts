export { responsesDialect } from './responses-dialect.js';
