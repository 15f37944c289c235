// Assistant text as Markdown. Raw HTML in model output is never rendered: react-markdown escapes
// it. Until the renderer's chunk has arrived the text shows as is, in the same box.

import { lazy, memo, Suspense } from 'react';

const loadRenderer = () => import('./markdown-renderer.js');
const MarkdownRenderer = lazy(loadRenderer);

/** Starts fetching the renderer early, so the first answer does not wait for it. */
export function preloadMarkdown(): void {
  void loadRenderer();
}

export interface MarkdownTextProps {
  text: string;
  streaming?: boolean;
}

export const MarkdownText = memo(function MarkdownText({ text, streaming = false }: MarkdownTextProps) {
  return (
    <div className={streaming ? 'markdown streaming' : 'markdown'}>
      <Suspense fallback={<p className="markdown-pending">{text}</p>}>
        <MarkdownRenderer text={text} />
      </Suspense>
    </div>
  );
});
