// What the coding tools keep between calls of a session, and how they read the two opaque parts
// of their context. The agent core hands `context.state` and `context.execution` through without
// looking at them; these accessors check what arrived, so a host that wires the tools wrongly gets
// a clear fatal error instead of a tool acting on garbage.

import { FatalToolError, type ToolContext } from '../agent/index.js';
import { UNRESTRICTED_EXECUTION, isExecutionPolicy, type ExecutionPolicy } from '../workspace/index.js';

export interface FileStamp {
  mtimeMs: number;
  size: number;
}

/**
 * An editor that holds the project's files (ACP's `fs/read_text_file`, `fs/write_text_file`): the
 * file tools read and write through it, so an unsaved buffer is what the model sees and a write
 * lands in the editor. Called only with an absolute path the tool's path policy already let
 * through (inside the root after realpath); either side may be absent (the disk is used).
 */
export interface EditorFiles {
  read?: (absolute: string, signal: AbortSignal) => Promise<string>;
  write?: (absolute: string, content: string, signal: AbortSignal) => Promise<void>;
}

/** What a session remembers for its tools (which files were read, for `edit_file`). */
export interface ToolSessionState {
  /** Absolute real path → fingerprint of the file as last read or written by a tool. */
  fileStamps: Map<string, FileStamp>;
  /** Set by a host whose client holds the files (ACP); absent: the tools use the disk. */
  editorFiles?: EditorFiles;
}

/** One per session (or turn): pass it as `ToolRuntimeOptions.state`. */
export function createToolSessionState(): ToolSessionState {
  return { fileStamps: new Map() };
}

function isToolSessionState(value: unknown): value is ToolSessionState {
  return typeof value === 'object' && value !== null && (value as { fileStamps?: unknown }).fileStamps instanceof Map;
}

/** The session state a file tool needs; the host must have created it with `createToolSessionState`. */
export function toolSessionState(context: Pick<ToolContext, 'state'>): ToolSessionState {
  if (!isToolSessionState(context.state)) {
    throw new FatalToolError(
      'NO_TOOL_STATE',
      "The tool runtime was created without the coding tools' session state (createToolSessionState()).",
    );
  }
  return context.state;
}

/**
 * How this call may act. Undefined means no permission policy decided (the allow-all gate of a
 * trusted host): unrestricted. Anything else that is not a policy is a wiring bug.
 */
export function executionPolicy(context: Pick<ToolContext, 'execution'>): ExecutionPolicy {
  if (context.execution === undefined) return UNRESTRICTED_EXECUTION;
  if (!isExecutionPolicy(context.execution)) {
    throw new FatalToolError(
      'INVALID_EXECUTION_POLICY',
      `The permission gate returned an execution policy this tool does not understand: ${JSON.stringify(context.execution)}.`,
    );
  }
  return context.execution;
}
