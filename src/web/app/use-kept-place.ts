// The transcript stays mounted while a call is open (building a long session's turns again was a
// main-thread task of ~0.4 s), hidden with `display: none`, which resets its scroll position. This
// keeps the place: where it was scrolled (or at the bottom, following a live run, if it was
// there) is recorded while it shows and restored when it shows again. An approval that arrived
// while it was hidden asked for attention when nobody could see it, so it is brought into view
// and focused then, as it would have been on arrival.

import { useEffect, useLayoutEffect, useRef, type RefObject } from 'react';

/** Within this many pixels of the end, the transcript counts as following the bottom. */
const AT_BOTTOM_PX = 8;

export function useKeptPlace(hidden: boolean, sessionId: string | null): RefObject<HTMLDivElement | null> {
  const view = useRef<HTMLDivElement>(null);
  const place = useRef<{ sessionId: string | null; top: number; atBottom: boolean } | null>(null);

  useEffect(() => {
    const scroller = view.current?.querySelector<HTMLElement>('.transcript-scroll');
    if (hidden || !scroller) return;
    const record = () => {
      const atBottom = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < AT_BOTTOM_PX;
      place.current = { sessionId, top: scroller.scrollTop, atBottom };
    };
    record();
    scroller.addEventListener('scroll', record, { passive: true });
    return () => scroller.removeEventListener('scroll', record);
  }, [hidden, sessionId]);

  useLayoutEffect(() => {
    if (hidden) return;
    const scroller = view.current?.querySelector<HTMLElement>('.transcript-scroll');
    const kept = place.current;
    if (scroller && kept !== null && kept.sessionId === sessionId) scroller.scrollTop = kept.atBottom ? scroller.scrollHeight : kept.top;
    const pending = view.current?.querySelector<HTMLElement>('.approval-card[data-pending]');
    if (pending) {
      const active = document.activeElement;
      const typing = (active instanceof HTMLTextAreaElement || active instanceof HTMLInputElement) && active.value.trim() !== '';
      if (!typing) pending.focus();
      pending.scrollIntoView({ block: 'nearest' });
    }
  }, [hidden, sessionId]);

  return view;
}
