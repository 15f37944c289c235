// How permission rules from config files read a shell command (docs/permissions.md, "Permission
// rules"). The two directions are read differently on purpose:
// - an allow rule may only match a string that is exactly one plain command: our literal lexer and
//   the bash grammar must agree on its words, and it has no redirection, glob, expansion or second
//   command (`exact`);
// - deny and ask rules match any simple command anywhere in the string, inside substitutions,
//   pipelines and lists, behind command runners (`sudo rm`, `xargs rm`) and inside `bash -c '…'`
//   and `eval` strings; a word that cannot be read (an expansion, a glob) may stand for any words,
//   and a string the grammar cannot read at all matches every deny and ask rule (`unreadable`).

import type { Node, Parser } from 'web-tree-sitter';
import type { CommandRuleView, RuleWord } from './command-classification.js';
import { COMMAND_RUNNERS } from './command-runners.js';
import { parseLiteralCommand } from './literal-command.js';
import { treeSitterDisagreement } from './tree-sitter-agreement.js';

/** Programs that run a shell string given with `-c`. */
const SHELLS: ReadonlySet<string> = new Set(['bash', 'sh', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'fish', 'busybox']);
/** Runners beyond those the classifier lists: also followed to the command they run. */
const MORE_RUNNERS: ReadonlySet<string> = new Set(['time', 'ionice', 'chrt', 'taskset', 'flock', 'unshare', 'chroot', 'runuser']);
const MAX_DEPTH = 4;
const MAX_RUNNER_WORDS = 64;

function isRunner(name: string): boolean {
  return COMMAND_RUNNERS.has(name) || MORE_RUNNERS.has(name) || SHELLS.has(name);
}

function unquoteDouble(inner: string): string {
  return inner.replace(/\\([$`"\\\n])/g, (_, char: string) => (char === '\n' ? '' : char));
}

/** The value of one word node of the grammar, or null when bash would expand something in it. */
function wordValue(node: Node): RuleWord {
  switch (node.type) {
    case 'command_name':
      return node.firstNamedChild === null ? null : wordValue(node.firstNamedChild);
    case 'word': {
      const text = node.text;
      if (/[*?[\]{}~$`]/.test(text)) return null;
      return text.replace(/\\(.)/gs, '$1');
    }
    case 'number':
      return /^\d+$/.test(node.text) ? node.text : null;
    case 'raw_string':
      return node.text.slice(1, -1);
    case 'string':
      if (node.namedChildren.some((child) => child !== null && child.type !== 'string_content')) return null;
      return unquoteDouble(node.text.slice(1, -1));
    case 'concatenation': {
      let value = '';
      for (const child of node.namedChildren) {
        const part = child === null ? null : wordValue(child);
        if (part === null) return null;
        value += part;
      }
      return value;
    }
    default:
      return null;
  }
}

/** The words of every `command` node anywhere in the tree (substitutions and function bodies included). */
function grammarCommands(root: Node): RuleWord[][] {
  const found: RuleWord[][] = [];
  const visit = (node: Node): void => {
    if (node.type === 'command') {
      const words: RuleWord[] = [];
      for (const child of node.namedChildren) {
        if (child === null || child.type === 'variable_assignment' || child.type.endsWith('redirect')) continue;
        words.push(wordValue(child));
      }
      if (words.length > 0) found.push(words);
    }
    for (const child of node.namedChildren) if (child !== null) visit(child);
  };
  visit(root);
  return found;
}

export function readCommandForRules(parser: Parser, command: string, depth = 0): CommandRuleView {
  if (command.includes('\0') || depth > MAX_DEPTH) return { exact: null, commands: [], unreadable: true };
  const literal = parseLiteralCommand(command);
  const tree = parser.parse(command);
  if (tree === null) return { exact: null, commands: [], unreadable: true };
  try {
    const grammar = grammarCommands(tree.rootNode);
    const unreadable = tree.rootNode.hasError;
    let exact: string[] | null = null;
    const commands: RuleWord[][] = [...grammar];
    if (literal.literal) {
      // Both readings are kept for deny and ask: where they differ, either could be what bash runs.
      commands.push(...literal.commands.map((simple) => simple.words.map((word) => (word.glob ? null : word.value))));
      const [only] = literal.commands;
      const agrees = !unreadable && treeSitterDisagreement(tree, literal.commands) === null;
      if (agrees && literal.commands.length === 1 && only!.redirects.length === 0 && only!.words.every((word) => !word.glob)) {
        exact = only!.words.map((word) => word.value);
      }
    }
    const view = { exact, commands: [] as RuleWord[][], unreadable };
    for (const words of commands) followRunners(parser, words, view, depth);
    return view;
  } finally {
    tree.delete();
  }
}

/**
 * Adds `words` and what it runs: the command after a runner's own words (every later position
 * counts, since we do not read each runner's options), and the string of `bash -c`/`eval`.
 */
function followRunners(
  parser: Parser,
  words: readonly RuleWord[],
  view: { commands: RuleWord[][]; unreadable: boolean },
  depth: number,
): void {
  view.commands.push([...words]);
  const program = words[0];
  if (program === null || program === undefined) return;
  const name = program.slice(program.lastIndexOf('/') + 1);
  if (isRunner(name)) {
    // A runner's options are not read, so every later position may start the command it runs. Past
    // MAX_RUNNER_WORDS positions the string is called unreadable instead: a long argument list
    // would otherwise cost memory quadratic in its length.
    if (words.length > MAX_RUNNER_WORDS) view.unreadable = true;
    for (let start = 1; start < Math.min(words.length, MAX_RUNNER_WORDS); start++) {
      const rest = words.slice(start);
      const next = rest[0];
      const nested = next === null || next === undefined ? false : isRunner(next.slice(next.lastIndexOf('/') + 1));
      if (nested && depth < MAX_DEPTH) followRunners(parser, rest, view, depth + 1);
      else view.commands.push(rest);
    }
  }
  const strings: RuleWord[] = [];
  if (name === 'eval') strings.push(words.slice(1).some((word) => word === null) ? null : words.slice(1).join(' '));
  if (SHELLS.has(name)) {
    // `bash -c STRING`, `bash -ec STRING`, `bash -o x -c STRING`: the first word after a `-…c…` option.
    const at = words.findIndex((word, index) => index > 0 && (word === null || /^-[A-Za-z]*c[A-Za-z]*$/.test(word)));
    if (at !== -1) strings.push(words[at] === null ? null : (words[at + 1] ?? null));
  }
  for (const text of strings) {
    if (text === null) {
      view.unreadable = true;
      continue;
    }
    const inner = readCommandForRules(parser, text, depth + 1);
    view.commands.push(...inner.commands.map((entry) => [...entry]));
    if (inner.unreadable) view.unreadable = true;
  }
}
