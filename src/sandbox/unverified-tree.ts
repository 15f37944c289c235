// A project Glassbox could not fully check for git metadata after a sandboxed command (the walk ran
// out of budget, a directory could not be read, a rename failed) is treated as planted: the check
// fails closed. Quarantine needs to know what is new, so nothing more can be renamed; instead the
// project is marked, in Glassbox's home (which the sandbox masks, so a command can neither write
// nor remove the mark), and until a person removes the mark Glassbox runs no git of its own there
// (the environment block's `git status`), says so at the start of every turn, and hands the mark to
// anyone who asks (`readUnverifiedTree`) before running git outside the sandbox.

import { projectDigest } from './project-digest.js';
import { mkdir, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readProjectFile } from '../workspace/index.js';

export interface UnverifiedTree {
  /** Real path of the project root. */
  root: string;
  /** Why the check could not finish. */
  reason: string;
  /** When (ISO 8601). */
  at: string;
  /** The file that marks it; deleting it is how a person confirms the tree is clean. */
  marker: string;
}

/** Where the mark for `root` lives: one file per project, named by a digest of its real path. */
export function unverifiedTreeMarker(glassboxHome: string, root: string): string {
  return join(glassboxHome, 'unverified-trees', `${projectDigest(root)}.json`);
}

/** Marks `root` as unverified (the latest reason wins). Returns the mark's record. */
export async function markTreeUnverified(glassboxHome: string, root: string, reason: string, now = new Date()): Promise<UnverifiedTree> {
  const marker = unverifiedTreeMarker(glassboxHome, root);
  const tree: UnverifiedTree = { root, reason, at: now.toISOString(), marker };
  await mkdir(join(glassboxHome, 'unverified-trees'), { recursive: true, mode: 0o700 });
  await writeFile(marker, `${JSON.stringify({ root, reason, at: tree.at })}\n`, { mode: 0o600 });
  return tree;
}

/**
 * The mark for `root`, or null when there is none. A mark that cannot be read as one still marks
 * the tree: failing to read it must not unmark it.
 */
export async function readUnverifiedTree(glassboxHome: string, project: string): Promise<UnverifiedTree | null> {
  // Marked by its real path (what a command's root is); the same project through a symlink is the same.
  const root = await realpath(project).catch(() => project);
  const marker = unverifiedTreeMarker(glassboxHome, root);
  let text: string | null;
  try {
    text = await readProjectFile(marker, { root: null, noFollow: true, maxBytes: 64 * 1024 });
  } catch (error) {
    return { root, reason: `its mark could not be read (${(error as Error).message})`, at: '', marker };
  }
  if (text === null) return null;
  try {
    const record = JSON.parse(text) as { reason?: unknown; at?: unknown };
    const reason = typeof record.reason === 'string' ? record.reason : 'no reason recorded';
    return { root, reason, at: typeof record.at === 'string' ? record.at : '', marker };
  } catch {
    return { root, reason: 'its mark is not valid JSON', at: '', marker };
  }
}

/** What the user and the model are told, in full: what happened, what it means, what to do. */
export function describeUnverifiedTree(tree: UnverifiedTree): string {
  const when = tree.at === '' ? '' : ` (${tree.at})`;
  return (
    `${tree.root} could not be fully checked for git metadata a sandboxed command may have planted${when}: ${tree.reason}. ` +
    'Treat it as planted: a `.git` or a bare-repository layout (HEAD with refs or commondir) the check missed would let the next `git` run there start a program the command chose (core.fsmonitor, hooks). ' +
    'Glassbox runs no git of its own there until you confirm. ' +
    `To look: find ${shellQuote(tree.root)} \\( -iname .git -o -iname HEAD -o -iname commondir \\) -not -path '*/.git/*'. ` +
    `Then delete ${tree.marker} to confirm.`
  );
}

function shellQuote(text: string): string {
  return /^[\w./+-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}
