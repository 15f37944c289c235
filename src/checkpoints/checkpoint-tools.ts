// Wraps the tools that may change files so every call of theirs is checkpointed: the project is
// stamped before the call and compared after it (file-checkpointer.ts), and what changed goes to
// the session through `record`. Read-only calls pass straight through. Decided on what a call
// declares it touches (`access`), never on a tool's name, like permissions.

import type { AnyTool, ToolAccess, ToolContext, ToolResult } from '../agent/index.js';
import type { FileChangeRecord, FileCheckpointer } from './file-checkpointer.js';

export interface CheckpointHooks {
  /** Append the call's changes to the session. */
  record(call: { callId: string; tool: string }, changes: FileChangeRecord[]): Promise<void>;
  /** A checkpoint could not be taken: the call still runs, the session says a rewind may be incomplete. */
  failed(message: string): void;
}

function mayChangeFiles(access: ToolAccess): boolean {
  switch (access.kind) {
    case 'write':
    case 'exec':
      return true;
    case 'mcp':
      return !access.readOnly;
    case 'read':
    case 'none':
      return false;
  }
}

export function checkpointTools(tools: readonly AnyTool[], checkpointer: FileCheckpointer, hooks: CheckpointHooks): AnyTool[] {
  return tools.map((tool) => {
    if (tool.readOnly) return tool;
    const execute = async (args: unknown, context: ToolContext): Promise<ToolResult> => {
      let access: ToolAccess;
      try {
        access = tool.access(args, context);
      } catch {
        return tool.execute(args, context);
      }
      if (!mayChangeFiles(access)) return tool.execute(args, context);
      const mark = await checkpointer.before(access.kind === 'write' ? access.paths : []).catch((error: unknown) => {
        hooks.failed(`no checkpoint before ${tool.name} (${context.callId}): ${(error as Error).message}`);
        return null;
      });
      try {
        return await tool.execute(args, context);
      } finally {
        if (mark !== null) {
          try {
            const changes = await checkpointer.after(mark);
            if (changes.length > 0) await hooks.record({ callId: context.callId, tool: tool.name }, changes);
          } catch (error) {
            hooks.failed(`no checkpoint after ${tool.name} (${context.callId}): ${(error as Error).message}`);
          }
        }
      }
    };
    // Keep the tool's own prototype and fields (an MCP tool may be a class instance).
    return Object.assign(Object.create(Object.getPrototypeOf(tool) as object) as AnyTool, tool, { execute });
  });
}
