// Reads a program's arguments against the allowlist of its options, the way getopt reads them:
// combined short flags are split (`-rn`), a short option's value is attached (`-n5`) or the next
// word (`-n 5`), `--name=value` is split at `=`, and `--` ends the options. An option not in the
// table makes the command not known safe — the table is what we know to be harmless, never a list
// of what we know to be harmful. Long options must be spelled in full: getopt also accepts any
// unambiguous prefix, and a prefix could stand for an option this table has never heard of.

import type { ShellWord } from './shell-word.js';

/**
 * What an option's value is: free text, a file whose contents the program reads, or a path whose
 * metadata (name, type, size) it reads. Paths are policy-checked like operands.
 */
export type ValueKind = 'text' | 'read' | 'metadata';

export interface LongOption {
  /**
   * `none`: a flag. `required`: `--name=value` or `--name value`. `attached`: only `--name=value`
   * is accepted — for optional arguments (`--color[=WHEN]`, which never take the next word) and
   * wherever the next word's role is not certain: misreading it as a value would leave a path
   * operand unchecked.
   */
  value: 'none' | 'required' | 'attached';
  kind: ValueKind;
}

export interface OptionTable {
  /** Short options without a value, e.g. `'alrt'`. */
  flags?: string;
  /** Short options with a value (attached or the next word), and what the value is. */
  values?: Readonly<Record<string, ValueKind>>;
  /** Short options whose value is optional and only ever attached (`date -Iseconds`, `git log -M50%`). */
  optionalValues?: string;
  /** Long options, by full name including the dashes. */
  long?: Readonly<Record<string, LongOption>>;
  /** `-NUM` (`head -5`, `grep -3`) is an option. */
  numeric?: boolean;
  /** A value-taking letter must stand alone (`-L 2`, not `-aL2`): tree reads clusters its own way. */
  separateValues?: boolean;
  /**
   * Every option the program has (not only those in this table) only changes what it prints, so
   * a glob that expands to a file named like an option (`-n`, `--color`) cannot make it write,
   * run or reach anything. Only then may a glob that starts with a pattern character (`*.ts`)
   * stand where an option could.
   */
  everyOptionHarmless?: boolean;
  /** `--` is not an end-of-options marker for this program. */
  noDoubleDash?: boolean;
}

export interface ParsedOption {
  name: string;
  value: ShellWord | null;
  kind: ValueKind;
}

export interface ParsedArguments {
  options: ParsedOption[];
  operands: ShellWord[];
}

export type OptionParse = { ok: true; parsed: ParsedArguments } | { ok: false; problem: string };

/**
 * Long options from a compact list: `--quiet` (a flag), `--lines=` (required value),
 * `--color[=]` (attached only), and a `@read` / `@meta` suffix for path values
 * (`--file=@read`, `--exclude-from[=]@read`).
 */
export function longOptions(...specs: string[]): Record<string, LongOption> {
  const table: Record<string, LongOption> = {};
  for (const spec of specs) {
    const match = /^(--[a-z0-9][a-z0-9-]*)(=|\[=\])?(@read|@meta)?$/.exec(spec);
    if (match === null) throw new Error(`longOptions: bad spec ${JSON.stringify(spec)}`);
    const [, name, value, kind] = match;
    table[name!] = {
      value: value === '=' ? 'required' : value === '[=]' ? 'attached' : 'none',
      kind: kind === '@read' ? 'read' : kind === '@meta' ? 'metadata' : 'text',
    };
  }
  return table;
}

/** Options every GNU program has. */
const COMMON_LONG = longOptions('--help', '--version');

function staticWord(text: string): ShellWord {
  return { kind: 'static', text };
}

/**
 * A glob bash expands before the program starts can turn into any file name in the directory,
 * including one that starts with `-`. Only a glob whose first character is literal and not `-`
 * is known to stay an operand.
 */
