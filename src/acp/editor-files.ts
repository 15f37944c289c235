// The editor's files for the file tools (`fs/read_text_file`, `fs/write_text_file`), when the
// client declares them in `clientCapabilities.fs`: read_file and edit_file then see an unsaved
// buffer, and write_file and edit_file write into the editor instead of the disk. The tools call
// these only after their own path policy (inside the project after realpath) and the permission
// gate, so a path outside the project never reaches the client.

import { methods, type AgentContext } from '@agentclientprotocol/sdk';
import type { EditorFiles } from '../runner/index.js';

export interface ClientFiles {
  read: boolean;
  write: boolean;
}

export function editorFiles(offered: ClientFiles, sessionId: string, client: AgentContext): EditorFiles | null {
  if (!offered.read && !offered.write) return null;
  const options = (signal: AbortSignal) => ({ cancellationSignal: signal, stopWaitingOnCancel: true });
  return {
    ...(offered.read
      ? {
          read: async (path: string, signal: AbortSignal) =>
            (await client.request(methods.client.fs.readTextFile, { sessionId, path }, options(signal))).content,
        }
      : {}),
    ...(offered.write
      ? {
          write: async (path: string, content: string, signal: AbortSignal) => {
            await client.request(methods.client.fs.writeTextFile, { sessionId, path, content }, options(signal));
          },
        }
      : {}),
  };
}
