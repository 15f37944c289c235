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
const MORE_RUNNERS: ReadonlySet<string> = new Set([
  'time',
  'ionice',
  'chrt',
  'taskset',
  'flock',
  'unshare',
  'chroot',
  'runuser',
  // Run a command string they are given (`script -c`, `sg group -c`), or evaluate a callback (`mapfile -C`).
  'coproc',
  'script',
  'sg',
  'mapfile',
  'readarray',
  'ssh',
  'pkexec',
  'strace',
  'ltrace',
]);
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

/** bash's `$'…'` escapes, decoded (enough to see what the string holds, not to run it). */
function ansiC(inner: string): string {
  const simple: Readonly<Record<string, string>> = {
    a: '\x07',
    b: '\b',
    e: '\x1b',
    E: '\x1b',
    f: '\f',
    n: '\n',
    r: '\r',
    t: '\t',
    v: '\v',
  };
  return inner.replace(/\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)/gs, (_, code: string) => {
    if (/^[xuU]/.test(code)) return String.fromCodePoint(Math.min(Number.parseInt(code.slice(1), 16), 0x10ffff));
    if (/^[0-7]/.test(code)) return String.fromCharCode(Number.parseInt(code, 8));
    if (code.startsWith('c')) return String.fromCharCode(code.charCodeAt(1) & 0x1f);
    return simple[code] ?? code;
  });
}

/**
 * The text a quoted or escaped word holds once bash removes its quoting. An expansion bash runs
 * here (`"$(date)"`) is left out: the grammar reads it where it is, and only text that stays
 * literal now can be evaluated again later.
 */
function heldText(node: Node): string {
  switch (node.type) {
    case 'raw_string':
      return node.text.slice(1, -1);
    case 'ansi_c_string':
      return ansiC(node.text.slice(2, -1));
    case 'word':
      return node.text.replace(/\\(.)/gs, '$1');
    case 'string_content':
      return unquoteDouble(node.text);
    case 'string':
    case 'concatenation':
      // A string's quotes and literal text are in its children only where it has expansions.
      if (node.type === 'string' && node.namedChildCount === 0) return unquoteDouble(node.text.slice(1, -1));
      return node.namedChildren.map((child) => (child === null ? '' : heldText(child))).join('');
    default:
      return '';
  }
}

const QUOTED = new Set(['word', 'raw_string', 'ansi_c_string', 'string', 'concatenation']);

/**
 * The words of every `command` node anywhere in the tree (substitutions and function bodies
 * included), and the quoted text of every word that holds a command substitution bash did not run
 * here (`'a[$(rm x)]'`, `a[\$\(rm\ x\)]`): bash runs it wherever the word is evaluated again
 * (`let`, `[[ $x -eq 0 ]]`, `printf -v`, `declare -n`, a variable's value), so it is read as code.
 */
