export { capText, formatCount, formatDuration, formatRelativeTime, formatTokens, prettyJson } from './format-numbers.js';
