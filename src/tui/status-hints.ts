// The status bar's hint while the editor waits for a prompt: the session's own (app-view.ts) and
// the first frame's, painted before the session is loaded (first-frame.ts), are the same words.

export const IDLE_HINT = 'Enter send · Ctrl-J newline · / commands · @ files · Ctrl-C quit';
