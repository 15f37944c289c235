// Prompt commands: a Markdown file `<name>.md` in the project's `.glassbox/commands/` or
// `.claude/commands/`, or in Glassbox's home `commands/`, is a prompt the user sends as
// `/name args` (or `exec --command name args`). `$ARGUMENTS` in it becomes everything typed after
// the name and `$1`, `$2`… the words of it (quotes group words), as Claude Code reads them; a file
// without any placeholder gets the arguments appended. Optional front matter gives a
// `description` (shown by /help and completion) and an `argument-hint`. The files are read
// through the guarded reader: a link to a secret, a FIFO or a file outside its folder is refused.

import { readdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { FrontMatterError, parseFrontMatter } from './front-matter.js';
import { isInside } from './path-containment.js';
import { RefusedFileError, readProjectFile } from './read-project-file.js';

const NAME = /^[a-z0-9][a-z0-9_-]*$/i;
export const MAX_PROMPT_COMMAND_BYTES = 64 * 1024;

export interface PromptCommand {
  name: string;
  description: string | null;
  argumentHint: string | null;
  /** The prompt text, front matter removed. */
  body: string;
  /** Where it was found, for messages. */
  label: string;
}

export interface PromptCommandPlaces {
  root: string;
  glassboxHome: string;
  homeDir?: string;
}

export interface FoundPromptCommands {
  commands: PromptCommand[];
  warnings: { code: string; message: string }[];
}

function folders(places: PromptCommandPlaces): { dir: string; base: string; label: string }[] {
  return [
    { dir: join(places.root, '.glassbox', 'commands'), base: places.root, label: '.glassbox/commands' },
    { dir: join(places.root, '.claude', 'commands'), base: places.root, label: '.claude/commands' },
    { dir: join(places.glassboxHome, 'commands'), base: join(places.glassboxHome, 'commands'), label: `${places.glassboxHome}/commands` },
  ];
}

async function realFolder(dir: string, base: string): Promise<string | null> {
  try {
    const [real, realBase] = await Promise.all([realpath(dir), realpath(base)]);
    return isInside(realBase, real) ? real : null;
  } catch {
    return null;
  }
}

/**
 * The prompt commands of the project and the home, first folder winning a name; `reserved`
 * names (the built-in slash commands) are skipped with a warning. Never rejects.
 */
export async function findPromptCommands(places: PromptCommandPlaces, reserved: readonly string[] = []): Promise<FoundPromptCommands> {
  const commands: PromptCommand[] = [];
  const warnings: FoundPromptCommands['warnings'] = [];
  const warn = (message: string): void => {
    warnings.push({ code: 'PROMPT_COMMAND_IGNORED', message });
  };
  for (const folder of folders(places)) {
    const real = await realFolder(folder.dir, folder.base);
    if (real === null) continue;
    const names = await readdir(real).catch(() => [] as string[]);
    for (const file of names.filter((name) => name.endsWith('.md')).sort()) {
      const name = file.slice(0, -3);
      const label = `${folder.label}/${file}`;
      if (!NAME.test(name)) continue;
      let text: string | null;
      try {
        const options = { root: real, maxBytes: MAX_PROMPT_COMMAND_BYTES };
        text = await readProjectFile(join(real, file), places.homeDir === undefined ? options : { ...options, homeDir: places.homeDir });
      } catch (error) {
        if (error instanceof RefusedFileError) warn(`${label}: ${error.reason}; the command is skipped.`);
        continue;
      }
      if (text === null) continue;
      let parsed: ReturnType<typeof parseFrontMatter>;
      try {
        parsed = parseFrontMatter(text);
      } catch (error) {
        if (!(error instanceof FrontMatterError)) throw error;
        warn(`${label}: malformed ${error.message}; the command is skipped.`);
        continue;
      }
      const lower = name.toLowerCase();
      if (reserved.includes(lower)) {
        warn(`${label}: /${lower} is a built-in command; the file is not used.`);
        continue;
      }
      if (commands.some((command) => command.name === lower)) continue;
      const description = parsed?.fields.description?.replace(/\s+/g, ' ').trim() || null;
      const argumentHint = parsed?.fields['argument-hint']?.trim() || null;
      commands.push({ name: lower, description, argumentHint, body: (parsed?.body ?? text).trim(), label });
    }
  }
  return { commands, warnings };
}

/** The words of an argument string: blanks separate them, single or double quotes group them. */
export function splitArguments(raw: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  let quote: '"' | "'" | null = null;
  for (const char of raw) {
    if (quote !== null) {
      if (char === quote) quote = null;
      else word += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      word ??= '';
    } else if (/\s/.test(char)) {
      if (word !== null) words.push(word);
      word = null;
    } else word = (word ?? '') + char;
  }
  if (word !== null) words.push(word);
  return words;
}

/**
 * The prompt a command sends: `$ARGUMENTS` is `raw`, `$N` the N-th word (empty when there is
 * none); `words` defaults to `splitArguments(raw)` (exec passes its argv, already split by the
 * shell). Without a placeholder, non-empty arguments follow the text as `ARGUMENTS: …`.
 */
export function expandPromptCommand(command: PromptCommand, raw: string, words: readonly string[] = splitArguments(raw)): string {
  const placeholder = /\$(ARGUMENTS\b|[1-9][0-9]*)/g;
  if (!placeholder.test(command.body)) return raw.trim() === '' ? command.body : `${command.body}\n\nARGUMENTS: ${raw.trim()}`;
  return command.body.replace(placeholder, (_, which: string) => (which === 'ARGUMENTS' ? raw.trim() : (words[Number(which) - 1] ?? '')));
}
