export {
  capText,
  formatClock,
  formatCount,
  formatDuration,
  formatRelativeTime,
  formatShare,
  formatTokens,
  formatUsd,
} from './format-numbers.js';
