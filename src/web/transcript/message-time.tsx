// When a message was sent or written, beside it: the clock time, with the full date and time on
// hover and in the markup (`<time datetime>`), so it can be read back exactly.

import { formatClock } from '../format/index.js';

export function MessageTime({ at, label }: { at: string | null | undefined; label: string }) {
  if (at === null || at === undefined) return null;
  const text = formatClock(at);
  if (text === '') return null;
  const full = new Date(at).toLocaleString();
  return (
    <time className="message-time" dateTime={at} title={`${label} ${full}`}>
      {text}
    </time>
  );
}
