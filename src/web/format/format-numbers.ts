// Small display formatters shared by the panes. Locale-independent on purpose so screenshots and
// tests read the same everywhere.

export function formatTokens(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  const trim = (text: string) => text.replace(/\.0$/, '');
  if (Math.abs(value) >= 1_000_000) return `${trim((value / 1_000_000).toFixed(1))}M`;
  if (Math.abs(value) >= 100_000) return `${Math.round(value / 1000)}k`;
  if (Math.abs(value) >= 1000) return `${trim((value / 1000).toFixed(1))}k`;
  return String(Math.round(value));
}

export function formatCount(value: number): string {
  return String(Math.round(value)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** "3 min ago"; falls back to the date for anything older than a week. */
export function formatRelativeTime(iso: string, now: number = Date.now()): string {
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return iso;
  const seconds = Math.round((now - time) / 1000);
  if (seconds < 45) return 'just now';
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.round(seconds / 3600)} h ago`;
  if (seconds < 7 * 86_400) return `${Math.round(seconds / 86_400)} d ago`;
  return new Date(time).toISOString().slice(0, 10);
}

function two(value: number): string {
  return String(value).padStart(2, '0');
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * A message's time in the reader's time zone: "15:31:07" on the day it happened ("today" by
 * `now`), "1 Dec 15:31" before; '' for something that is not a time.
 */
export function formatClock(iso: string, now: number = Date.now()): string {
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return '';
  const date = new Date(time);
  const today = new Date(now);
  const clock = `${two(date.getHours())}:${two(date.getMinutes())}`;
  const sameDay = date.getFullYear() === today.getFullYear() && date.getMonth() === today.getMonth() && date.getDate() === today.getDate();
  if (sameDay) return `${clock}:${two(date.getSeconds())}`;
  const year = date.getFullYear() === today.getFullYear() ? '' : ` ${date.getFullYear()}`;
  return `${date.getDate()} ${MONTHS[date.getMonth()]}${year} ${clock}`;
}

/** Caps very long text so one huge tool output cannot freeze the page; says how much was left out. */
export function capText(text: string, max: number): { text: string; omitted: number } {
  if (text.length <= max) return { text, omitted: 0 };
  return { text: text.slice(0, max), omitted: text.length - max };
}

/** US dollars at a precision that suits the amount: $0.0042, $0.31, $12.40. */
export function formatUsd(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  if (value === 0) return '$0';
  if (value < 0.01) return `$${value.toFixed(4)}`;
  if (value < 1) return `$${value.toFixed(3)}`;
  return `$${value.toFixed(2)}`;
}

/** The cached share of input, as "42 %"; empty when nothing is known. */
export function formatShare(part: number | null | undefined, whole: number | null | undefined): string {
  if (part === null || part === undefined || whole === null || whole === undefined || whole <= 0) return '';
  return `${Math.round((part / whole) * 100)} %`;
}
