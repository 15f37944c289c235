// grep: search file contents with ripgrep, the one engine (one regex syntax, one set of ignore
// rules). The binary comes from @vscode/ripgrep's per-platform npm packages, so installing
// Glassbox installs it; an `rg` in a system directory (or `GLASSBOX_RG`) serves platforms those
// packages do not cover. Never an `rg` from PATH or from inside the project (sandbox/'s
// trusted-program.ts): ripgrep runs on the host, and a sandboxed command can write there. That
// includes Glassbox's own node_modules when Glassbox works on its own checkout.
// docs/benchmarks.md has the measurements behind dropping the JavaScript engine.

import { stat } from 'node:fs/promises';
import { findTrustedProgram, type ProgramLookup } from '../../sandbox/index.js';
import { basename, dirname, relative, resolve, sep } from 'node:path';
import { isSecretPath } from '../../workspace/index.js';
import picomatch from 'picomatch';
import { z } from 'zod';
import { builtInSchema, loadToolDescription, ToolError, type Tool, type ToolContext, type ToolResult } from '../../agent/index.js';
import { IgnoreRules, describeRefusedIgnoreFiles } from '../ignore-rules.js';
import { resolveExisting } from '../path-policy.js';
import { executionPolicy } from '../tool-session-state.js';
import { DEFAULT_GREP_LIMITS, formatGrepReport, type GrepLimits } from './grep-report.js';
import { searchWithRipgrep } from './ripgrep-search.js';

const grepSchema = builtInSchema(
  'grep',
  z.object({
    pattern: z.string().min(1).describe('Regex, or plain text with literal.'),
    path: z.string().optional().describe('File or directory (default: root).'),
    glob: z.string().optional().describe('Only files matching this glob.'),
    ignore_case: z.boolean().optional().describe('Case-insensitive (default false).'),
    literal: z.boolean().optional().describe('Pattern is plain text (default false).'),
  }),
);

export type GrepArgs = z.infer<typeof grepSchema>;

export interface GrepToolOptions {
  /** ripgrep executable; default: {@link locateRipgrep}. */
  ripgrepPath?: string;
  limits?: GrepLimits;
}

let bundled: Promise<string | null> | null = null;

/** The binary @vscode/ripgrep installed for this platform, or null (no package for it, or installed without optional dependencies). */
function bundledRipgrep(): Promise<string | null> {
  bundled ??= (async () => {
    try {
      // Imported here, not at the top: the module throws on load when the platform package is absent.
      const { rgPath } = await import('@vscode/ripgrep');
      return rgPath;
    } catch {
      return null;
    }
  })();
  return bundled;
}

/**
 * The ripgrep the tool runs for a project at `root`: `GLASSBOX_RG`, else the bundled binary unless
 * it lies inside the project, else `rg` in a system directory; with why when there is none.
 */
export async function findRipgrep(root?: string, env: NodeJS.ProcessEnv = process.env): Promise<ProgramLookup> {
  const path = await bundledRipgrep();
  return findTrustedProgram('rg', { env, root, bundled: path === null ? [] : [path] });
}

/** The ripgrep the tool runs (see `findRipgrep`), or null. */
export async function locateRipgrep(root?: string): Promise<string | null> {
  return (await findRipgrep(root)).path;
}

/**
 * The `glob` filter with ripgrep's meaning: a glob without `/` matches a file name at any depth,
 * one with `/` matches the path relative to the searched directory. Applied by the tool rather
 * than passed as `rg --glob`, because ripgrep lets a matching --glob override .gitignore.
 */
function createIncludeFilter(glob: string | undefined, searchDirectory: string): (absolutePath: string) => boolean {
  if (glob === undefined || glob.trim() === '') return () => true;
  let pattern = glob.trim();
  while (pattern.startsWith('./')) pattern = pattern.slice(2);
  if (pattern.startsWith('/')) pattern = pattern.slice(1);
  const byName = !pattern.includes('/');
  const matches = picomatch(pattern, { dot: true });
  return (absolutePath) => {
    const candidate = byName ? basename(absolutePath) : relative(searchDirectory, absolutePath).split(sep).join('/');
    return matches(candidate);
  };
}