function grammarCommands(root: Node): { commands: RuleWord[][]; code: string[] } {
  const found: RuleWord[][] = [];
  const code: string[] = [];
  const visit = (node: Node): void => {
    if (node.type === 'command') {
      const words: RuleWord[] = [];
      for (const child of node.namedChildren) {
        if (child === null || child.type === 'variable_assignment' || child.type.endsWith('redirect')) continue;
        words.push(wordValue(child));
      }
      if (words.length > 0) found.push(words);
    }
    // The grammar misses some substitutions in a here-document bash expands (backticks, `<<-`
    // bodies): its body is read again as the double-quoted string it is to bash.
    if (
      node.type === 'heredoc_redirect' &&
      !/['"\\]/.test(node.namedChildren.find((child) => child?.type === 'heredoc_start')?.text ?? "'")
    ) {
      for (const body of node.namedChildren) {
        if (body?.type === 'heredoc_body' && /\$\(|`/.test(body.text)) code.push(`: "${body.text.replaceAll('"', '\\"')}"`);
      }
    }
    // A grammar `word` holding a backtick is one the grammar misread (`${x:-`rm y`}`).
    if (QUOTED.has(node.type) && (node.type === 'word' || /[\\'"]/.test(node.text))) {
      const text = heldText(node);
      if (/\$\(|`/.test(text)) code.push(text);
    }
    for (const child of node.namedChildren) if (child !== null) visit(child);
  };
  visit(root);
  return { commands: found, code };
}

/** What one reading may spend on command strings found inside it; past this the string is unreadable. */
const MAX_STRING_TEXT = 64 * 1024;
/** How many command readings one string may produce (each is matched against every rule); past this it is unreadable. */
const MAX_READINGS = 4096;

/** Options of a shell that take the next word as their value (so it is neither a script nor a string). */
const SHELL_VALUE_OPTIONS: ReadonlySet<string> = new Set(['-o', '+o', '-O', '+O', '--rcfile', '--init-file']);
/** Paths that are the shell's own standard input: a script read from there is text we never see. */
const STDIN_PATH = /^(?:-|\/dev\/stdin|\/dev\/fd\/0|\/proc\/(?:self|\d+)\/fd\/0)$/;
/** A word bash would read as more than one word, or as code, if it were run as a command string. */
const CODE_LIKE = /[\s;&|<>()`$\\'"{}*?[\]~#!]/;
/** find's options that run the words after them as a command. */
const FIND_RUNS = new Set(['-exec', '-execdir', '-ok', '-okdir']);

interface ReadingState {
  commands: RuleWord[][];
  unreadable: boolean;
  /** Characters of command strings still to be read, and readings still to be made (shared by the whole reading). */
  budget: { left: number; readings: number };
}

export function readCommandForRules(
  parser: Parser,
  command: string,
  depth = 0,
  budget = { left: MAX_STRING_TEXT, readings: MAX_READINGS },
): CommandRuleView {
  if (command.includes('\0') || depth > MAX_DEPTH) return { exact: null, commands: [], unreadable: true };
  const literal = parseLiteralCommand(command);
  const tree = parser.parse(command);
  if (tree === null) return { exact: null, commands: [], unreadable: true };
  try {
    const { commands: grammar, code } = grammarCommands(tree.rootNode);
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
    const view: ReadingState = { commands: [], unreadable, budget };
    for (const words of commands) followRunners(parser, words, view, depth);
    for (const text of code) readString(parser, text, [], view, depth);
    // bash removes a backslash-newline before it splits words (`r\<newline>m x` is `rm x`); the
    // grammar keeps the words apart, so the joined string is read too.
    if (command.includes('\\\n')) readString(parser, command.replaceAll('\\\n', ''), [], view, depth);
    return { exact, commands: view.commands, unreadable: view.unreadable };
  } finally {
    tree.delete();
  }
}

/** Adds one reading; false (and the string unreadable) once the budget is spent. */
function add(view: ReadingState, words: readonly RuleWord[]): boolean {
  if (--view.budget.readings < 0) {
    view.unreadable = true;
    return false;
  }
  view.commands.push([...words]);
  return true;
}

/** Reads `text` as a command string (as `bash -c` would) into `view`; `rest` is appended to what it finds too. */
function readString(parser: Parser, text: RuleWord, rest: readonly RuleWord[], view: ReadingState, depth: number): void {
  if (text === null || text.length > view.budget.left || view.budget.readings < 0) {
    view.unreadable = true;
    return;
  }
  view.budget.left -= text.length;
  const inner = readCommandForRules(parser, text, depth + 1, view.budget);
  for (const entry of inner.commands) {
    if (!add(view, entry)) break;
    if (rest.length > 0 && !add(view, [...entry, ...rest])) break;
  }
  if (inner.unreadable) view.unreadable = true;
}

/**
 * The texts a runner's argument may hand to a shell or split into a command: the word itself
 * (`su -c 'rm x'`, `trap 'rm x' EXIT`, `flock f -c 'rm x'`), and the value of an option written
 * in one word with it (`env -S'rm x'`, `env --split-string=rm`, `alias r=rm`). Which of a
 * runner's options take such a value is not read, so every split counts.
 */
function attachedValues(word: string): string[] {
  const values = [word];
  const equals = word.indexOf('=');
  if (equals !== -1) values.push(word.slice(equals + 1));
  // An option cluster is a few letters long; a longer run is not one, and would cost a reading per letter.
  const letters = (/^[-+]([A-Za-z]+)/.exec(word)?.[1] ?? '').slice(0, 8);
  for (let end = 2; end <= 1 + letters.length; end++) values.push(word.slice(end));
  return values;
}

/**
 * The shell string of `bash -c …`: the first word after the options (options may follow `-c`:
 * `bash -c -x 'rm x'`, `bash -c -- 'rm x'`). A shell given neither a string nor a script file (or
 * a script that is its standard input: `bash -s`, `bash /dev/stdin`) reads its commands from
 * standard input — a pipe or a here-string we do not read — so the string is unreadable.
 */
function shellInput(words: readonly RuleWord[]): { string: RuleWord } | 'script' | 'stdin' {
  let commandString = false;
  let fromStdin = false;
  for (let index = 1; index < words.length; index++) {
    const word = words[index];
    if (word === null || word === undefined) return commandString ? { string: null } : 'stdin';
    if (word === '--' || word === '-') {
      if (word === '-') fromStdin = true;
      const next = words[index + 1];
      if (commandString) return { string: next === undefined ? null : next };
      return next === undefined || fromStdin || STDIN_PATH.test(next ?? '') ? 'stdin' : 'script';
    }
    if (SHELL_VALUE_OPTIONS.has(word)) {
      index++;
      continue;
    }
    if (/^[-+][A-Za-z]+$/.test(word)) {
      if (word.startsWith('-') && word.includes('c')) commandString = true;
      if (word.startsWith('-') && word.includes('s')) fromStdin = true;
      continue;
    }
    if (word.startsWith('--')) continue;
    if (commandString) return { string: word };
    return fromStdin || STDIN_PATH.test(word) ? 'stdin' : 'script';
  }
  return commandString ? { string: null } : 'stdin';
}

/**
 * Adds `words` and what it runs: the command after a runner's own words (every later position
 * counts, since we do not read each runner's options), the command strings a runner is given
 * (`bash -c`, `eval`, `su -c`, `env -S`, `trap`, `alias`…), and any word that holds a command
 * substitution, which bash runs if the word is ever evaluated (`let 'a[$(rm x)]'`).
 */
function followRunners(parser: Parser, words: readonly RuleWord[], view: ReadingState, depth: number): void {
  if (!add(view, words)) return;
  const program = words[0];
  if (program === null || program === undefined) return;
  const name = program.slice(program.lastIndexOf('/') + 1);
  if (name === 'find') {
    for (const [index, word] of words.entries()) {
      if (word !== null && FIND_RUNS.has(word)) followRunners(parser, words.slice(index + 1), view, depth + 1);
    }
  }
  if (isRunner(name)) {
    // A runner's options are not read, so every later position may start the command it runs. Past
    // MAX_RUNNER_WORDS positions the string is called unreadable instead: a long argument list
    // would otherwise cost memory quadratic in its length.
    if (words.length > MAX_RUNNER_WORDS) view.unreadable = true;
    for (let start = 1; start < Math.min(words.length, MAX_RUNNER_WORDS) && view.budget.readings >= 0; start++) {
      const rest = words.slice(start);
      const next = rest[0];
      const nested = next === null || next === undefined ? false : isRunner(next.slice(next.lastIndexOf('/') + 1));
      if (nested && depth < MAX_DEPTH) followRunners(parser, rest, view, depth + 1);
      else add(view, rest);
      if (next === null || next === undefined) continue;
      for (const value of attachedValues(next)) {
        if (value === next && !CODE_LIKE.test(value)) continue;
        if (CODE_LIKE.test(value)) readString(parser, value, rest.slice(1), view, depth);
        else add(view, [value, ...rest.slice(1)]);
      }
    }
  }
  if (name === 'eval') readString(parser, words.slice(1).some((word) => word === null) ? null : words.slice(1).join(' '), [], view, depth);
  if (SHELLS.has(name)) {
    const input = shellInput(words);
    if (input === 'stdin') view.unreadable = true;
    else if (input !== 'script') readString(parser, input.string, [], view, depth);
  }
  if (name === 'source' || name === '.') {
    const file = words[1];
    if (file === null || file === undefined || STDIN_PATH.test(file)) view.unreadable = true;
  }
}
