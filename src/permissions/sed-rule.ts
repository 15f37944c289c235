// sed is known safe only as a line printer: `-n` with a script of address-and-print commands
// (`10,20p`, `$p`, `5q`). GNU sed's full language writes files (`w`, `s///w`), runs commands
// (`e`, `s///e`) and hides its delimiters in bracket expressions (`s/[/]/…/e`); rather than read
// that language, anything beyond printing lines by number is not known safe.

import type { CommandRule } from './command-rule.js';
import { programRule } from './program-rule.js';
import { longOptions } from './parse-options.js';

const ADDRESS = String.raw`(\d+|\$)`;
const COMMAND = String.raw`\s*(${ADDRESS}(\s*,\s*${ADDRESS})?)?\s*[pq=]\s*`;
const PRINT_SCRIPT = new RegExp(String.raw`^${COMMAND}(;${COMMAND})*;?\s*$`);

export const sedRule: CommandRule = programRule('sed', {
  options: {
    flags: 'nErsuz',
    values: { e: 'text' },
    long: longOptions(
      ...['--quiet', '--silent', '--expression=', '--regexp-extended', '--separate', '--unbuffered'],
      ...['--null-data', '--posix', '--sandbox'],
    ),
  },
  operands: 'read',
  patternUnless: ['-e', '--expression'],
  floor: true,
  check: (parsed) => {
    const quiet = parsed.options.some((option) => ['-n', '--quiet', '--silent'].includes(option.name));
    if (!quiet) return 'sed is known safe only with -n, as a printer of lines';
    const scripts = parsed.options.filter((option) => option.name === '-e' || option.name === '--expression');
    const texts = scripts.length > 0 ? scripts.map((option) => option.value?.text ?? '') : [parsed.operands[0]?.text ?? ''];
    const other = texts.find((script) => !PRINT_SCRIPT.test(script));
    return other === undefined
      ? null
      : `the sed script \`${other}\` is not only line numbers with p, q or = (sed scripts can write files and run commands)`;
  },
});
