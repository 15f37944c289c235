// How long a tool call took, as the terminal's tool lines show it. What a call is about comes from
// views/ (`callSubject`), the reading the web workbench shares.

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  return `${Math.floor(ms / 60_000)}m${Math.round((ms % 60_000) / 1000)}s`;
}
