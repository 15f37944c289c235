// A getopt-like reading of an argument list, so rules see options the way the program will:
// combined short flags are split (`-ro x` is `-r` and `-o x`), attached values are separated
// (`-f/etc/passwd`, `--file=x`), and `--` ends the options.

import { mayBeOption, staticWord, type ShellWord } from './shell-word.js';

export interface OptionSpec {
  /** Short options that take a value, attached (`-n5`) or as the next word (`-n 5`). */
  shortWithValue?: string;
  /** Short options whose value is optional and only ever attached (`date -Iseconds`). */
  shortWithOptionalValue?: string;
  /** Long options that take a value, as `--name=value` or as the next word. */
  longWithValue?: readonly string[];
}

export type ParsedArgument =
  | { kind: 'option'; name: string; value: ShellWord | null; source: ShellWord }
  | { kind: 'operand'; word: ShellWord }
  /** A non-static word that may turn into an option once the shell expands it. */
  | { kind: 'unknown'; word: ShellWord };

/**
 * GNU getopt_long and git accept any unambiguous prefix of a long option (`--out` for
 * `--output`), so a given name is treated as `long` when it is a prefix of it.
 */
export function longOptionMatches(given: string, long: string): boolean {
  return given.length > 2 && long.startsWith(given);
}

export function parseOptions(words: readonly ShellWord[], spec: OptionSpec = {}): ParsedArgument[] {
  const parsed: ParsedArgument[] = [];
  const shortWithValue = spec.shortWithValue ?? '';
  const shortOptional = spec.shortWithOptionalValue ?? '';
  const longWithValue = spec.longWithValue ?? [];
  let optionsEnded = false;
  for (let index = 0; index < words.length; index++) {
    const word = words[index]!;
    if (optionsEnded) {
      parsed.push({ kind: 'operand', word });
      continue;
    }
    if (word.kind !== 'static') {
      parsed.push(mayBeOption(word) ? { kind: 'unknown', word } : { kind: 'operand', word });
      continue;
    }
    const text = word.text;
    if (text === '--') {
      optionsEnded = true;
      continue;
    }
    if (text.startsWith('--')) {
      const equals = text.indexOf('=');
      const name = equals === -1 ? text : text.slice(0, equals);
      if (equals !== -1) {
        parsed.push({ kind: 'option', name, value: staticWord(text.slice(equals + 1)), source: word });
      } else if (longWithValue.some((long) => longOptionMatches(name, long)) && index + 1 < words.length) {
        index++;
        parsed.push({ kind: 'option', name, value: words[index]!, source: word });
      } else {
        parsed.push({ kind: 'option', name, value: null, source: word });
      }
      continue;
    }
    if (text.startsWith('-') && text.length > 1) {
      for (let position = 1; position < text.length; position++) {
        const letter = text[position]!;
        const rest = text.slice(position + 1);
        if (shortWithValue.includes(letter)) {
          let value: ShellWord | null = null;
          if (rest !== '') value = staticWord(rest);
          else if (index + 1 < words.length) value = words[++index]!;
          parsed.push({ kind: 'option', name: `-${letter}`, value, source: word });
          break;
        }
        if (shortOptional.includes(letter)) {
          parsed.push({ kind: 'option', name: `-${letter}`, value: rest === '' ? null : staticWord(rest), source: word });
          break;
        }
        parsed.push({ kind: 'option', name: `-${letter}`, value: null, source: word });
      }
      continue;
    }
    parsed.push({ kind: 'operand', word });
  }
  return parsed;
}

/** Does the parsed option `name` stand for any of `flags` (`-o`, `--output`)? */
export function optionIs(name: string, flags: readonly string[]): boolean {
  return flags.some((flag) => (flag.startsWith('--') ? name === flag || longOptionMatches(name, flag) : name === flag));
}

export function operands(parsed: readonly ParsedArgument[]): ShellWord[] {
  return parsed.flatMap((argument) => (argument.kind === 'operand' ? [argument.word] : []));
}
