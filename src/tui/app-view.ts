// The screen: finished transcript entries printed once into the terminal's scrollback (ink's
// <Static>), then the running turn, the approval panel, the prompt editor with completions, and
// the status lines. All keys arrive here and are routed: to the approval panel while a person is
// being asked, else to the editor; what they mean is decided in editor-keys.ts.

import { createElement as h, useEffect, useRef, useState, useSyncExternalStore, type ReactElement } from 'react';
import { Box, Static, Text, useApp, useInput, useStdin, useStdout, type Key } from 'ink';
import { ApprovalView, approvalNoteRows, previewRows } from './approval-view.js';
import { PasteTracker } from './bracketed-paste.js';
import { runCommand, type CommandContext } from './command-handlers.js';
import * as edit from './editor-state.js';
import { editorKey, editorLines } from './editor-keys.js';
import { EntryView, entryRows } from './entry-view.js';
import { matchFiles } from './file-mentions.js';
import { searchKey, searchLine, startSearch, type HistorySearch } from './history-search.js';
import type { SessionController } from './session-controller.js';
import { commandCompletions, parseInput } from './slash-commands.js';
import { PickerView, pickerKey, pickerRows } from './picker-view.js';
import { StatusBar } from './status-bar.js';
import { IDLE_HINT } from './status-hints.js';
import type { Theme } from './theme.js';
import type { Entry } from './transcript-state.js';
import { lineRows } from './text-rows.js';
import { oneLine, visibleText } from '../terminal-text/index.js';
import { expandPromptCommand, type PromptCommand } from '../workspace/index.js';

/** Two Ctrl-C within this long quit; one alone only arms it (the usual convention). */
export const QUIT_WINDOW_MS = 2000;

/** How long an approval panel waits after the last key before y/a/n answer it. */
export const APPROVAL_GUARD_MS = 600;

export interface AppProps {
  controller: SessionController;
  theme: Theme;
  /** Project files for @path completion; empty until listed. */
  files: readonly string[];
  /** A prompt given on the command line, sent once at start. */
  initialPrompt?: string | null;
  /** The project's and the home's prompt commands (`/name args`). */
  promptCommands?: readonly PromptCommand[];
  /** Runs `arm` after the approval guard; returns a cancel. Tests pass a manual one. */
  scheduleArm?: (arm: () => void) => () => void;
}

function armAfterGuard(arm: () => void): () => void {
  const timer = setTimeout(arm, APPROVAL_GUARD_MS);
  return () => clearTimeout(timer);
}

interface Suggestion {
  label: string;
  /** What replaces the text from `start` to the cursor. */
  insert: string;
  start: number;
}

function suggestionsFor(state: edit.EditorState, files: readonly string[], promptCommands: readonly PromptCommand[]): Suggestion[] {
  const commands = commandCompletions(state.text, promptCommands);
  if (commands.length > 0) return commands.map((c) => ({ label: `${c.usage}  ${c.description}`, insert: `/${c.name} `, start: 0 }));
  const { word, start } = edit.wordAtCursor(state);
  if (!word.startsWith('@')) return [];
  // A file name is the repository's: shown with its control characters visible.
  return matchFiles(files, word.slice(1)).map((path) => ({ label: `@${oneLine(path)}`, insert: `@${path} `, start }));
}

