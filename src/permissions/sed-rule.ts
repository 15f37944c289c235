// sed is known safe only as a printer: `-n`, never in place, and a script whose every command is
// recognised and none of them writes files (`w`, `W`, `s///w`), runs commands (`e`, `s///e`) or
// reads a file named in the script (`r`, `R`). The script is parsed with GNU sed's rules; anything
// the parser does not recognise makes the command not known safe.

import { operands, optionIs, parseOptions } from './parse-options.js';
import type { CommandRule } from './command-rule.js';

const SED_OPTIONS = { shortWithValue: 'efl', shortWithOptionalValue: 'i', longWithValue: ['--expression', '--file', '--line-length'] };

/** Commands that take no argument (or only an optional number, handled below). */
const PLAIN_COMMANDS = new Set(['=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F', '}']);

const REFUSED_COMMANDS = new Map([
  ['w', 'the w command writes to a file'],
  ['W', 'the W command writes to a file'],
  ['e', 'the e command runs a shell command'],
  ['r', 'the r command reads a file named in the script'],
  ['R', 'the R command reads a file named in the script'],
]);

class SedScriptReader {
  index = 0;
  constructor(private readonly script: string) {}

  get atEnd(): boolean {
    return this.index >= this.script.length;
  }

  get current(): string {
    return this.script[this.index] ?? '';
  }

  skipBlanks(): void {
    while (this.current === ' ' || this.current === '\t') this.index++;
  }

  skipWhile(pattern: RegExp): string {
    const start = this.index;
    while (!this.atEnd && pattern.test(this.current)) this.index++;
    return this.script.slice(start, this.index);
  }

  /** Read up to the next unescaped `delimiter`, consuming it. False when the script ends first. */
  skipDelimited(delimiter: string): boolean {
    while (!this.atEnd) {
      const char = this.current;
      this.index++;
      if (char === '\\') this.index++;
      else if (char === delimiter) return true;
    }
    return false;
  }

  /** Text of a/i/c: the rest of the line, where a backslash-newline continues it. */
  skipText(): void {
    if (this.current === '\\') this.index += this.script[this.index + 1] === '\n' ? 2 : 1;
    while (!this.atEnd && this.current !== '\n') this.index += this.current === '\\' ? 2 : 1;
  }
}

function readRegexAddress(reader: SedScriptReader): string | null {
  let delimiter = '/';
  if (reader.current === '\\') {
    reader.index++;
    delimiter = reader.current;
    if (delimiter === '' || delimiter === '\n' || delimiter === '\\') return 'a regex address has no valid delimiter';
  }
  reader.index++;
  if (!reader.skipDelimited(delimiter)) return 'a regex address is not terminated';
  reader.skipWhile(/[IM]/);
  return null;
}

/** Returns `true` when an address was read, `false` when there is none, or a problem. */
function readAddress(reader: SedScriptReader, second: boolean): boolean | string {
  const char = reader.current;
  if (/\d/.test(char)) {
    reader.skipWhile(/\d/);
    if (reader.current === '~') {
      reader.index++;
      reader.skipWhile(/\d/);
    }
    return true;
  }
  if (second && (char === '+' || char === '~')) {
    reader.index++;
    return reader.skipWhile(/\d/) === '' ? `${char} in an address needs a number` : true;
  }
  if (char === '$') {
    reader.index++;
    return true;
  }
  if (char === '/' || char === '\\') return readRegexAddress(reader) ?? true;
  return false;
}

function readSubstitute(reader: SedScriptReader, command: 's' | 'y'): string | null {
  const delimiter = reader.current;
  if (delimiter === '' || delimiter === '\n' || delimiter === '\\') return `the ${command} command has no valid delimiter`;
  reader.index++;
  if (!reader.skipDelimited(delimiter) || !reader.skipDelimited(delimiter)) return `the ${command} command is not terminated`;
  if (command === 'y') return null;
  while (!reader.atEnd) {
    const flag = reader.current;
    if (flag === 'e') return 'the s///e flag runs the pattern space as a shell command';
    if (flag === 'w') return 'the s///w flag writes to a file';
    if (!/[gpiImM0-9]/.test(flag)) break;
    reader.index++;
  }
  return null;
}

