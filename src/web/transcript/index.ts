export { Transcript, type TranscriptProps } from './transcript-view.js';
export { actionPhrase, phraseText, patchTargets, type ActionPhrase } from './action-phrase.js';
export {
  applyRunEvent,
  compactionView,
  mergeLiveTurn,
  startLiveTurn,
  transcriptFromRecords,
  type CompactionView,
  type ToolCallState,
  type TranscriptEntry,
  type TranscriptTurn,
  type TurnOutcome,
} from './transcript-model.js';
export { MarkdownText, preloadMarkdown } from './markdown-text.js';
export { CompactionNote } from './transcript-view.js';
export { PhraseView, type ApprovalHandler } from './tool-call-view.js';
