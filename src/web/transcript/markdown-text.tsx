// Assistant text as Markdown (GFM tables, task lists; fenced code highlighted by language).
// Raw HTML in model output is never rendered: react-markdown escapes it unless told otherwise.

import { memo } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import rehypeHighlight from 'rehype-highlight';

const remarkPlugins = [remarkGfm];
const rehypePlugins = [rehypeHighlight];

const components: Components = {
  // Model-written links leave the workbench; never let them act on this page.
  a: ({ node: _node, ...props }) => <a {...props} target="_blank" rel="noopener noreferrer" />,
};

export interface MarkdownTextProps {
  text: string;
  streaming?: boolean;
}

export const MarkdownText = memo(function MarkdownText({ text, streaming = false }: MarkdownTextProps) {
  return (
    <div className={streaming ? 'markdown streaming' : 'markdown'}>
      <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
});
