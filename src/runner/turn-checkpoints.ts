// The checkpoints of a turn's file changes (checkpoints/): the tools that may write are wrapped so
// each call's changes land in the session as `file_checkpoint` records, which `glassbox rewind`
// and `/rewind` restore from. One checkpointer per session while the runner lives, keyed on the
// session's tool state, so the copies it keeps carry over from turn to turn.

import type { AnyTool } from '../agent/index.js';
import { BlobStore, FileCheckpointer, checkpointTools, excludedHome } from '../checkpoints/index.js';
import type { SessionWriter } from '../sessions/index.js';
import type { ToolSessionState } from '../tools/index.js';

const checkpointers = new WeakMap<ToolSessionState, FileCheckpointer>();

export function checkpointedTools(
  tools: readonly AnyTool[],
  options: { root: string; home: string; state: ToolSessionState; writer: SessionWriter; turn: number },
): AnyTool[] {
  const { root, home, state, writer, turn } = options;
  let checkpointer = checkpointers.get(state);
  if (checkpointer === undefined) {
    checkpointer = new FileCheckpointer(root, new BlobStore(home), excludedHome(root, home));
    checkpointers.set(state, checkpointer);
  }
  return checkpointTools(tools, checkpointer, {
    async record(call, changes) {
      await Promise.all(
        changes.map((change) => writer.append({ type: 'file_checkpoint', turn, callId: call.callId, tool: call.tool, ...change })),
      );
    },
    failed(message) {
      writer
        .append({ type: 'warning', turn, code: 'CHECKPOINT_FAILED', message: `${message}; a rewind past this call may be incomplete` })
        .catch(() => {});
    },
  });
}