function mayTurnIntoOption(word: ShellWord): boolean {
  return word.kind === 'glob' && /^[-*?[]/.test(word.text);
}

export function parseOptions(program: string, words: readonly ShellWord[], table: OptionTable): OptionParse {
  const options: ParsedOption[] = [];
  const operands: ShellWord[] = [];
  const longTable = table.long ?? {};
  // Own properties only: an argument is never looked up on Object.prototype.
  const longOption = (name: string): LongOption | undefined =>
    Object.hasOwn(longTable, name) ? longTable[name] : Object.hasOwn(COMMON_LONG, name) ? COMMON_LONG[name] : undefined;
  const flags = table.flags ?? '';
  const values = table.values ?? {};
  const optional = table.optionalValues ?? '';
  const unknown = (option: string): OptionParse => ({
    ok: false,
    problem: `\`${option}\` is not one of the options of ${program} known to be harmless`,
  });
  for (let index = 0; index < words.length; index++) {
    const word = words[index]!;
    const text = word.text;
    if (text === '--' && word.kind === 'static' && !table.noDoubleDash) {
      operands.push(...words.slice(index + 1));
      break;
    }
    if (mayTurnIntoOption(word) && !table.everyOptionHarmless) {
      return {
        ok: false,
        problem: `the glob \`${text}\` can expand to a file name that ${program} takes for an option (put \`--\` before it)`,
      };
    }
    if (!text.startsWith('-') || text === '-' || word.kind === 'glob') {
      operands.push(word);
      continue;
    }
    if (text.startsWith('--')) {
      const equals = text.indexOf('=');
      const name = equals === -1 ? text : text.slice(0, equals);
      const spec = longOption(name);
      if (spec === undefined) return unknown(name);
      if (equals !== -1) {
        if (spec.value === 'none') return { ok: false, problem: `${program} ${name} takes no value` };
        options.push({ name, value: staticWord(text.slice(equals + 1)), kind: spec.kind });
      } else if (spec.value === 'required') {
        const value = words[index + 1];
        if (value === undefined) return { ok: false, problem: `${program} ${name} needs a value` };
        if (value.kind !== 'static') return { ok: false, problem: `the value of ${program} ${name} is a glob` };
        index++;
        options.push({ name, value, kind: spec.kind });
      } else {
        options.push({ name, value: null, kind: spec.kind });
      }
      continue;
    }
    if (table.numeric && /^-\d+$/.test(text)) {
      options.push({ name: text, value: null, kind: 'text' });
      continue;
    }
    for (let position = 1; position < text.length; position++) {
      const letter = text[position]!;
      const kind = Object.hasOwn(values, letter) ? values[letter] : undefined;
      if (kind !== undefined) {
        const rest = text.slice(position + 1);
        if (table.separateValues && (position !== 1 || rest !== '')) {
          return { ok: false, problem: `${program} -${letter} must be written on its own, with its value as the next word` };
        }
        let value: ShellWord;
        if (rest !== '') value = staticWord(rest);
        else {
          const next = words[index + 1];
          if (next === undefined) return { ok: false, problem: `${program} -${letter} needs a value` };
          if (next.kind !== 'static') return { ok: false, problem: `the value of ${program} -${letter} is a glob` };
          value = next;
          index++;
        }
        options.push({ name: `-${letter}`, value, kind });
        break;
      }
      if (optional.includes(letter)) {
        const rest = text.slice(position + 1);
        options.push({ name: `-${letter}`, value: rest === '' ? null : staticWord(rest), kind: 'text' });
        break;
      }
      if (!flags.includes(letter)) return unknown(position === 1 ? `-${letter}` : `-${letter}\` (in \`${text}`);
      options.push({ name: `-${letter}`, value: null, kind: 'text' });
    }
  }
  return { ok: true, parsed: { options, operands } };
}

export function hasOption(parsed: ParsedArguments, ...names: string[]): boolean {
  return parsed.options.some((option) => names.includes(option.name));
}
