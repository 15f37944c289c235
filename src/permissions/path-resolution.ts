// Where a path a command names really leads, and what a glob can really match, read off the file
// system the way the kernel and bash will: components are followed one by one, so a symbolic link
// is entered before a `..` after it climbs (`link/../x` is the parent of the link's target, not
// `x`), and a glob is matched against the directory entries that exist now. The classifier checks
// every candidate; anything it cannot follow (a loop, too many matches) counts as leading nowhere
// it can vouch for.

import { lstatSync, readdirSync, readlinkSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { globComponentPattern } from './shell-word.js';

/** Symbolic links followed while resolving one path before it counts as a loop (Linux uses 40). */
const MAX_LINKS = 40;
/** Matches of one glob listed before the glob counts as too wide to check. */
export const MAX_GLOB_MATCHES = 1_000;
/** What a path leads to when it cannot be followed: nowhere inside any project. */
export const UNRESOLVABLE = '/';

function isSymlink(path: string): boolean | null {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return null;
  }
}

/**
 * The physical location of `path` (relative to the real directory `from`): each component taken in
 * turn as the kernel does, symbolic links replaced by their targets before the next component
 * (so `..` climbs from the target). Components after one that does not exist are appended as
 * written, `..` folded (the kernel would fail on them; a later command might create them).
 */
export function physicalLocation(from: string, path: string): string {
  const pending = path.split('/');
  let current = isAbsolute(path) ? sep : from;
  let links = 0;
  while (pending.length > 0) {
    const component = pending.shift()!;
    if (component === '' || component === '.') continue;
    if (component === '..') {
      current = dirname(current);
      continue;
    }
    const next = join(current, component);
    const link = isSymlink(next);
    if (link === null) return resolve(next, ...pending);
    if (!link) {
      current = next;
      continue;
    }
    if (++links > MAX_LINKS) return UNRESOLVABLE;
    let target: string;
    try {
      target = readlinkSync(next);
    } catch {
      return UNRESOLVABLE;
    }
    // The target's components are walked too, relative to the link's directory.
    pending.unshift(...target.split('/'));
    if (isAbsolute(target)) current = sep;
  }
  return current;
}

const GLOB_CHARS = /[*?[]/;

/**
 * The paths a glob matches now (relative to the real directory `from`, as bash would pass them),
 * or null when there are more than MAX_GLOB_MATCHES or a directory cannot be read. Names starting
 * with `.` match only a component that starts with a literal `.` (bash's default, no dotglob).
 */
export function expandGlob(from: string, pattern: string): string[] | null {
  const absolute = isAbsolute(pattern);
  let matches = [absolute ? sep : ''];
  for (const component of pattern.split('/')) {
    if (component === '') continue;
    const next: string[] = [];
    for (const prefix of matches) {
      if (!GLOB_CHARS.test(component)) {
        next.push(prefix === '' ? component : join(prefix, component));
        continue;
      }
      const matcher = globComponentPattern(component);
      if (matcher === null) return null;
      const directory = prefix === '' ? from : isAbsolute(prefix) ? prefix : join(from, prefix);
      let names: string[];
      try {
        const raw = readdirSync(directory, { encoding: 'buffer' });
        names = raw.map((name) => name.toString('utf8'));
        // A name that is not UTF-8 would be read here as U+FFFD, a name no file has: the check
        // would follow nothing while bash passes the real name on.
        if (raw.some((name, index) => !Buffer.from(names[index]!, 'utf8').equals(name))) return null;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR') continue;
        return null;
      }
      for (const name of names) {
        if (name.startsWith('.') && !component.startsWith('.')) continue;
        if (matcher.test(name)) next.push(prefix === '' ? name : join(prefix, name));
      }
    }
    if (next.length > MAX_GLOB_MATCHES) return null;
    matches = next;
  }
  return matches.filter((match) => match !== '' && match !== sep);
}
