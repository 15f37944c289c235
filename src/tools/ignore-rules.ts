// The .gitignore rules of the search tools: glob applies them, and grep points ripgrep at the
// same files. Only `.gitignore` files from the project root downwards count:
// ignore files above the root, global excludes and `.git/info/exclude` are outside the project.
// `.git` and `node_modules` are never descended into, whatever the rules say.

import { readFile } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { isInside } from '../workspace/index.js';

/** Entry names skipped by every search tool, at any depth below the starting directory. */
export const ALWAYS_IGNORED_NAMES: readonly string[] = ['.git', 'node_modules'];

const alwaysIgnored = new Set(ALWAYS_IGNORED_NAMES);

interface IgnoreLayer {
  /** Absolute directory holding the `.gitignore`; its patterns are relative to it. */
  directory: string;
  /** Absolute path of the `.gitignore` file. */
  file: string;
  matcher: Ignore;
}

export interface LoadedIgnoreRules {
  rules: IgnoreRules;
  /**
   * The starting directory is itself ignored by the `.gitignore` files above it. The caller asked
   * for it by name, so it is searched anyway, and only the rules from that directory down apply.
   */
  explicitlyIgnored: boolean;
}

function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}

async function readLayer(directory: string): Promise<IgnoreLayer | null> {
  const file = join(directory, '.gitignore');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    // Missing, a directory, or unreadable: git would not apply it either.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'EACCES' || code === 'ENOTDIR') return null;
    throw error;
  }
  // Git matches case-sensitively unless core.ignorecase is set; ripgrep does too.
  return { directory, file, matcher: ignore({ ignorecase: false }).add(text) };
}

/** The `.gitignore` rules in effect for the entries of one directory. */
export class IgnoreRules {
  private constructor(private readonly layers: readonly IgnoreLayer[]) {}

  /**
   * Rules for the entries of `directory` (absolute, real, inside `root`): every `.gitignore`
   * from the root down to and including `directory`.
   */
  static async load(root: string, directory: string): Promise<LoadedIgnoreRules> {
    if (!isInside(root, directory)) throw new Error(`${directory} is not inside ${root}`);
    const below = toPosix(relative(root, directory))
      .split('/')
      .filter((name) => name !== '');
    const rootLayer = await readLayer(root);
    let rules = new IgnoreRules(rootLayer ? [rootLayer] : []);
    let current = root;
    for (const name of below) {
      current = join(current, name);
      if (rules.ignores(current, true)) {
        // Like ripgrep with an explicit path: the ancestors' rules do not hide what was asked for.
        const own = await readLayer(directory);
        return { rules: new IgnoreRules(own ? [own] : []), explicitlyIgnored: true };
      }
      rules = await rules.enter(current);
    }
    return { rules, explicitlyIgnored: false };
  }

  /** Rules for the entries of `child`, a directory directly inside this one. */
  async enter(child: string): Promise<IgnoreRules> {
    const layer = await readLayer(child);
    return new IgnoreRules(layer ? [...this.layers, layer] : this.layers);
  }

  /** `.gitignore` files in effect, shallowest first. */
  get files(): string[] {
    return this.layers.map((layer) => layer.file);
  }

  /** Whether `path`, an entry of this directory, is hidden. */
  ignores(path: string, isDirectory: boolean): boolean {
    if (alwaysIgnored.has(basename(path))) return true;
    // Deeper files win over shallower ones; within a file the last matching pattern wins,
    // which the matcher already does.
    for (let index = this.layers.length - 1; index >= 0; index -= 1) {
      const layer = this.layers[index]!;
      const rel = toPosix(relative(layer.directory, path));
      if (rel === '' || rel.startsWith('../')) continue;
      const result = layer.matcher.test(isDirectory ? `${rel}/` : rel);
      if (result.ignored) return true;
      if (result.unignored) return false;
    }
    return false;
  }
}
