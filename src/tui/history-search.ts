// Ctrl-R: reverse incremental search over earlier prompts, as bash and Claude Code have it. Typing
// narrows to the newest prompt holding the query (ignoring case), Ctrl-R again steps to an older
// one, Enter puts the match into the editor to change or send, Esc leaves the editor as it was.
// A pure function from (search, key) to the next search or an outcome, like editor-keys.ts.

import type { Key } from 'ink';

export interface HistorySearch {
  query: string;
  /** Index into the history (oldest first) of the prompt shown; null: nothing matches. */
  match: number | null;
}

export type SearchStep =
  | { kind: 'search'; search: HistorySearch }
  /** The prompt chosen (null: none matched), for the editor. */
  | { kind: 'accept'; text: string | null }
  | { kind: 'cancel' };

/** The newest prompt before `before` that holds `query`. */
function findOlder(history: readonly string[], query: string, before: number): number | null {
  const wanted = query.toLowerCase();
  for (let at = Math.min(before, history.length) - 1; at >= 0; at -= 1) if (history[at]!.toLowerCase().includes(wanted)) return at;
  return null;
}

export function startSearch(history: readonly string[]): HistorySearch {
  return { query: '', match: history.length === 0 ? null : history.length - 1 };
}

export function searchKey(search: HistorySearch, history: readonly string[], input: string, key: Key): SearchStep {
  const again = (query: string, before: number): SearchStep => ({
    kind: 'search',
    search: { query, match: findOlder(history, query, before) },
  });
  if (key.escape || (key.ctrl && (input === 'c' || input === 'g'))) return { kind: 'cancel' };
  if (key.return) return { kind: 'accept', text: search.match === null ? null : history[search.match]! };
  if (key.ctrl && input === 'r') {
    // An older match, if there is one; at the oldest the search stays where it is.
    const older = search.match === null ? null : findOlder(history, search.query, search.match);
    return { kind: 'search', search: older === null ? search : { ...search, match: older } };
  }
  if (key.backspace || key.delete) return again(search.query.slice(0, -1), history.length);
  // Any other key ends the search with the match in the editor, as bash does, without acting.
  if (key.ctrl || key.meta || key.tab || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow || input === '')
    return { kind: 'accept', text: search.match === null ? null : history[search.match]! };
  // A longer query still matches the current prompt when it can (bash's incremental search).
  const query = search.query + input.replace(/[\r\n]/g, ' ');
  return again(query, search.match === null ? history.length : search.match + 1);
}

/** The search line the editor box shows meanwhile. */
export function searchLine(search: HistorySearch, history: readonly string[]): string {
  const found = search.match === null ? (search.query === '' ? '' : 'no match') : history[search.match]!;
  return `(reverse-i-search)\`${search.query}': ${found}`;
}
