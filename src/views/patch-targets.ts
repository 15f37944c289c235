// The files an apply_patch patch names, read as the tool's own parser reads its headers: each line
// trimmed, CRLF or LF, `*** Add File:`, `*** Update File:` (with its `*** Move to:`) and
// `*** Delete File:`. Lenient (no envelope check), so a patch that will not parse still shows, and
// still declares, every file it would touch.

export interface PatchTargets {
  added: string[];
  updated: string[];
  deleted: string[];
  /** `*** Move to:` destinations, each after the Update File it belongs to. */
  movedTo: { from: string; to: string }[];
}

const HEADERS = [
  ['*** Add File:', 'added'],
  ['*** Update File:', 'updated'],
  ['*** Delete File:', 'deleted'],
] as const;
const MOVE = '*** Move to:';

export function patchTargets(patch: string): PatchTargets {
  const targets: PatchTargets = { added: [], updated: [], deleted: [], movedTo: [] };
  let lastUpdate: string | null = null;
  for (const raw of patch.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith(MOVE)) {
      const to = line.slice(MOVE.length).trim();
      if (to !== '' && lastUpdate !== null) targets.movedTo.push({ from: lastUpdate, to });
      continue;
    }
    for (const [prefix, group] of HEADERS) {
      if (!line.startsWith(prefix)) continue;
      const path = line.slice(prefix.length).trim();
      if (path !== '') targets[group].push(path);
      lastUpdate = group === 'updated' && path !== '' ? path : null;
    }
  }
  return targets;
}

/** Every path the patch names, move destinations included, in the order they appear. */
export function patchPaths(patch: string): string[] {
  const paths: string[] = [];
  for (const raw of patch.split(/\r?\n/)) {
    const line = raw.trim();
    for (const prefix of [...HEADERS.map(([header]) => header), MOVE]) {
      if (!line.startsWith(prefix)) continue;
      const path = line.slice(prefix.length).trim();
      if (path !== '') paths.push(path);
    }
  }
  return paths;
}
