// The hooks of both config files. The user's own hooks all run, as the user. A project's hooks
// run only once the user pinned them — `projectHooks` in the user's file maps the project's real
// path to their fingerprint — because a repository must never run its own commands around the
// user's tool calls unasked; and since a pin of the command text alone would let the repository
// change the script it runs, the fingerprint also covers the content of every project file a
// command names. Any change unpins them again, with a notice saying so.

import { createHash } from 'node:crypto';
import { readFile, realpath, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { RefusedFileError, isInside, projectPin, readProjectFile } from '../workspace/index.js';
import { HOOK_EVENTS } from '../protocol/index.js';
import { HookConfigError, type HookDefinition, parseHooksSection } from './hook-config.js';

export interface HookNotice {
  code: string;
  message: string;
}

export interface LoadedHooks {
  /** The user's hooks, then the project's when pinned, each file in its own order. */
  hooks: HookDefinition[];
  warnings: HookNotice[];
}

function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new HookConfigError(`${file} is not valid JSON: ${(error as Error).message}`);
  }
}

/** Words of a command that may name a file: split on blanks, quotes and shell operators. */
function namedPaths(command: string): string[] {
  return command
    .split(/[\s"'`;|&()<>]+/)
    .map((word) => word.replace(/^\$\{?(?:CLAUDE_PROJECT_DIR|GLASSBOX_PROJECT_DIR)\}?\/?/, './'))
    .filter((word) => word !== '' && !word.startsWith('-') && !word.startsWith('$'));
}

/** Each project file the hooks' commands name (found as a regular file inside the root), with its content's hash. */
async function namedFiles(hooks: readonly HookDefinition[], root: string): Promise<[string, string][]> {
  const files = new Map<string, string>();
  for (const hook of hooks) {
    for (const word of namedPaths(hook.command)) {
      const path = resolve(root, word);
      const real = await realpath(path).catch(() => null);
      if (real === null || !isInside(root, real) || files.has(real)) continue;
      const info = await stat(real).catch(() => null);
      if (!info?.isFile()) continue;
      files.set(
        real,
        createHash('sha256')
          .update(await readFile(real))
          .digest('hex'),
      );
    }
  }
  return [...files.entries()].sort(([a], [b]) => a.localeCompare(b));
}

/** `sha256:…` of the project's hooks as written and of every project file their commands name. */
/**
 * The events Glassbox knows (all of which it runs) are part of every pin: a pin given when some of
 * a project's hooks were inert (read but not run) must not start running them in a release that
 * runs more events.
 */
export async function projectHooksFingerprint(section: unknown, hooks: readonly HookDefinition[], root: string): Promise<string> {
  const files = await namedFiles(hooks, root);
  return `sha256:${createHash('sha256')
    .update(JSON.stringify({ hooks: section, files, runs: HOOK_EVENTS }))
    .digest('hex')}`;
}

function pinnedFingerprint(config: unknown, userPath: string, project: string): string | undefined {
  const pin = projectPin((config as Record<string, unknown> | null)?.projectHooks, project);
  if (pin === 'invalid')
    throw new HookConfigError(`${userPath}: projectHooks must map absolute project directories to "sha256:…" fingerprints`);
  return pin;
}

/** Reads both files; a malformed hook rejects with a `HookConfigError` (exit 2) naming the file and the entry. */
export async function readHooks(home: string, root: string): Promise<LoadedHooks> {
  const userPath = join(home, 'config.json');
  const projectPath = join(root, '.glassbox', 'config.json');
  const warnings: HookNotice[] = [];
  const [userText, projectRead, projectKey, userReal, projectReal] = await Promise.all([
    readProjectFile(userPath, { root: null }),
    readProjectFile(projectPath, { root }).then(
      (text) => ({ text }),
      (error: unknown) => ({ error }),
    ),
    realpath(root).catch(() => resolve(root)),
    realpath(userPath).catch(() => userPath),
    realpath(projectPath).catch(() => projectPath),
  ]);
  // A file that mentions no hooks is left to the readers of its other sections (and their errors).
  const mentionsHooks = userText !== null && (userText.includes('"hooks"') || userText.includes('projectHooks'));
  const userConfig = mentionsHooks ? parseJson(userText, userPath) : null;
  const hooks = parseHooksSection(userConfig, userPath, 'user');
  if ('error' in projectRead) {
    if (!(projectRead.error instanceof RefusedFileError)) throw projectRead.error;
    warnings.push({ code: 'PROJECT_CONFIG_IGNORED', message: `${projectRead.error.message}; its hooks do not run.` });
    return { hooks, warnings };
  }
  if (projectRead.text === null || projectReal === userReal || !projectRead.text.includes('"hooks"')) return { hooks, warnings };
  let projectConfig: unknown;
  try {
    projectConfig = JSON.parse(projectRead.text);
  } catch (error) {
    warnings.push({
      code: 'PROJECT_CONFIG_IGNORED',
      message: `${projectPath} is not valid JSON (${(error as Error).message}); its hooks do not run.`,
    });
    return { hooks, warnings };
  }
  const project = parseHooksSection(projectConfig, projectPath, 'project');
  if (project.length === 0) return { hooks, warnings };
  const fingerprint = await projectHooksFingerprint((projectConfig as Record<string, unknown>).hooks, project, projectKey);
  const pinned = pinnedFingerprint(userConfig, userPath, projectKey);
  if (pinned === fingerprint) return { hooks: [...hooks, ...project], warnings };
  const listed = project.map((hook) => `${hook.event}: ${hook.command}`).join('; ');
  const entry = JSON.stringify({ [projectKey]: fingerprint });
  warnings.push(
    pinned === undefined
      ? {
          code: 'HOOKS_NOT_PINNED',
          message:
            `${projectPath} has hooks (${listed}); a project's hooks do not run until you pin them. ` +
            `If you trust these commands and the files they run as they are now, add to ${userPath}: "projectHooks": ${entry}`,
        }
      : {
          code: 'HOOKS_CHANGED',
          message:
            `${projectPath}'s hooks or the files they run changed since you pinned them, so they do not run (${listed}). ` +
            `If you trust them as they are now, set projectHooks[${JSON.stringify(projectKey)}] to ${JSON.stringify(fingerprint)} in ${userPath}.`,
        },
  );
  return { hooks, warnings };
}
