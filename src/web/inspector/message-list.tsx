// Messages of a request (or items of an answer) as readable blocks: role, text, tool calls.

import { useState } from 'react';
import type { TraceDetail } from '../api/index.js';
import { capText, formatCount } from '../format/index.js';
import { CopyButton } from '../transcript/index.js';

export type RequestMessage = NonNullable<TraceDetail['request']>['messages'][number];
type AnswerItem = TraceDetail['responseItems'][number];

const PREVIEW_CHARS = 4000;

function LongText({ text }: { text: string }) {
  const [full, setFull] = useState(false);
  const shown = full ? { text, omitted: 0 } : capText(text, PREVIEW_CHARS);
  if (text === '') return null;
  return (
    <>
      <pre tabIndex={0}>{shown.text}</pre>
      {shown.omitted > 0 && (
        <button type="button" className="link" onClick={() => setFull(true)}>
          Show {formatCount(shown.omitted)} more characters
        </button>
      )}
    </>
  );
}

export function MessageView({ message, tone }: { message: RequestMessage; tone?: 'added' | 'removed' }) {
  const label =
    message.role === 'tool' ? `tool · ${message.toolName} · ${message.toolCallId}${message.isError ? ' · error' : ''}` : message.role;
  return (
    <li
      className={`request-message role-${message.role}${tone ? ` diff-${tone}` : ''}`}
      data-tool-call-id={message.role === 'tool' ? message.toolCallId : undefined}
    >
      <div className="request-role">
        {tone === 'added' ? '+ ' : tone === 'removed' ? '− ' : ''}
        {label}
        {message.content !== '' && <CopyButton text={message.content} label={`Copy ${message.role} message`} />}
      </div>
      <LongText text={message.content} />
      {message.role === 'assistant' && message.toolCalls.length > 0 && (
        <ul className="request-tool-calls">
          {message.toolCalls.map((call) => (
            <li key={call.id}>
              <code>
                {call.name}({call.arguments})
              </code>{' '}
              <span className="muted mono">{call.id}</span>
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

export function AnswerView({ item }: { item: AnswerItem }) {
  switch (item.type) {
    case 'message':
      return (
        <li className="request-message role-assistant">
          <div className="request-role">
            assistant · {item.role === 'assistant' ? item.runtimeRole : item.role}
            <CopyButton text={item.content} label="Copy answer text" />
          </div>
          <LongText text={item.content} />
        </li>
      );
    case 'reasoning':
      return (
        <li className="request-message role-reasoning">
          <div className="request-role">reasoning · {item.format}</div>
          {item.text === '' ? (
            <p className="muted small-text">Hidden by the provider; only its encrypted state is kept.</p>
          ) : (
            <LongText text={item.text} />
          )}
        </li>
      );
    case 'function_call':
      return (
        <li className="request-message role-tool">
          <div className="request-role">
            tool call · {item.name} · <span className="mono">{item.callId}</span>
          </div>
          <LongText text={item.arguments} />
        </li>
      );
    default:
      return null;
  }
}
