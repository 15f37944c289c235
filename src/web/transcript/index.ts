export { Transcript, type TranscriptProps } from './transcript-view.js';
export { actionPhrase, callPhrase, phraseText, patchTargets, type ActionPhrase } from './action-phrase.js';
export { applyRunEvent, compactionView, factsOfRecord, reduceTurn, startLiveTurn, type TranscriptFact } from './transcript-reducer.js';
export { mergeLiveTurn, partialEntries, transcriptFromRecords, withPartialText } from './transcript-turns.js';
export type { CompactionView, ToolCallState, TranscriptEntry, TranscriptTurn, TurnOutcome } from './transcript-types.js';
export { MarkdownText, preloadMarkdown } from './markdown-text.js';
export { CompactionNote } from './transcript-view.js';
export { PhraseView, type ApprovalHandler } from './tool-call-view.js';
export { CopyButton } from './copy-button.js';
