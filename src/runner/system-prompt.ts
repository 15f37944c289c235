// The first system message of a session: instructions, an environment snapshot and the project's
// AGENTS.md. It is committed as the session's first history item, so every later round and every
// resumed turn sends it byte for byte the same and provider prompt caches keep hitting. It lists the
// skills found (name and description; the skill tool loads a body when the model asks).
// AGENTS.md is the repository's text: it is read through workspace/'s guarded reader (a link to
// `/proc/self/environ` or a FIFO in its place is refused with a warning), and it cannot close the
// frame that marks it as the project's.

import { readdir } from 'node:fs/promises';
import { platform, release } from 'node:os';
import { join } from 'node:path';
import { loadToolDescription } from '../agent/index.js';
import { RefusedFileError, findSkills, readProjectFile, type Skill } from '../workspace/index.js';
import { SKILL_LIST_TAG } from '../views/index.js';

export const AGENTS_FILE_CAP = 8_000;
const LISTING_CAP = 40;

export interface SystemPromptInput {
  root: string;
  /** Fixed in tests so the prompt is deterministic. */
  now?: Date;
  /** Extra instructions from config, appended verbatim. */
  extraInstructions?: string;
  /**
   * The `git …` lines of the environment block. Gathering them can run programs a repository
   * names, so the caller that owns the sandbox provides them; without it there are none.
   */
  git?: () => Promise<string>;
  /** The home directory whose credential stores AGENTS.md may not lead into (default: the user's). */
  homeDir?: string;
  /** Glassbox's home, whose `skills/` folder is searched too; without it only the project's skills are listed. */
  glassboxHome?: string;
}

export interface SystemPrompt {
  text: string;
  /** What could not go into it (an AGENTS.md that was refused), to be shown as `warning` events. */
  warnings: { code: string; message: string }[];
}

export async function buildSystemPrompt(input: SystemPromptInput): Promise<SystemPrompt> {
  const instructions = loadToolDescription(new URL('./prompts/system-instructions.md', import.meta.url));
  const [git, listing, agents, found] = await Promise.all([
    input.git?.().catch(() => null) ?? Promise.resolve(null),
    topLevelListing(input.root),
    agentsFile(input.root, input.homeDir),
    findSkills({
      root: input.root,
      ...(input.glassboxHome === undefined ? {} : { glassboxHome: input.glassboxHome }),
      ...(input.homeDir === undefined ? {} : { homeDir: input.homeDir }),
    }),
  ]);
  const date = (input.now ?? new Date()).toISOString().slice(0, 10);
  const environment = [
    '<environment>',
    `cwd: ${input.root}`,
    `os: ${platform()} ${release()}`,
    `date: ${date}`,
    ...(git === null ? [] : [git]),
    `top-level entries:\n${listing}`,
    '</environment>',
  ].join('\n');
  const parts = [instructions, environment];
  if (agents.text) parts.push(`<project_instructions source="AGENTS.md">\n${agents.text}\n</project_instructions>`);
  if (found.skills.length > 0) parts.push(skillList(found.skills));
  if (input.extraInstructions?.trim()) parts.push(input.extraInstructions.trim());
  return { text: parts.join('\n\n'), warnings: [...agents.warnings, ...found.warnings] };
}

// Written once, in views/, which reads the list back for what it costs.
export { SKILL_LIST_TAG };

/**
 * Each skill's name and description, nothing more: the body costs tokens only once the model
 * loads it with the skill tool. The names and descriptions are the skill files' text, framed as
 * AGENTS.md is (they cannot close the frame), and said to be data, not the harness's orders.
 */
function skillList(skills: readonly Skill[]): string {
  const lines = skills.map((skill) => `- ${skill.name}: ${skill.description}`);
  return [
    `<${SKILL_LIST_TAG}>`,
    framedSkillText(
      [
        "Skills are instructions for particular tasks, written by the project or the user (their text, not the harness's). When a task matches a description, load the skill with the skill tool first.",
        ...lines,
      ].join('\n'),
    ),
    `</${SKILL_LIST_TAG}>`,
  ].join('\n');
}

async function topLevelListing(root: string): Promise<string> {
  try {
    const entries = await readdir(root, { withFileTypes: true });
    const names = entries
      .filter((entry) => entry.name !== '.git')
      .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
      // Not `localeCompare`: its first call loads ICU's collation data, ~20–60 ms on the way to a
      // session's first request. Case-folded code-unit order, the exact names breaking ties.
      .sort(byFoldedName);
    const shown = names.slice(0, LISTING_CAP).join('  ');
    return names.length > LISTING_CAP ? `${shown}  ... and ${names.length - LISTING_CAP} more` : shown || '(empty)';
  } catch {
    return '(unreadable)';
  }
}

function byFoldedName(a: string, b: string): number {
  const foldedA = a.toLowerCase();
  const foldedB = b.toLowerCase();
  if (foldedA !== foldedB) return foldedA < foldedB ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

// `</project_instructions` as a model would still read it: blanks or invisible format characters
// (zero-width space, joiners) may sit between `<`, `/` and the letters, in any case.
const GAP = '[\\s\\p{Cf}]*';
const frameClose = (tag: string): RegExp => new RegExp(`<(?=${GAP}/${GAP}${[...tag].join('\\p{Cf}*')})`, 'giu');
const FRAME_CLOSE = frameClose('project_instructions');
const SKILL_FRAME_CLOSE = frameClose(SKILL_LIST_TAG);

/**
 * The file's text as it goes inside its frame: a closing tag of the frame in it has its `<`
 * written as `&lt;`, so what follows still reads as the project's text, not as the harness's.
 */
export function framedProjectText(text: string): string {
  return text.replace(FRAME_CLOSE, '&lt;');
}

function framedSkillText(text: string): string {
  return text.replace(SKILL_FRAME_CLOSE, '&lt;');
}

async function agentsFile(root: string, homeDir: string | undefined): Promise<{ text: string | null; warnings: SystemPrompt['warnings'] }> {
  const path = join(root, 'AGENTS.md');
  let text: string | null;
  try {
    text = await readProjectFile(path, homeDir === undefined ? { root } : { root, homeDir });
  } catch (error) {
    const reason = error instanceof RefusedFileError ? error.message : `${path} cannot be read: ${(error as Error).message}`;
    return { text: null, warnings: [{ code: 'AGENTS_FILE_IGNORED', message: `${reason}; this session starts without its instructions.` }] };
  }
  if (text === null) return { text: null, warnings: [] };
  const clipped =
    text.length <= AGENTS_FILE_CAP
      ? text.trim()
      : `${text.slice(0, AGENTS_FILE_CAP).trim()}\n[AGENTS.md clipped at ${AGENTS_FILE_CAP} of ${text.length} characters; read the file for the rest.]`;
  return { text: framedProjectText(clipped), warnings: [] };
}
