// Shared by the tool tests: a real ToolContext, a call helper that validates the arguments with
// the tool's own schema (as the runtime does), ToolError assertions, and a tree lister for
// proving what a write left on disk.
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ToolError, type AnyTool, type ToolContext } from '../../src/agent/index.js';
import { createToolSessionState } from '../../src/tools/index.js';
import type { SandboxMode } from '../../src/workspace/index.js';

function contextWithMode(mode: SandboxMode, root: string, signal: AbortSignal): ToolContext {
  return {
    root,
    execution: { mode, sandboxed: false, network: false, secretsApproved: false },
    callId: 'call-1',
    signal,
    state: createToolSessionState(),
  };
}

/** A context for the read-only tools. */
export function makeContext(root: string, signal: AbortSignal = new AbortController().signal): ToolContext {
  return contextWithMode('read-only', root, signal);
}

/** A context for the tools that write inside the workspace. */
export function makeWriteContext(root: string, signal: AbortSignal = new AbortController().signal): ToolContext {
  return contextWithMode('workspace-write', root, signal);
}

export async function callTool(tool: AnyTool, args: unknown, context: ToolContext): Promise<string> {
  const result = await tool.execute(tool.schema.parse(args), context);
  assert.notEqual(result.isError, true);
  return result.output;
}

/** Assert `promise` rejects with a ToolError carrying `code` (and a message matching `pattern`). */
export async function rejectsWithCode(promise: Promise<unknown>, code: string, pattern?: RegExp): Promise<ToolError> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof ToolError, `expected ToolError ${code}, got ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  if (pattern) assert.match(caught.message, pattern);
  return caught;
}

/** Assert the call fails with a ToolError carrying `code`; returns its message. */
export async function expectToolError(tool: AnyTool, args: unknown, context: ToolContext, code: string): Promise<string> {
  // Parsing inside the promise so a schema rejection is reported as "not a ToolError", not thrown past the assertion.
  const call = Promise.resolve().then(() => tool.execute(tool.schema.parse(args), context));
  return (await rejectsWithCode(call, code)).message;
}

/** Every entry under `dir`, relative, sorted: proves nothing else (temp files, backups) was left. */
export async function listTree(dir: string, prefix = ''): Promise<string[]> {
  // Hand-rolled so symlinked directories are listed, not followed.
  const names: string[] = [];
  for (const entry of await readdir(join(dir, prefix), { withFileTypes: true })) {
    const name = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    names.push(name);
    if (entry.isDirectory()) names.push(...(await listTree(dir, name)));
  }
  return names.sort();
}
