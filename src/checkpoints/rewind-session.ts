// A rewind in two steps, so every face can show what will change and ask before anything does:
// `prepareRewind` reads the session and plans the restore (rewind-plan.ts) with its diff;
// `performRewind` takes the session's lock, checks each file once more (the person may have taken
// a while to confirm), puts the files back in one all-or-nothing commit, branches the conversation
// (a fork up to turn N-1, as `glassbox fork` makes) and records the rewind in the session.

import { resolveRoot } from '../workspace/index.js';
import { forkSession, type SessionStore } from '../sessions/index.js';
import { commitFileChanges, type FileChange } from '../tools/index.js';
import type { FileState } from '../protocol/index.js';
import { BlobStore } from './blob-store.js';
import { matches, planRewind, readCurrent, restoreDiff, restoreLocation, type RewindPlan } from './rewind-plan.js';

export class RewindError extends Error {
  override readonly name = 'RewindError';
  constructor(
    readonly code: 'REWIND_INVALID_TURN' | 'REWIND_CONFLICT' | 'REWIND_NO_ROOT' | 'REWIND_NOTHING',
    message: string,
  ) {
    super(message);
  }

  /** For the CLI: a turn that does not exist is a usage error. */
  get exitCode(): number {
    return this.code === 'REWIND_INVALID_TURN' || this.code === 'REWIND_NOTHING' ? 2 : 1;
  }
}

export interface RewindScope {
  /** Restore the files (default true). */
  files: boolean;
  /** Branch the conversation (default true). */
  conversation: boolean;
}

export interface PreparedRewind {
  sessionId: string;
  toTurn: number;
  root: string;
  home: string;
  scope: RewindScope;
  /** null when only the conversation is rewound. */
  plan: RewindPlan | null;
  /** The diff of every restore, in plan order; empty when no file changes. */
  diff: string[];
  /** The session has checkpoints at all (a session from before they were kept has none). */
  checkpointed: boolean;
}

export interface RewindOutcome {
  forkId: string | null;
  restored: Array<{ path: string; state: FileState }>;
}

export async function prepareRewind(
  store: SessionStore,
  sessionId: string,
  toTurn: number,
  options: { home: string; scope: RewindScope },
): Promise<PreparedRewind> {
  const { scope, home } = options;
  if (!scope.files && !scope.conversation) throw new RewindError('REWIND_NOTHING', 'nothing to rewind: neither files nor conversation');
  const contents = await store.read(sessionId);
  const turns = contents.records.filter((record) => record.type === 'turn_started').length;
  if (!Number.isInteger(toTurn) || toTurn < 1 || toTurn > turns) {
    throw new RewindError(
      'REWIND_INVALID_TURN',
      `cannot rewind session ${sessionId} to before turn ${toTurn}: it has ${turns} turn${turns === 1 ? '' : 's'} (use 1 to ${turns})`,
    );
  }
  let root: string;
  try {
    root = resolveRoot(contents.meta.cwd);
  } catch {
    throw new RewindError('REWIND_NO_ROOT', `the session's project ${contents.meta.cwd} no longer exists`);
  }
  const checkpointed = contents.records.some((record) => record.type === 'file_checkpoint');
  const prepared: PreparedRewind = { sessionId, toTurn, root, home, scope, plan: null, diff: [], checkpointed };
  if (!scope.files) return prepared;
  const plan = await planRewind(contents.records, toTurn, { root, home });
  const blobs = new BlobStore(home);
  const diff: string[] = [];
  for (const restore of plan.restores) {
    const bytes = restore.target.kind === 'file' ? await blobs.get(restore.target.sha256) : null;
    diff.push(...restoreDiff(restore, bytes));
  }
  return { ...prepared, plan, diff };
}

export async function performRewind(
  store: SessionStore,
  prepared: PreparedRewind,
  options: { glassboxVersion?: string } = {},
): Promise<RewindOutcome> {
  const { plan } = prepared;
  if (plan !== null && plan.conflicts.length > 0) {
    throw new RewindError('REWIND_CONFLICT', `refused: ${plan.conflicts.length} file(s) changed outside Glassbox or may not be restored`);
  }
  // Taken first: a session another process is running is refused before any file is touched.
  const writer = await store.openForAppend(prepared.sessionId);
  try {
    const restored: RewindOutcome['restored'] = [];
    if (plan !== null && plan.restores.length > 0) {
      const blobs = new BlobStore(prepared.home);
      const changes: FileChange[] = [];
      for (const restore of plan.restores) {
        // Checked again now: a symlink swapped in or an edit made while the person read the diff.
        const location = await restoreLocation(restore.path, { root: prepared.root, home: prepared.home });
        if ('why' in location || location.absolute !== restore.absolute) {
          throw new RewindError(
            'REWIND_CONFLICT',
            `refused: ${restore.path} may not be restored now (${'why' in location ? location.why : 'moved'})`,
          );
        }
        const now = await readCurrent(location.absolute);
        const expected: FileState =
          restore.current.kind === 'file'
            ? { kind: 'file', sha256: restore.current.sha256, size: restore.current.bytes.length, mode: restore.current.mode }
            : { kind: 'absent' };
        if (restore.current.kind === 'other' || matches(now, expected) !== true) {
          throw new RewindError('REWIND_CONFLICT', `refused: ${restore.path} changed since the diff was shown`);
        }
        const { target } = restore;
        changes.push(
          target.kind === 'file'
            ? { path: location.absolute, content: await blobs.get(target.sha256), mode: target.mode }
            : { path: location.absolute, content: null },
        );
        restored.push({ path: restore.path, state: target });
      }
      await commitFileChanges(changes);
    }
    const forkId = prepared.scope.conversation
      ? await forkSession(store, prepared.sessionId, {
          atTurn: prepared.toTurn - 1,
          ...(options.glassboxVersion === undefined ? {} : { glassboxVersion: options.glassboxVersion }),
        })
      : null;
    await writer.append({ type: 'rewind', toTurn: prepared.toTurn, files: prepared.scope.files ? restored : null, forkId });
    await writer.sync();
    return { forkId, restored };
  } finally {
    await writer.close();
  }
}
