// Deleting a session: a button next to the export, and a modal that asks before anything is
// removed (a session file is the only copy of its history). The server refuses while a run or
// another writer holds the session; that refusal is shown in the dialog, and nothing changes.

import { useEffect, useId, useRef, useState } from 'react';
import { describeError } from '../api/index.js';

export interface DeleteSessionProps {
  title: string;
  /** A run going in the session: deleting is offered only once it has ended. */
  busy: boolean;
  onDelete(): Promise<void>;
}

export function DeleteSession({ title, busy, onDelete }: DeleteSessionProps) {
  const [open, setOpen] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const dialog = useRef<HTMLDialogElement>(null);
  const headingId = useId();
  const textId = useId();

  useEffect(() => {
    const element = dialog.current;
    if (element === null) return;
    // showModal keeps the focus inside and gives Escape; the page behind is inert meanwhile.
    if (open && !element.open) element.showModal();
    if (!open && element.open) element.close();
  }, [open]);

  async function confirm() {
    setDeleting(true);
    setError(null);
    try {
      await onDelete();
      setOpen(false);
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setDeleting(false);
    }
  }

  return (
    <>
      <button
        type="button"
        className="small ghost delete-session"
        disabled={busy}
        title={busy ? 'A run is going in this session; delete it when the run has ended.' : undefined}
        onClick={() => {
          setError(null);
          setOpen(true);
        }}
      >
        Delete…
      </button>
      <dialog ref={dialog} className="confirm-dialog" aria-labelledby={headingId} aria-describedby={textId} onClose={() => setOpen(false)}>
        <h2 id={headingId}>Delete this session?</h2>
        <p id={textId}>
          “{title}” and its whole history are removed from the server for good. Export it first to keep a copy. Forks of it keep their own
          turns.
        </p>
        {error !== null && (
          <p className="error-text" role="alert">
            {error}
          </p>
        )}
        <div className="confirm-actions">
          {/* The safe answer is first and has the focus when the dialog opens. */}
          <button type="button" onClick={() => setOpen(false)} disabled={deleting}>
            Keep it
          </button>
          <button type="button" className="danger" onClick={() => void confirm()} disabled={deleting}>
            {deleting ? 'Deleting…' : 'Delete session'}
          </button>
        </div>
      </dialog>
    </>
  );
}
