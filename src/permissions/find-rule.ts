// find is known safe as a lister: every word of its expression must be a predicate known to only
// test, print or steer the walk (no -exec, -delete, -fprint… — they are simply not in the table),
// and every starting point, and every file a predicate names, stays inside the project root.

import type { CommandRule } from './command-rule.js';
import type { ShellWord } from './shell-word.js';

type Operand = 'none' | 'text' | 'metadata' | 'read';

const PREDICATES: Readonly<Record<string, Operand>> = {
  // Operators.
  '!': 'none',
  '-not': 'none',
  '-a': 'none',
  '-and': 'none',
  '-o': 'none',
  '-or': 'none',
  ',': 'none',
  '(': 'none',
  ')': 'none',
  // Options that steer the walk.
  '-daystart': 'none',
  '-nowarn': 'none',
  '-warn': 'none',
  '-depth': 'none',
  '-mount': 'none',
  '-xdev': 'none',
  '-noleaf': 'none',
  '-ignore_readdir_race': 'none',
  '-noignore_readdir_race': 'none',
  '-regextype': 'text',
  '-maxdepth': 'text',
  '-mindepth': 'text',
  // Tests.
  '-amin': 'text',
  '-atime': 'text',
  '-cmin': 'text',
  '-ctime': 'text',
  '-mmin': 'text',
  '-mtime': 'text',
  '-used': 'text',
  '-gid': 'text',
  '-uid': 'text',
  '-inum': 'text',
  '-links': 'text',
  '-size': 'text',
  '-perm': 'text',
  '-type': 'text',
  '-xtype': 'text',
  '-user': 'text',
  '-group': 'text',
  '-fstype': 'text',
  '-name': 'text',
  '-iname': 'text',
  '-path': 'text',
  '-ipath': 'text',
  '-wholename': 'text',
  '-iwholename': 'text',
  '-regex': 'text',
  '-iregex': 'text',
  '-lname': 'text',
  '-ilname': 'text',
  '-anewer': 'metadata',
  '-cnewer': 'metadata',
  '-newer': 'metadata',
  '-samefile': 'metadata',
  '-empty': 'none',
  '-false': 'none',
  '-true': 'none',
  '-nouser': 'none',
  '-nogroup': 'none',
  '-readable': 'none',
  '-writable': 'none',
  '-executable': 'none',
  // Actions that only print.
  '-print': 'none',
  '-print0': 'none',
  '-printf': 'text',
  '-ls': 'none',
  '-prune': 'none',
  '-quit': 'none',
};

/** A word that starts the expression rather than naming a starting point. */
function startsExpression(word: ShellWord): boolean {
  return /^[-(!),]/.test(word.text);
}

export const findRule: CommandRule = (args, context) => {
  let index = 0;
  // Leading options come before the starting points: -H -P, -D <debug options>, -O<level>. Not -L
  // (nor -follow): following every link walks out of the root. Not -files0-from: the starting
  // points it reads from a file are checked by nobody.
  while (index < args.length && /^-([HP]|O\d*|D)$/.test(args[index]!.text)) {
    index += args[index]!.text === '-D' ? 2 : 1;
  }
  if (args[index]?.text === '--') index++;
  const starts: ShellWord[] = [];
  while (index < args.length && !startsExpression(args[index]!)) starts.push(args[index++]!);
  for (const start of starts) {
    // A glob here could expand to a file named like a predicate (`-delete`).
    if (start.kind === 'glob' && /^[*?[]/.test(start.text)) {
      return `the starting point \`${start.text}\` is a glob that can expand to a file name find takes for an action`;
    }
    const problem = context.checkMetadata(start);
    if (problem !== null) return problem;
  }
  while (index < args.length) {
    const word = args[index]!;
    const operand = word.kind === 'static' ? PREDICATES[word.text] : undefined;
    if (operand === undefined) {
      return word.kind === 'glob'
        ? `\`${word.text}\` is an unquoted glob in find's expression (quote the pattern)`
        : `\`${word.text}\` is not one of the find predicates known to be harmless`;
    }
    index++;
    if (operand === 'none') continue;
    const value = args[index];
    if (value === undefined) return `${word.text} needs a value`;
    if (value.kind === 'glob') return `the value of ${word.text}, \`${value.text}\`, is an unquoted glob (quote the pattern)`;
    index++;
    if (operand === 'metadata' || operand === 'read') {
      const problem = operand === 'read' ? context.checkRead(value) : context.checkMetadata(value);
      if (problem !== null) return `${word.text}: ${problem}`;
    }
  }
  return null;
};
