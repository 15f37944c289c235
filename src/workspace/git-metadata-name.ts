// Which file names git (or the file system under it) reads as a repository's `.git`. A `.git`
// holds config and hooks that name programs git runs, so creating or changing one needs a
// person's approval. Checking for the exact name `.git` is not enough wherever the file system
// folds names: on case-insensitive volumes (macOS, Windows) `.GIT` is `.git`; HFS+ ignores
// certain zero-width code points, so `.g\u200cit` is `.git` there; NTFS drops trailing dots and
// spaces (`.git.`, `.git `) and has the 8.3 short name `GIT~1`. Git itself refuses all of these in
// tree entries for the same reason (its `is_hfs_dotgit`/`is_ntfs_dotgit` checks).

/** Code points HFS+ ignores when comparing names. */
const HFS_IGNORABLE = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/gu;

/**
 * `name` (one path component) as a folding file system may compare it: without the code points
 * HFS+ ignores, lower case, without NTFS's trailing dots and spaces. Two names that fold alike
 * may be the same entry somewhere, so a check for a name git reads compares folded names.
 */
export function foldFileName(name: string): string {
  return name
    .replace(HFS_IGNORABLE, '')
    .toLowerCase()
    .replace(/[. ]+$/, '');
}

/** True when a file system may resolve `name` (one path component) to a `.git` entry. */
export function isGitMetadataName(name: string): boolean {
  const folded = foldFileName(name);
  return folded === '.git' || folded === 'git~1';
}
