// What ACP shows of a tool call, read from the tool's presentation (views/), never from its
// name: the title is the call's one-line phrase, the kind follows from what the phrase is about
// (a command, a search, a path) and whether the tool writes files, and the locations are the
// files it names. Live turns and replayed history use the same fields.

import { resolve } from 'node:path';
import type { ToolCallContent, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk';
import { actionPhrase, argumentsObject, phraseText, presentationOf, writtenPaths } from '../views/index.js';

export interface ToolCallFields {
  title: string;
  kind: ToolKind;
  locations: ToolCallLocation[];
  rawInput: unknown;
}

export function toolCallFields(name: string, rawArguments: string, root: string, done: boolean): ToolCallFields {
  const args = argumentsObject(rawArguments);
  const phrase = actionPhrase(name, rawArguments, done);
  const writes = writtenPaths(name, args);
  const presentation = presentationOf(name);
  let kind: ToolKind = 'other';
  if (presentation.writes !== undefined) kind = 'edit';
  else if (phrase.style === 'code') kind = 'execute';
  else if (phrase.style === 'quote') kind = 'search';
  else if (phrase.style === 'path') kind = 'read';
  const named = writes.length > 0 ? writes : typeof args?.path === 'string' ? [args.path] : [];
  return {
    title: phraseText(phrase),
    kind,
    locations: named.map((path) => ({ path: resolve(root, path) })),
    rawInput: args ?? rawArguments,
  };
}

/** The files a call writes, absolute, for its diff. */
export function writtenFiles(name: string, rawArguments: string, root: string): string[] {
  return writtenPaths(name, argumentsObject(rawArguments)).map((path) => resolve(root, path));
}

/** A tool's output as ACP content: fenced, so a command's output reads as such in the editor. */
export function outputContent(output: string): ToolCallContent[] {
  if (output === '') return [];
  const fence = output.includes('```') ? '````' : '```';
  return [{ type: 'content', content: { type: 'text', text: `${fence}\n${output}\n${fence}` } }];
}