/**
 * A directory search never shows secret files (`.env`, keys…): reading them needs approval, and
 * the permission check only sees the directory. Naming the file itself goes through that check.
 */
function skipSecretsUnlessNamed(
  include: (absolutePath: string) => boolean,
  root: string,
  targetIsDirectory: boolean,
  hidden: ((absolutePath: string) => boolean) | undefined,
): (absolutePath: string) => boolean {
  if (!targetIsDirectory) return include;
  // So are files a deny or ask rule from the config covers (`Read(secrets/**)`).
  return (absolutePath) =>
    !isSecretPath(relative(root, absolutePath).split(sep).join('/')) && !(hidden?.(absolutePath) ?? false) && include(absolutePath);
}

export function createGrepTool(options: GrepToolOptions = {}): Tool<GrepArgs> {
  const limits = options.limits ?? DEFAULT_GREP_LIMITS;
  const executable = async (root: string): Promise<string> => {
    if (options.ripgrepPath !== undefined) return options.ripgrepPath;
    const found = await findRipgrep(root);
    if (found.path !== null) return found.path;
    throw new ToolError('SEARCH_FAILED', `ripgrep is not available: ${found.reason}. Install ripgrep, or search with the shell tool.`);
  };

  return {
    name: 'grep',
    description: loadToolDescription(new URL('./grep.md', import.meta.url)),
    schema: grepSchema,
    readOnly: true,
    strict: false,
    access: (args, context) => ({ kind: 'read', paths: [resolve(context.root, args.path ?? '.')] }),
    async execute(args: GrepArgs, context: ToolContext): Promise<ToolResult> {
      const { root, signal } = context;
      signal.throwIfAborted();
      // ripgrep cannot be given one as an argument, and files holding NUL bytes are skipped as
      // binary anyway, so such a pattern could never match.
      if (args.pattern.includes('\0'))
        throw new ToolError('INVALID_PATTERN', 'The pattern contains a NUL byte; binary files are not searched, so it can never match.');
      const target = await resolveExisting(root, args.path ?? '.');
      const info = await stat(target.absolute);
      const targetIsDirectory = info.isDirectory();
      if (!targetIsDirectory && !info.isFile()) {
        throw new ToolError('NOT_A_FILE', `${args.path} is not a regular file or directory, so it cannot be searched.`);
      }
      const searchDirectory = targetIsDirectory ? target.absolute : dirname(target.absolute);
      let ancestorIgnoreFiles: string[] = [];
      let refusedNote: string | null = null;
      if (targetIsDirectory) {
        const loaded = await IgnoreRules.load(root, target.absolute);
        refusedNote = describeRefusedIgnoreFiles(loaded.rules.refused);
        // The target's own .gitignore ripgrep reads itself as it enters it.
        ancestorIgnoreFiles = loaded.explicitlyIgnored ? [] : loaded.rules.files.filter((file) => dirname(file) !== target.absolute);
      }
      const ripgrep = await executable(root);
      const files = await searchWithRipgrep(
        {
          root,
          target: target.absolute,
          targetIsDirectory,
          ancestorIgnoreFiles,
          pattern: args.pattern,
          literal: args.literal ?? false,
          ignoreCase: args.ignore_case ?? false,
          includes: skipSecretsUnlessNamed(
            createIncludeFilter(args.glob, searchDirectory),
            root,
            targetIsDirectory,
            executionPolicy(context).hiddenPath,
          ),
          keepPerFile: limits.maxLinesPerFile,
          lineWidth: limits.lineWidth,
          signal,
        },
        ripgrep,
      );
      signal.throwIfAborted();
      const report = formatGrepReport(files, limits);
      return { output: refusedNote === null ? report : `${report}\n${refusedNote}` };
    },
  };
}
