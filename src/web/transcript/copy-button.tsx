// A small "Copy" button. The clipboard API needs a secure context (loopback counts); where it is
// missing or refused, a hidden textarea and execCommand still copy, so the button never just fails.

import { useEffect, useState } from 'react';

async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard !== undefined) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // Fall through to the old way.
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.append(area);
  area.select();
  const done = document.execCommand('copy');
  area.remove();
  return done;
}

export interface CopyButtonProps {
  /** The text, or a function that makes it (so big JSON is only built when asked for). */
  text: string | (() => string);
  /** What is copied, for screen readers: "Copy code", "Copy request JSON". */
  label: string;
  className?: string;
}

export function CopyButton({ text, label, className }: CopyButtonProps) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), 1500);
    return () => clearTimeout(timer);
  }, [state]);
  return (
    <button
      type="button"
      className={`copy-button small ghost${className ? ` ${className}` : ''}`}
      aria-label={label}
      title={label}
      onClick={(event) => {
        // Inside a <summary> a click would also fold the section.
        event.preventDefault();
        event.stopPropagation();
        void copyText(typeof text === 'function' ? text() : text).then((ok) => setState(ok ? 'copied' : 'failed'));
      }}
    >
      <span aria-live="polite">{state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : 'Copy'}</span>
    </button>
  );
}
