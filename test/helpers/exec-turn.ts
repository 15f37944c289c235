// One `glassbox exec` turn in this process: the runner with every built-in tool, the JSONL store
// under the home, default compaction and MCP, an approval registry with the terminal approver on a
// stdin that is no TTY, and the events `--json` would print. For behaviour of the turn itself
// (permissions, sessions, tools); what only a process shows (exit codes, signals, stdout/stderr,
// the environment children inherit) stays in test/cli/, which runs the built CLI.

import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { ApprovalRegistry, type RunEvent } from '../../src/agent/index.js';
import { attachTerminalApprover } from '../../src/cli/terminal-approver.js';
import { createGateway, type WireApi } from '../../src/model/index.js';
import type { ApprovalPolicy } from '../../src/permissions/index.js';
import { openRunner, runTurn, type TurnResult } from '../../src/runner/index.js';
import type { SandboxMode } from '../../src/workspace/index.js';

export interface ExecTurnOptions {
  root: string;
  home: string;
  baseURL: string;
  prompt: string;
  wireApi?: WireApi;
  model?: string;
  apiKey?: string;
  sandbox?: SandboxMode;
  approvalPolicy?: ApprovalPolicy;
  resume?: string | null;
}

export interface ExecTurn extends TurnResult {
  /** Every run event, in order: what `exec --json` prints. */
  events: Array<RunEvent & Record<string, unknown>>;
}

export async function execTurn(options: ExecTurnOptions): Promise<ExecTurn> {
  const wireApi = options.wireApi ?? 'chat';
  const runner = await openRunner({
    root: options.root,
    home: options.home,
    model: options.model ?? 'test-model',
    wireApi,
    gateway: createGateway({ wireApi, baseURL: options.baseURL, apiKey: options.apiKey ?? 'sk-test' }),
    sandbox: options.sandbox ?? 'read-only',
    approvalPolicy: options.approvalPolicy ?? 'on-request',
    network: false,
  });
  const approvals = new ApprovalRegistry();
  // What `exec` sees when stdin is a pipe or /dev/null: nobody to ask.
  const stdin = new PassThrough() as unknown as NodeJS.ReadStream;
  const detach = attachTerminalApprover(approvals, stdin, new PassThrough() as unknown as NodeJS.WriteStream);
  const events: ExecTurn['events'] = [];
  try {
    const result = await runTurn(runner, {
      prompt: options.prompt,
      resume: options.resume ?? null,
      runId: randomUUID(),
      signal: new AbortController().signal,
      approvals,
      onEvent: (event) => events.push(event as ExecTurn['events'][number]),
    });
    return { ...result, events };
  } finally {
    detach();
  }
}
