// Skills in the open SKILL.md format: a folder holding `SKILL.md` (front matter with `name` and
// `description`, then the instructions) and any supporting files. They are found in the
// project's `.agents/skills/` and `.claude/skills/` and in Glassbox's home `skills/`. A skill is
// text someone else wrote, read on the model's behalf: every file of it goes through the guarded
// reader with the skill's own folder as the root, so a link in it to `~/.ssh/id_rsa`, to a
// secret of the project or to a FIFO is refused, and a skill folder that leads out of the place
// it was found in is not a skill.

import { readdir, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { FrontMatterError, parseFrontMatter } from './front-matter.js';
import { isInside } from './path-containment.js';
import { RefusedFileError, readProjectFile } from './read-project-file.js';

/** A SKILL.md larger than this is refused; a skill is instructions, not a data set. */
export const MAX_SKILL_FILE_BYTES = 256 * 1024;
/** The agentskills.io limits: the name as a folder name, the description as one paragraph. */
const NAME = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
export const MAX_SKILL_DESCRIPTION = 1024;
/** Supporting files listed when a skill is loaded (a skill is a small folder). */
const MAX_LISTED_FILES = 100;
const MAX_LISTED_DEPTH = 4;

export type SkillSource = 'project' | 'home';

export interface Skill {
  name: string;
  description: string;
  /** The skill's folder, real path. */
  dir: string;
  /** Where it was found, for messages: `.agents/skills/x/SKILL.md` or `<home>/skills/x/SKILL.md`. */
  label: string;
  source: SkillSource;
}

export interface SkillPlaces {
  /** The project root (real path). */
  root: string;
  /** Glassbox's home (`GLASSBOX_HOME`, default `~/.glassbox`); absent: the project's skills only. */
  glassboxHome?: string;
  /** The user's home, whose credential stores are never read (default: the OS's). */
  homeDir?: string;
}

export interface FoundSkills {
  skills: Skill[];
  warnings: { code: string; message: string }[];
}

/** The folders searched, first match of a name winning: the project's, then the home's. */
export function skillFolders(places: SkillPlaces): { dir: string; base: string; source: SkillSource; label: string }[] {
  const home = places.glassboxHome;
  return [
    { dir: join(places.root, '.agents', 'skills'), base: places.root, source: 'project', label: '.agents/skills' },
    { dir: join(places.root, '.claude', 'skills'), base: places.root, source: 'project', label: '.claude/skills' },
    ...(home === undefined
      ? []
      : [{ dir: join(home, 'skills'), base: join(home, 'skills'), source: 'home' as const, label: `${home}/skills` }]),
  ];
}

function warning(message: string): FoundSkills['warnings'][number] {
  return { code: 'SKILL_IGNORED', message };
}

/**
 * The real path of `dir` when it is a directory inside `base` (after realpath); null when it is
 * missing or not a directory, `outside` (with where it leads) when a link takes it out of `base`.
 */
async function realDirectoryInside(dir: string, base: string): Promise<string | null | { outside: string }> {
  try {
    const [real, realBase] = await Promise.all([realpath(dir), realpath(base)]);
    if (!isInside(realBase, real)) return { outside: real };
    return (await stat(real)).isDirectory() ? real : null;
  } catch {
    return null;
  }
}

function readOptions(dir: string, places: SkillPlaces, maxBytes = MAX_SKILL_FILE_BYTES) {
  return places.homeDir === undefined ? { root: dir, maxBytes } : { root: dir, maxBytes, homeDir: places.homeDir };
}

/** One skill folder's SKILL.md read and checked; a string is the warning that skips it. */
async function readSkill(
  entry: string,
  folder: ReturnType<typeof skillFolders>[number],
  places: SkillPlaces,
): Promise<Skill | string | null> {
  const label = `${folder.label}/${entry}/SKILL.md`;
  const real = await realDirectoryInside(join(folder.dir, entry), folder.base);
  if (real !== null && typeof real !== 'string')
    return `${folder.label}/${entry} leads outside ${folder.source === 'project' ? 'the project' : folder.label} (to ${real.outside}); the skill is skipped.`;
  if (real === null) return null;
  let text: string | null;
  try {
    text = await readProjectFile(join(real, 'SKILL.md'), readOptions(real, places));
  } catch (error) {
    return `${label}: ${error instanceof RefusedFileError ? error.reason : (error as Error).message}; the skill is skipped.`;
  }
  if (text === null) return null;
  let parsed: ReturnType<typeof parseFrontMatter>;
  try {
    parsed = parseFrontMatter(text);
  } catch (error) {
    if (error instanceof FrontMatterError) return `${label}: malformed ${error.message}; the skill is skipped.`;
    throw error;
  }
  if (parsed === null) return `${label}: no front matter (a --- block with name and description); the skill is skipped.`;
  const { name, description } = parsed.fields;
  if (name === undefined || description === undefined || description.trim() === '') {
    return `${label}: the front matter needs a name and a description; the skill is skipped.`;
  }
  if (!NAME.test(name))
    return `${label}: the name "${name.slice(0, 80)}" is not lowercase letters, digits and hyphens; the skill is skipped.`;
  const oneLine = description.replace(/\s+/g, ' ').trim();
  const clipped = oneLine.length > MAX_SKILL_DESCRIPTION ? `${oneLine.slice(0, MAX_SKILL_DESCRIPTION - 1)}…` : oneLine;
  return { name, description: clipped, dir: real, label, source: folder.source };
}

/**
 * Every skill of the project and the home, in folder order then by folder name; a name found
 * again later is shadowed by the first. Never rejects: what cannot be read is a warning.
 */
export async function findSkills(places: SkillPlaces): Promise<FoundSkills> {
  const skills: Skill[] = [];
  const warnings: FoundSkills['warnings'] = [];
  for (const folder of skillFolders(places)) {
    const real = await realDirectoryInside(folder.dir, folder.base);
    if (real !== null && typeof real !== 'string') {
      warnings.push(warning(`${folder.label} leads outside the project (to ${real.outside}); its skills are skipped.`));
      continue;
    }
    if (real === null) continue;
    let entries: string[];
    try {
      entries = (await readdir(real)).sort();
    } catch {
      continue;
    }
    const read = await Promise.all(entries.map((entry) => readSkill(entry, { ...folder, dir: real }, places)));
    for (const result of read) {
      if (typeof result === 'string') warnings.push(warning(result));
      else if (result !== null && !skills.some((skill) => skill.name === result.name)) skills.push(result);
    }
  }
  return { skills, warnings };
}

/** SKILL.md's instructions (the text after its front matter). Rejects with a RefusedFileError. */
export async function readSkillBody(skill: Skill, places: SkillPlaces): Promise<string> {
  const text = await readProjectFile(join(skill.dir, 'SKILL.md'), readOptions(skill.dir, places));
  if (text === null) throw new RefusedFileError(skill.label, 'no longer exists');
  return (parseFrontMatter(text)?.body ?? text).trim();
}

/**
 * A supporting file of the skill by its path inside the folder; null when it does not exist.
 * Rejects with a RefusedFileError for a path that leads out of the folder or to a secret.
 */
export async function readSkillFile(skill: Skill, path: string, places: SkillPlaces): Promise<string | null> {
  // Said plainly before any lookup: `join` would read an absolute path as one inside the folder.
  if (isAbsolute(path) || !isInside(skill.dir, resolve(skill.dir, path))) {
    throw new RefusedFileError(path, "is not a path inside the skill's folder, so it is not read");
  }
  return readProjectFile(join(skill.dir, path), readOptions(skill.dir, places));
}

/** The skill's files besides SKILL.md, relative to its folder (links listed, not followed). */
export async function listSkillFiles(skill: Skill): Promise<{ files: string[]; more: boolean }> {
  const files: string[] = [];
  let more = false;
  const walk = async (dir: string, depth: number): Promise<void> => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (depth < MAX_LISTED_DEPTH) await walk(path, depth + 1);
      } else if (entry.isFile() || entry.isSymbolicLink()) {
        const rel = relative(skill.dir, path).split(sep).join('/');
        if (rel === 'SKILL.md') continue;
        if (files.length >= MAX_LISTED_FILES) {
          more = true;
          return;
        }
        files.push(rel);
      }
    }
  };
  await walk(skill.dir, 1);
  return { files, more };
}
