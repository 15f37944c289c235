// Shared by the read-only tool tests: a real ToolContext and a call helper that validates the
// arguments with the tool's own schema, as the runtime does.
import assert from 'node:assert/strict';
import { createToolSessionState, ToolError, type AnyTool, type ToolContext } from '../../src/agent/index.js';

export function makeContext(root: string, signal: AbortSignal = new AbortController().signal): ToolContext {
  return {
    root,
    execution: { mode: 'read-only', sandboxed: false, network: false, secretsApproved: false },
    callId: 'call-1',
    signal,
    state: createToolSessionState(),
  };
}

export async function callTool(tool: AnyTool, args: unknown, context: ToolContext): Promise<string> {
  const result = await tool.execute(tool.schema.parse(args), context);
  assert.notEqual(result.isError, true);
  return result.output;
}

/** Assert the call fails with a ToolError carrying `code`; returns its message. */
export async function expectToolError(tool: AnyTool, args: unknown, context: ToolContext, code: string): Promise<string> {
  let caught: unknown;
  try {
    await tool.execute(tool.schema.parse(args), context);
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof ToolError, `expected ToolError ${code}, got ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  return caught.message;
}
