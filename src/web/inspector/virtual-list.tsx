// A list that renders only the rows in view (plus a margin). Rows have one height at a given
// width, which keeps the arithmetic trivial and a 1,000-call session as light as a 10-call one; a
// list may make its rows taller when it is narrow (two lines instead of one cut short).

import { useLayoutEffect, useRef, useState, type ReactNode } from 'react';

export interface VirtualListProps<T> {
  items: readonly T[];
  /** One row's height, or the height for the list's width (rows wrap onto two lines when narrow). */
  rowHeight: number | ((width: number) => number);
  /** Height of the scroll area; the list scrolls on its own. */
  height: number | string;
  keyOf(item: T): string;
  render(item: T, index: number): ReactNode;
  label: string;
  /** Scrolls this row into view when it changes. */
  scrollTo?: number | null;
}

const OVERSCAN = 8;

export function VirtualList<T>({ items, rowHeight: heightOf, height, keyOf, render, label, scrollTo = null }: VirtualListProps<T>) {
  const ref = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ top: 0, height: 600, width: 0 });
  const rowHeight = typeof heightOf === 'number' ? heightOf : heightOf(view.width);

  useLayoutEffect(() => {
    const element = ref.current;
    if (element === null) return;
    const measure = () => setView({ top: element.scrollTop, height: element.clientHeight || 600, width: element.clientWidth });
    measure();
    element.addEventListener('scroll', measure, { passive: true });
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => {
      element.removeEventListener('scroll', measure);
      observer.disconnect();
    };
  }, []);

  useLayoutEffect(() => {
    const element = ref.current;
    if (element === null || scrollTo === null || scrollTo < 0) return;
    const top = scrollTo * rowHeight;
    if (top < element.scrollTop || top + rowHeight > element.scrollTop + element.clientHeight)
      element.scrollTop = Math.max(0, top - rowHeight * 2);
  }, [scrollTo, rowHeight]);

  const first = Math.max(0, Math.floor(view.top / rowHeight) - OVERSCAN);
  const last = Math.min(items.length, Math.ceil((view.top + view.height) / rowHeight) + OVERSCAN);
  return (
    <div className="virtual-list" ref={ref} style={{ height }} tabIndex={0} role="region" aria-label={label}>
      <ul className="virtual-rows" style={{ height: items.length * rowHeight }}>
        {items.slice(first, last).map((item, offset) => (
          <li
            key={keyOf(item)}
            className="virtual-row"
            style={{ top: (first + offset) * rowHeight, height: rowHeight }}
            aria-setsize={items.length}
            aria-posinset={first + offset + 1}
          >
            {render(item, first + offset)}
          </li>
        ))}
      </ul>
    </div>
  );
}
