// The Markdown pipeline itself (GFM, highlighted code). Loaded as its own chunk: it is most of the
// bundle, and the workbench can show its first screen without it. Code blocks get their language
// as a label and a copy button, and are focusable so a keyboard can scroll them.

import { Children, isValidElement, type ReactNode } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import rehypeHighlight from 'rehype-highlight';
import { CopyButton } from './copy-button.js';

const remarkPlugins = [remarkGfm];
const rehypePlugins = [rehypeHighlight];

/** The plain text of rendered (highlighted) children: what the copy button copies. */
function textOf(node: ReactNode): string {
  if (typeof node === 'string' || typeof node === 'number') return String(node);
  if (Array.isArray(node)) return node.map(textOf).join('');
  if (isValidElement<{ children?: ReactNode }>(node)) return textOf(node.props.children);
  return '';
}

function languageOf(children: ReactNode): string | null {
  const code = Children.toArray(children).find((child) => isValidElement<{ className?: string }>(child));
  const className = isValidElement<{ className?: string }>(code) ? (code.props.className ?? '') : '';
  const match = /language-([\w+#.-]+)/.exec(className);
  return match?.[1] ?? null;
}

const components: Components = {
  // Model-written links leave the workbench; never let them act on this page.
  a: ({ node: _node, ...props }) => <a {...props} target="_blank" rel="noopener noreferrer" />,
  pre: ({ node: _node, children, ...props }) => {
    const language = languageOf(children);
    return (
      <div className="code-block">
        <div className="code-block-head">
          <span className="code-language">{language ?? 'text'}</span>
          <CopyButton text={() => textOf(children).replace(/\n$/, '')} label={`Copy ${language ?? ''} code`.replace(/\s+/g, ' ')} />
        </div>
        <pre {...props} tabIndex={0}>
          {children}
        </pre>
      </div>
    );
  },
};

export default function MarkdownRenderer({ text }: { text: string }) {
  return (
    <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} components={components}>
      {text}
    </ReactMarkdown>
  );
}
