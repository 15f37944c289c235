// An MCP tool result as the model reads it: text as is; images, audio and binary resources as a
// one-line reference (a model on a text wire cannot see them, and base64 would eat the context);
// structured content as JSON when the server sent no text for it; `isError` kept. Capped like a
// shell command's output (head and tail), so a chatty server costs no more than our own tools.

import { DEFAULT_OUTPUT_LIMIT, OutputCapture } from '../sandbox/index.js';

export interface McpResultOutput {
  output: string;
  isError: boolean;
}

type Part = Record<string, unknown>;

function isObject(value: unknown): value is Part {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** Decoded size of base64 data, without decoding it. */
function base64Bytes(data: unknown): number {
  if (typeof data !== 'string') return 0;
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function describePart(part: unknown): string {
  if (!isObject(part)) return '[a content part that is not an object]';
  switch (part.type) {
    case 'text':
      return text(part.text) ?? '';
    case 'image':
    case 'audio':
      return `[${part.type} ${text(part.mimeType) ?? 'of unknown type'}, ${base64Bytes(part.data)} bytes: not shown to the model]`;
    case 'resource_link': {
      const name = text(part.name);
      const mime = text(part.mimeType);
      return `[resource link: ${text(part.uri) ?? '(no uri)'}${name ? ` "${name}"` : ''}${mime ? ` (${mime})` : ''}]`;
    }
    case 'resource': {
      const resource = isObject(part.resource) ? part.resource : {};
      const uri = text(resource.uri) ?? '(no uri)';
      const body = text(resource.text);
      if (body !== null) return `[resource ${uri}]\n${body}`;
      return `[resource ${uri}${text(resource.mimeType) ? ` (${text(resource.mimeType)})` : ''}, ${base64Bytes(resource.blob)} bytes of binary data: not shown to the model]`;
    }
    default:
      return `[content of type ${JSON.stringify(part.type)}: not shown to the model]`;
  }
}

export function formatMcpResult(result: unknown, limit: number = DEFAULT_OUTPUT_LIMIT): McpResultOutput {
  const record = isObject(result) ? result : {};
  const parts = Array.isArray(record.content) ? record.content : [];
  const pieces = parts.map(describePart).filter((piece) => piece !== '');
  const hasText = parts.some((part) => isObject(part) && part.type === 'text' && text(part.text));
  // The spec asks servers to repeat structured content as text; only when they did not is it added.
  if (!hasText && record.structuredContent !== undefined) pieces.push(JSON.stringify(record.structuredContent, null, 2));
  let output = pieces.join('\n');
  if (output === '') output = '(the tool returned no content)';
  if (output.length > limit) {
    const capture = new OutputCapture(limit);
    capture.append(output);
    // Head and tail with the omission marked in between, as a shell command's output.
    output = capture.result().text;
  }
  return { output, isError: record.isError === true };
}
