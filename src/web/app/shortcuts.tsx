// Keyboard shortcuts and the overlay that lists them ("?"). Single keys act only when no text
// field has the focus, so typing a prompt never triggers one.

import { useEffect, useRef } from 'react';

export interface ShortcutActions {
  help(): void;
  search(): void;
  newSession(): void;
  transcript(): void;
  inspector(): void;
  tab(index: number): void;
  nextCall(step: 1 | -1): void;
  escape(): void;
}

export const SHORTCUTS: ReadonlyArray<[string, string]> = [
  ['?', 'Show or hide this list'],
  ['/', 'Search sessions'],
  ['n', 'New session: focus the prompt'],
  ['t', 'Focus the transcript'],
  ['i', 'Focus the inspector tabs'],
  ['1 – 4', 'Debug, Audit, Session, Context tab'],
  ['j / k', 'Next / previous model call'],
  ['Esc', 'Close the open call or this list'],
  ['Ctrl+Enter', 'Start the run (in the prompt)'],
];

function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return (
    target.isContentEditable ||
    target.tagName === 'TEXTAREA' ||
    target.tagName === 'SELECT' ||
    (target.tagName === 'INPUT' && !['checkbox', 'radio', 'button'].includes((target as HTMLInputElement).type))
  );
}

export function useShortcuts(actions: ShortcutActions): void {
  const latest = useRef(actions);
  latest.current = actions;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      const act = latest.current;
      if (event.key === 'Escape') {
        act.escape();
        return;
      }
      if (typing(event.target)) return;
      const handlers: Record<string, () => void> = {
        '?': act.help,
        '/': act.search,
        n: act.newSession,
        t: act.transcript,
        i: act.inspector,
        j: () => act.nextCall(1),
        k: () => act.nextCall(-1),
        '1': () => act.tab(0),
        '2': () => act.tab(1),
        '3': () => act.tab(2),
        '4': () => act.tab(3),
      };
      const handler = handlers[event.key];
      if (handler === undefined) return;
      event.preventDefault();
      handler();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}

export function ShortcutHelp({ open, onClose }: { open: boolean; onClose(): void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (element === null) return;
    // showModal keeps the focus inside and gives Escape; the page behind is inert meanwhile.
    if (open && !element.open) element.showModal();
    if (!open && element.open) element.close();
  }, [open]);
  return (
    <dialog ref={dialog} className="shortcut-help" aria-labelledby="shortcut-title" onClose={onClose}>
      <h2 id="shortcut-title">Keyboard shortcuts</h2>
      <table>
        <tbody>
          {SHORTCUTS.map(([keys, meaning]) => (
            <tr key={keys}>
              <th scope="row">
                <kbd>{keys}</kbd>
              </th>
              <td>{meaning}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <button type="button" className="primary" onClick={onClose}>
        Close
      </button>
    </dialog>
  );
}
