export {
  capText,
  formatClock,
  formatCount,
  formatDuration,
  formatRelativeTime,
  formatShare,
  formatTokens,
  formatUsd,
  prettyJson,
} from './format-numbers.js';