/** Null when every command of the script is recognised and harmless; otherwise the problem. */
export function sedScriptProblem(script: string): string | null {
  const reader = new SedScriptReader(script);
  for (;;) {
    reader.skipWhile(/[\s;]/);
    if (reader.atEnd) return null;
    if (reader.current === '#') {
      reader.skipWhile(/[^\n]/);
      continue;
    }
    const first = readAddress(reader, false);
    if (typeof first === 'string') return first;
    if (first) {
      reader.skipBlanks();
      if (reader.current === ',') {
        reader.index++;
        reader.skipBlanks();
        const second = readAddress(reader, true);
        if (typeof second === 'string') return second;
        if (!second) return 'an address range has no end';
      }
    }
    reader.skipBlanks();
    while (reader.current === '!') {
      reader.index++;
      reader.skipBlanks();
    }
    if (reader.atEnd) return 'the script ends after an address';
    const command = reader.current;
    reader.index++;
    const refused = REFUSED_COMMANDS.get(command);
    if (refused !== undefined) return refused;
    if (command === '{') continue;
    if (command === 's' || command === 'y') {
      const problem = readSubstitute(reader, command);
      if (problem !== null) return problem;
    } else if (command === 'a' || command === 'i' || command === 'c') {
      reader.skipBlanks();
      reader.skipText();
      continue;
    } else if (command === ':' || command === 'b' || command === 't' || command === 'T' || command === 'v') {
      reader.skipBlanks();
      reader.skipWhile(/[^;\n]/);
    } else if (command === 'q' || command === 'Q' || command === 'l') {
      reader.skipBlanks();
      reader.skipWhile(/\d/);
    } else if (!PLAIN_COMMANDS.has(command)) {
      return `\`${command}\` is not a sed command this rule recognises`;
    }
    reader.skipBlanks();
    if (!reader.atEnd && !/[;\n}#]/.test(reader.current)) {
      return `unexpected \`${reader.current}\` after the ${command} command`;
    }
  }
}

export const sedRule: CommandRule = (args, context) => {
  const parsed = parseOptions(args, SED_OPTIONS);
  const unknown = parsed.find((argument) => argument.kind === 'unknown');
  if (unknown !== undefined) return `\`${unknown.word.text}\` is expanded by the shell at run time and could become an option such as -i`;
  const scripts: string[] = [];
  let quiet = false;
  for (const argument of parsed) {
    if (argument.kind !== 'option') continue;
    if (optionIs(argument.name, ['-i', '--in-place'])) return `${argument.name} edits files in place`;
    if (optionIs(argument.name, ['-f', '--file'])) return `${argument.name} reads the script from a file, which is not inspected`;
    if (optionIs(argument.name, ['-n', '--quiet', '--silent'])) quiet = true;
    if (optionIs(argument.name, ['-e', '--expression'])) {
      if (argument.value === null) return `${argument.name} needs a script`;
      if (argument.value.kind !== 'static') return `the script \`${argument.value.text}\` is expanded at run time`;
      scripts.push(argument.value.text);
    }
  }
  if (!quiet) return 'only `sed -n` (print what the script selects) is known safe';
  let files = operands(parsed);
  if (scripts.length === 0) {
    const script = files[0];
    if (script === undefined) return 'no script given';
    if (script.kind !== 'static') return `the script \`${script.text}\` is expanded at run time`;
    scripts.push(script.text);
    files = files.slice(1);
  }
  const problem = sedScriptProblem(scripts.join('\n'));
  if (problem !== null) return problem;
  for (const file of files) {
    const fileProblem = context.checkRead(file);
    if (fileProblem !== null) return fileProblem;
  }
  return null;
};