export function App({ controller, theme, files, initialPrompt, promptCommands = [], scheduleArm = armAfterGuard }: AppProps): ReactElement {
  const snapshot = useSyncExternalStore(controller.subscribe, controller.getSnapshot);
  const { exit } = useApp();
  const { stdout } = useStdout();
  const [editor, setEditorState] = useState(() => edit.emptyEditor());
  const editorRef = useRef(editor);
  const setEditor = (next: edit.EditorState): void => {
    editorRef.current = next;
    setEditorState(next);
  };
  const [selected, setSelected] = useState(0);
  const [quitArmedAt, setQuitArmedState] = useState<number | null>(null);
  // Read through a ref by the key handler: a second Ctrl-C that comes before the handler has been
  // re-subscribed with the new state (the same read, or right after the hint was drawn) still quits.
  const quitArmedRef = useRef<number | null>(null);
  const setQuitArmedAt = (next: number | null): void => {
    quitArmedRef.current = next;
    setQuitArmedState(next);
  };
  const [denyMessage, setDenyState] = useState<string | null>(null);
  // Read through a ref by the key handlers: a paste updates it between renders.
  const denyRef = useRef<string | null>(null);
  const setDenyMessage = (next: string | null): void => {
    denyRef.current = next;
    setDenyState(next);
  };
  // After `s` at an approval: the rule is on screen, waiting for a second yes (or Esc).
  const [confirmingRule, setConfirmingState] = useState(false);
  const confirmingRef = useRef(false);
  const setConfirmingRule = (next: boolean): void => {
    confirmingRef.current = next;
    setConfirmingState(next);
  };
  // Ctrl-R's search line, in place of the editor's lines while it is open.
  const [search, setSearchState] = useState<HistorySearch | null>(null);
  const searchRef = useRef<HistorySearch | null>(null);
  const setSearch = (next: HistorySearch | null): void => {
    searchRef.current = next;
    setSearchState(next);
  };
  const [, setTick] = useState(0);
  const commandContext = useRef<CommandContext>({ controller, theme, listed: [], promptCommands, confirmForeign: null });
  commandContext.current.promptCommands = promptCommands;
  const busySince = useRef<number | null>(null);
  const { internal_eventEmitter: inputEvents } = useStdin();
  const paste = useRef({ tracker: new PasteTracker(), consumed: false, onPaste: (_text: string): void => {} });

  useEffect(() => {
    if (snapshot.exitRequested) exit();
  }, [snapshot.exitRequested, exit]);
  // A loaded session brings its prompts for the Up key.
  useEffect(() => {
    if (snapshot.historyVersion > 0) setEditor({ ...editorRef.current, history: snapshot.promptHistory, historyIndex: null });
  }, [snapshot.historyVersion]);
  useEffect(() => {
    if (snapshot.restoredPrompts !== null) setEditor(edit.restorePrompts(editorRef.current, snapshot.restoredPrompts.prompts));
  }, [snapshot.restoredPrompts?.version]);
  useEffect(() => {
    if (!initialPrompt) return;
    controller.rememberPrompt(initialPrompt);
    setEditor({ ...editorRef.current, history: [...editorRef.current.history, initialPrompt.trim()] });
    void controller.sendPrompt(initialPrompt);
  }, []);
  // The elapsed time on the hint line while something runs.
  useEffect(() => {
    if (snapshot.busy === null) {
      busySince.current = null;
      return;
    }
    busySince.current = Date.now();
    const timer = setInterval(() => setTick((n) => n + 1), 1000);
    return () => clearInterval(timer);
  }, [snapshot.busy]);
  useEffect(() => {
    setDenyMessage(null);
    setConfirmingRule(false);
  }, [snapshot.pending?.callId]);
  // Keys typed just before or as an approval panel appears were meant for the prompt ("please
  // add…" would answer `a`): the panel takes y/a/n only after a moment without typing. Each key
  // that arrives before then is dropped and restarts the wait; Esc and Ctrl-C always work.
  const [approvalArmed, setApprovalArmedState] = useState(false);
  const approvalArmedRef = useRef(false);
  const cancelArm = useRef<(() => void) | null>(null);
  const disarmApproval = (): void => {
    cancelArm.current?.();
    approvalArmedRef.current = false;
    setApprovalArmedState(false);
    cancelArm.current = scheduleArm(() => {
      approvalArmedRef.current = true;
      setApprovalArmedState(true);
    });
  };
  useEffect(() => {
    if (snapshot.pending?.callId === undefined) return;
    disarmApproval();
    return () => cancelArm.current?.();
  }, [snapshot.pending?.callId]);
  // Raw input events reach this listener before useInput's (prepended), so a bracketed paste is
  // taken whole and the key handler below skips every event that belonged to it.
  useEffect(() => {
    const onRawInput = (data: string): void => {
      const step = paste.current.tracker.push(data);
      paste.current.consumed = step.consumed;
      if (step.pasted !== null) paste.current.onPaste(step.pasted);
    };
    inputEvents.prependListener('input', onRawInput);
    return () => {
      inputEvents.off('input', onRawInput);
    };
  }, [inputEvents]);
  // Ink re-lays out on resize, but the terminal has already rewrapped what it printed at the old
  // width (a shrink leaves pieces of the old frame above the new one, which ink cannot erase), and
  // widths computed here from stdout.columns need a new render: the screen is cleared and the
  // transcript printed again at the new size.
  useEffect(() => {
    const onResize = (): void => controller.repaint();
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout]);

  // No completions over a recalled prompt: Up and Down keep walking the history.
  const suggestions =
    snapshot.pending || snapshot.picker || search !== null || editor.historyIndex !== null
      ? []
      : suggestionsFor(editor, files, promptCommands);

  const submit = (): void => {
    const { prompt, next } = edit.submit(editorRef.current);
    if (prompt.trim() === '') return;
    const parsed = parseInput(prompt, promptCommands);
    if (parsed.kind === 'unknown') {
      controller.note({ kind: 'notice', tone: 'error', text: `unknown command /${visibleText(parsed.name)} (/help lists them)` });
      return;
    }
    const shown = editorRef.current.text;
    setEditor(next);
    setSelected(0);
    controller.rememberPrompt(prompt);
    // The transcript shows a large paste as its placeholder, as the editor did; the model gets it whole.
    if (parsed.kind === 'prompt') void controller.sendPrompt(parsed.text, parsed.text === prompt ? shown : parsed.text);
    // The model gets the command's expanded text; the transcript shows what was typed.
    else if (parsed.kind === 'prompt-command') void controller.sendPrompt(expandPromptCommand(parsed.command, parsed.args), shown);
    else void runCommand(commandContext.current, parsed.name, parsed.args);
  };

  // The highlighted completion as of this key, read through the refs: a key can arrive after a
  // frame showing the list was drawn but before the handler was re-subscribed with that frame's
  // list (a fast Tab after typing), and a stale `choice` would then complete nothing.
  const currentChoice = (): Suggestion | null => {
    const state = editorRef.current;
    const list = controller.getSnapshot().pending || state.historyIndex !== null ? [] : suggestionsFor(state, files, promptCommands);
    return list.length === 0 ? null : list[Math.min(selected, list.length - 1)]!;
  };

  const complete = (): boolean => {
    const picked = currentChoice();
    if (picked === null) return false;
    setEditor(edit.replaceRange(editorRef.current, picked.start, editorRef.current.cursor, picked.insert));
    setSelected(0);
    return true;
  };

  const approvalKey = (input: string, key: Key): void => {
    const denyMessage = denyRef.current;
    if (key.escape && denyMessage !== null) {
      setDenyMessage(null);
      return;
    }
    if (key.escape && confirmingRef.current) {
      setConfirmingRule(false);
      return;
    }
    if (key.escape || (key.ctrl && input === 'c')) {
      controller.cancel();
      return;
    }
    if (!approvalArmedRef.current) {
      disarmApproval();
      return;
    }
    if (denyMessage !== null) {
      if (key.return) {
        controller.decide('deny', denyMessage.trim() === '' ? null : denyMessage.trim());
        return;
      }
      if (key.backspace || key.delete) {
        setDenyMessage(denyMessage.slice(0, -1));
        return;
      }
      if (!key.ctrl && !key.meta && input) setDenyMessage(denyMessage + input.replace(/[\r\n]/g, ' '));
      return;
    }
    const answer = input.toLowerCase();
    if (confirmingRef.current) {
      // Only a second, deliberate yes saves a rule; any other key leaves it unsaved.
      if (answer === 'y') void controller.approveAlways();
      else setConfirmingRule(false);
      return;
    }
    if (answer === 'y') controller.decide('approve');
    else if (answer === 's' && controller.getSnapshot().pending?.alwaysRule) setConfirmingRule(true);
    else if (answer === 'a') controller.decide('approve_session');
    else if (answer === 'n') setDenyMessage('');
  };

  // Pasted text is text: newlines stay in the prompt and no key binding fires inside it.
  paste.current.onPaste = (text: string): void => {
    if (controller.getSnapshot().pending) {
      if (denyRef.current !== null) setDenyMessage(denyRef.current + text.replace(/[\r\n]+/g, ' '));
      return;
    }
    setQuitArmedAt(null);
    setEditor(edit.pasteText(editorRef.current, text));
    setSelected(0);
  };

  useInput((input, key) => {
    controller.noteActivity();
    if (paste.current.consumed) return;
    if (controller.getSnapshot().pending) return approvalKey(input, key);
    const picker = controller.getSnapshot().picker;
    if (picker !== null) {
      const step = pickerKey(picker, input, key);
      if (step.kind === 'move') controller.setPicker({ ...picker, selected: step.selected });
      else if (step.kind !== 'none') controller.setPicker(null);
      if (step.kind === 'pick') picker.onPick(step.index);
      return;
    }
    if (searchRef.current !== null) {
      const history = editorRef.current.history;
      const step = searchKey(searchRef.current, history, input, key);
      if (step.kind === 'search') return setSearch(step.search);
      setSearch(null);
      if (step.kind === 'accept' && step.text !== null) {
        const state = editorRef.current;
        setEditor({ ...edit.replaceRange(state, 0, state.text.length, step.text), historyIndex: null });
      }
      return;
    }
    // With completions open, Up/Down choose among them instead of walking the history.
    if (suggestions.length > 0 && (key.upArrow || key.downArrow)) {
      setSelected((n) => (n + (key.upArrow ? suggestions.length - 1 : 1)) % suggestions.length);
      return;
    }
    const { state, action } = editorKey(editorRef.current, input, key);
    if (action !== 'interrupt') setQuitArmedAt(null);
    switch (action) {
      case 'none':
        if (state !== editorRef.current) {
          setEditor(state);
          setSelected(0);
        }
        return;
      case 'submit':
        // Typed-ahead text comes with its Enter (editor-keys.ts): take the text first.
        if (state !== editorRef.current) setEditor(state);
        // Enter on a half-typed command name completes it first.
        if (
          currentChoice() !== null &&
          commandCompletions(editorRef.current.text, promptCommands).length > 0 &&
          parseInput(editorRef.current.text, promptCommands).kind === 'unknown'
        ) {
          complete();
          return;
        }
        return submit();
      case 'complete':
        complete();
        return;
      case 'escape':
        if (controller.isBusy) controller.cancel();
        return;
      case 'interrupt':
        if (controller.isBusy) return controller.cancel();
        if (editorRef.current.text !== '') return setEditor(edit.clearText(editorRef.current));
        if (quitArmedRef.current !== null && Date.now() - quitArmedRef.current < QUIT_WINDOW_MS) return controller.requestExit();
        setQuitArmedAt(Date.now());
        return;
      case 'eof':
        return controller.requestExit();
      case 'toggle-output':
        return controller.toggleExpanded('tools');
      case 'toggle-reasoning':
        return controller.toggleExpanded('reasoning');
      case 'search-history':
        return setSearch(startSearch(editorRef.current.history));
    }
  });

  const rows = stdout.rows || 24;
  const columns = stdout.columns || 80;
  const lines =
    search === null
      ? editorLines(editor, (c) => theme.inverse(c))
      : [`${oneLine(searchLine(search, editor.history), 2000)}${theme.inverse(' ')}`];
  const hint =
    quitArmedAt !== null
      ? 'Press Ctrl-C again to quit'
      : snapshot.picker
        ? 'Up/Down choose · Enter pick · Esc cancel'
        : search !== null
          ? 'type to search earlier prompts · Ctrl-R older · Enter take it · Esc cancel'
          : snapshot.pending
            ? `y approve · a for session${snapshot.pending.alwaysRule ? ' · s always' : ''} · n deny · Esc cancel the turn`
            : snapshot.busy !== null
              ? `${snapshot.busy === 'compact' ? 'compacting' : 'working'}… ${busySince.current === null ? 0 : Math.floor((Date.now() - busySince.current) / 1000)}s · Esc to cancel`
              : IDLE_HINT;
  // The live frame must stay shorter than the terminal (see text-rows.ts): the editor (or the
  // approval panel), completions, status lines and the other live entries are counted in rows,
  // and answers get what is left.
  const live = snapshot.transcript.live;
  const otherLiveRows = live.reduce((sum, entry) => sum + entryRows(entry, columns), 0);
  const answers = Math.max(1, live.filter((entry) => entry.kind === 'assistant').length);
  const previewBudget = Math.max(3, rows - 12 - otherLiveRows);
  const preview = snapshot.pending ? previewRows(snapshot.pending, columns, previewBudget).length : 0;
  const approval = snapshot.pending && {
    pending: snapshot.pending,
    theme,
    denyMessage,
    armed: approvalArmed,
    width: columns,
    confirmingRule,
    configFile: controller.userConfigFile,
  };
  const middleRows = approval
    ? 3 + preview + approvalNoteRows(approval)
    : snapshot.picker
      ? pickerRows(snapshot.picker, rows)
      : 3 + lines.reduce((sum, line) => sum + lineRows(`› ${line}`, columns - 4), 0);
  const queuedLines = snapshot.queued.map((shown) => `queued: ${oneLine(shown, Math.max(10, columns - 12))}`);
  const fixedRows = middleRows + suggestions.length + 3 + otherLiveRows + queuedLines.length;
  // Per answer: its top margin and the "… lines above" line; one row spare for the cursor line.
  const liveBudget = Math.max(3, Math.floor((rows - 1 - fixedRows) / answers) - 2);

  return h(
    Box,
    { flexDirection: 'column', width: columns },
    h(Static<Entry>, {
      key: `static-${snapshot.transcript.epoch}`,
      items: snapshot.transcript.done,
      // ink's <Static> takes its render function as `children`; createElement has no other way to pass it.
      // biome-ignore lint/correctness/noChildrenProp: see above
      children: (entry: Entry) => h(EntryView, { key: entry.id, entry, theme, width: columns, expanded: snapshot.expanded }),
    }),
    ...snapshot.transcript.live.map((entry) => h(EntryView, { key: entry.id, entry, theme, maxLines: liveBudget, width: columns })),
    ...queuedLines.map((line, i) => h(Text, { key: `q${i}`, wrap: 'truncate-end' }, theme.dim(line))),
    snapshot.pending
      ? h(ApprovalView, { ...approval!, pending: snapshot.pending, maxPreviewLines: previewBudget })
      : snapshot.picker
        ? h(PickerView, { picker: snapshot.picker, theme, rows, width: columns })
        : h(
            Box,
            { flexDirection: 'column', borderStyle: 'round', paddingX: 1, marginTop: 1 },
            ...lines.map((line, i) => h(Text, { key: i }, `${i === 0 ? theme.tone('accent', '›') : ' '} ${line}`)),
          ),
    ...suggestions.map((s, i) =>
      h(
        Text,
        { key: `s${i}`, wrap: 'truncate-end' },
        i === Math.min(selected, suggestions.length - 1) ? theme.inverse(` ${s.label} `) : theme.dim(`  ${s.label}`),
      ),
    ),
    h(StatusBar, { snapshot, theme, hint }),
  );
}
