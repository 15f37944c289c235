// The .gitignore rules of the search tools: glob applies them, and grep points ripgrep at the
// same files. Only `.gitignore` files from the project root downwards count:
// ignore files above the root, global excludes and `.git/info/exclude` are outside the project.
// `.git` and `node_modules` are never descended into, whatever the rules say. A `.gitignore` is
// the repository's file: it is read through workspace/'s guarded reader, and one that is refused
// (a FIFO, a link out of the project, too large) is not applied and is reported with the result.

import { basename, join, relative, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { isInside, readProjectFile } from '../workspace/index.js';

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

async function readLayer(root: string, directory: string, refused: string[]): Promise<IgnoreLayer | null> {
  const file = join(directory, '.gitignore');
  let text: string | null;
  try {
    text = await readProjectFile(file, { root });
  } catch (error) {
    refused.push((error as Error).message);
    return null;
  }
  if (text === null) return null;
  // Git matches case-sensitively unless core.ignorecase is set; ripgrep does too.
  return { directory, file, matcher: ignore({ ignorecase: false }).add(text) };
}

const REFUSALS_SHOWN = 3;

/** The line a search result ends with when some `.gitignore` was not applied; null when all were. */
export function describeRefusedIgnoreFiles(refused: readonly string[]): string | null {
  if (refused.length === 0) return null;
  const shown = refused.slice(0, REFUSALS_SHOWN).join('; ');
  const more = refused.length > REFUSALS_SHOWN ? `; and ${refused.length - REFUSALS_SHOWN} more` : '';
  return `[Ignore rules not applied: ${shown}${more}. Files they would hide may be listed.]`;
}

/** The `.gitignore` rules in effect for the entries of one directory. */
export class IgnoreRules {
  private constructor(
    private readonly root: string,
    private readonly layers: readonly IgnoreLayer[],
    /** Shared by every rule set one `load` leads to, so a whole crawl reports in one place. */
    private readonly refusedFiles: string[],
  ) {}

  /**
   * Rules for the entries of `directory` (absolute, real, inside `root`): every `.gitignore`
   * from the root down to and including `directory`.
   */
  static async load(root: string, directory: string): Promise<LoadedIgnoreRules> {
    if (!isInside(root, directory)) throw new Error(`${directory} is not inside ${root}`);
    const below = toPosix(relative(root, directory))
      .split('/')
      .filter((name) => name !== '');
    const refused: string[] = [];
    const rootLayer = await readLayer(root, root, refused);
    let rules = new IgnoreRules(root, rootLayer ? [rootLayer] : [], refused);
    let current = root;
    for (const name of below) {
      current = join(current, name);
      if (rules.ignores(current, true)) {
        // Like ripgrep with an explicit path: the ancestors' rules do not hide what was asked for.
        const own = await readLayer(root, directory, refused);
        return { rules: new IgnoreRules(root, own ? [own] : [], refused), explicitlyIgnored: true };
      }
      rules = await rules.enter(current);
    }
    return { rules, explicitlyIgnored: false };
  }

  /** Rules for the entries of `child`, a directory directly inside this one. */
  async enter(child: string): Promise<IgnoreRules> {
    const layer = await readLayer(this.root, child, this.refusedFiles);
    return new IgnoreRules(this.root, layer ? [...this.layers, layer] : this.layers, this.refusedFiles);
  }

  /** Why `.gitignore` files met so far were not applied, one sentence each. */
  get refused(): readonly string[] {
    return this.refusedFiles;
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
