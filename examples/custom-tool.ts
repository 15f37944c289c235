// Embedding Glassbox: the coding agent with one tool of your own and your own approval handler.
// Only the public entry points are used (`glassbox`, `glassbox/agent`, `glassbox/model`).
import { join } from 'node:path';
import { appendFile } from 'node:fs/promises';
import { z } from 'zod';
import { openRunner, runTurn, type TurnResult } from 'glassbox';
import type { ApprovalBroker, Tool } from 'glassbox/agent';
import { createGateway } from 'glassbox/model';

export interface ExampleOptions {
  root: string;
  home: string;
  baseURL: string;
  apiKey: string;
  model: string;
  prompt: string;
}

/** A tool that appends a line to NOTES.md: a write, so the read-only sandbox asks a person first. */
export const noteTool: Tool<{ line: string }> = {
  name: 'note',
  description: 'Append one line to NOTES.md.',
  schema: z.object({ line: z.string() }),
  readOnly: false,
  strict: true,
  access: (_args, { root }) => ({ kind: 'write', paths: [join(root, 'NOTES.md')] }),
  async execute({ line }, { root }) {
    await appendFile(join(root, 'NOTES.md'), `${line}\n`);
    return { output: 'noted' };
  },
};

/** Approves notes, refuses everything else, and keeps a log of what it was asked. */
export function notesOnlyApprover(asked: string[]): ApprovalBroker {
  return {
    async request(request) {
      asked.push(request.summary);
      return request.toolName === 'note'
        ? { decision: 'approve', by: 'example', message: null }
        : { decision: 'deny', by: 'example', message: 'notes only' };
    },
  };
}

export async function runExample(options: ExampleOptions, asked: string[] = []): Promise<TurnResult> {
  const gateway = createGateway({ wireApi: 'chat', baseURL: options.baseURL, apiKey: options.apiKey });
  const runner = await openRunner({
    root: options.root,
    home: options.home,
    model: options.model,
    wireApi: 'chat',
    gateway,
    sandbox: 'read-only',
    approvalPolicy: 'on-request',
    network: false,
    tools: [noteTool],
  });
  return runTurn(runner, {
    prompt: options.prompt,
    runId: 'example',
    signal: new AbortController().signal,
    approvals: notesOnlyApprover(asked),
  });
}
