// Walks a tree-sitter-bash syntax tree and judges every construct in it. The walk is an
// allowlist too: a node type it does not know makes the command not known safe, so a grammar
// feature it has never seen cannot slip through.

import { relative, resolve } from 'node:path';
import type { Node } from 'web-tree-sitter';
import { isInside } from '../workspace/index.js';
import type { CommandClassification } from './command-classification.js';
import { COMMAND_RULES, COMMAND_RUNNERS, UNSAFE_PROGRAM_REASONS, type RuleContext } from './command-rules.js';
import { isSecretPath } from '../workspace/index.js';
import {
  expandBraces,
  globAsPath,
  globBaseDirectory,
  hasBraceExpansion,
  hasGlobPattern,
  hiddenEvaluation,
  unescapeDoubleQuoted,
  unescapeUnquoted,
  type ShellWord,
} from './shell-word.js';

interface Finding {
  reason: string;
  /** Grant key of the simple command at fault; null when the fault is not a program's arguments. */
  prefix: string | null;
}

const CONTAINERS = new Set(['program', 'list', 'pipeline', 'subshell', 'negated_command']);
/** Tokens between statements, and the delimiters of `$( )`, backticks and `<( )`/`>( )`. */
const SEPARATORS = new Set(['&&', '||', ';', '|', '|&', '(', ')', '{', '}', '!', '\n', '$(', '`', '<(', '>(']);
const REDIRECTS = new Set(['file_redirect', 'heredoc_redirect', 'herestring_redirect']);
const OUTPUT_OPERATORS = new Set(['>', '>>', '>|', '&>', '&>>']);
/** Expansion operators that only transform a value (no assignment, indirection, substring or @P). */
const VALUE_OPERATORS = new Set([':-', '-', ':?', '?', ':+', '+', '#', '##', '%', '%%', '/', '//', '/#', '/%', '^', '^^', ',', ',,']);
const EXPANDING_WORDS = new Set([
  'string',
  'concatenation',
  'simple_expansion',
  'expansion',
  'command_substitution',
  'process_substitution',
  'arithmetic_expansion',
]);
/** Word nodes that stand for one operand of `[ … ]` (besides the expanding ones). */
const TEST_OPERANDS = new Set(['word', 'raw_string', 'number']);
const HARMLESS_DEVICES = new Set(['/dev/null', '/dev/stdin']);
const MAX_DEPTH = 64;

const STATEMENT_REASONS: Record<string, string> = {
  function_definition: 'defines a shell function',
  variable_assignment: 'assigns a shell variable, which can change how later commands run (PATH, IFS…)',
  declaration_command: 'changes shell state (export/declare/local/readonly)',
  unset_command: 'changes shell state (unset)',
  test_command: '`[[ … ]]` evaluates arithmetic, which can run commands through array subscripts',
  if_statement: 'control flow (if) is not classified',
  while_statement: 'loops are not classified (they may never end)',
  for_statement: 'loops are not classified',
  c_style_for_statement: 'loops are not classified',
  case_statement: 'control flow (case) is not classified',
};

class WordBuilder {
  text = '';
  /** Unquoted characters as written; quoted or escaped ones replaced, so only real globs show. */
  shape = '';
  dynamic = false;
  homeRelative = false;
  usesVariables = false;

  addUnquoted(raw: string): void {
    if (this.text === '' && this.shape === '' && raw.startsWith('~')) this.homeRelative = true;
    this.text += unescapeUnquoted(raw);
    // Kept the same length as `text` (unescapeUnquoted keeps a trailing lone backslash).
    for (let index = 0; index < raw.length; index++) {
      if (raw[index] === '\\' && index + 1 < raw.length) {
        index++;
        if (raw[index] !== '\n') this.shape += 'q';
      } else {
        this.shape += raw[index];
      }
    }
  }

  addQuoted(value: string): void {
    this.text += value;
    this.shape += 'q'.repeat(value.length);
  }

  finish(source: string): ShellWord {
    const braces = hasBraceExpansion(this.shape);
    if (this.dynamic) {
      return { kind: 'dynamic', text: source, homeRelative: this.homeRelative, usesVariables: this.usesVariables, unlistedBraces: braces };
    }
    if (braces) {
      const expanded = expandBraces(this.text, this.shape);
      if (expanded === null) return { kind: 'dynamic', text: source, homeRelative: this.homeRelative, unlistedBraces: true };
      const alternatives = expanded.map(
        ({ text, shape }): ShellWord => ({
          kind: hasGlobPattern(shape) ? 'glob' : 'static',
          text,
          homeRelative: shape.startsWith('~'),
        }),
      );
      return { kind: 'dynamic', text: source, homeRelative: this.homeRelative, alternatives };
    }
    return { kind: hasGlobPattern(this.shape) ? 'glob' : 'static', text: this.text, homeRelative: this.homeRelative };
  }
}

/** The grant key of a simple command: argv[0] and its first argument that is not an option. */
function commandPrefix(name: string, args: readonly ShellWord[]): string | null {
  for (const arg of args) {
    if (arg.kind === 'dynamic') return null;
    if (!arg.text.startsWith('-')) return `${name} ${arg.text}`;
  }
  return name;
}

class SyntaxWalker implements RuleContext {
  readonly commands: string[] = [];
  readonly findings: Finding[] = [];
  /** Commands whose rule passed but that are known safe only inside the sandbox. */
  readonly sandboxOnly: Finding[] = [];
  private sandboxReason: string | null = null;
  private readonly directories: string[];
  private depth = 0;

  constructor(
    private readonly root: string,
    cwd: string,
  ) {
    this.directories = [cwd];
  }

  private structural(reason: string): void {
    this.findings.push({ reason, prefix: null });
  }

  statement(node: Node): void {
    if (++this.depth > MAX_DEPTH) {
      this.structural('the command is nested too deeply to classify');
    } else if (CONTAINERS.has(node.type)) {
      this.children(node);
    } else if (node.type === 'compound_statement') {
      // bash only opens a group at a `{` followed by a blank; `{ls;}` is a command named `{ls`.
      if (/^\{\s/.test(node.text)) this.children(node);
      else if (node.text.startsWith('{')) this.structural(`\`${node.text}\`: bash only opens a group at \`{\` followed by a blank`);
      else this.structural(`\`${node.text}\`: arithmetic commands are not classified`);
    } else if (node.type === 'redirected_statement') {
      for (const child of node.namedChildren) {
        if (child !== null && REDIRECTS.has(child.type)) this.redirect(child);
        else if (child !== null) this.statement(child);
      }
    } else if (node.type === 'command') {
      this.command(node);
    } else if (node.type === 'test_command' && node.child(0)?.type === '[') {
      this.singleBracketTest(node);
    } else if (REDIRECTS.has(node.type)) {
      this.redirect(node);
    } else if (node.type !== 'comment') {
      const reason = STATEMENT_REASONS[node.type] ?? `the shell construct \`${node.type}\` is not classified`;
      this.structural(`\`${node.text}\`: ${reason}`);
      this.substitutionsWithin(node);
    }
    this.depth--;
  }

  /**
   * `[ … ]` is the `test` builtin and gets the same rule as `test` (its `-v` evaluates array
   * subscripts, which can run commands). The grammar reads `<` and `>` inside it as comparisons,
   * but bash reads them as redirections, so any such character makes it unsafe rather than
   * trusting the tree.
   */
  private singleBracketTest(node: Node): void {
    this.commands.push('[');
    if (/[<>]/.test(node.text)) this.structural(`\`${node.text}\`: \`<\` or \`>\` inside \`[ … ]\` is a redirection in bash`);
    const words: ShellWord[] = [];
    this.testWords(node, words);
    const problem = COMMAND_RULES.get('[')?.(words, this) ?? null;
    if (problem !== null) this.structural(`[: ${problem}`);
  }

  /** The operators and operands of `[ … ]` in order, whatever expression nodes the grammar wraps them in. */
  private testWords(node: Node, words: ShellWord[]): void {
    for (const child of node.namedChildren) {
      if (child === null) continue;
      if (child.type === 'test_operator') words.push({ kind: 'static', text: unescapeUnquoted(child.text), homeRelative: false });
      else if (EXPANDING_WORDS.has(child.type) || TEST_OPERANDS.has(child.type)) words.push(this.word(child));
      else this.testWords(child, words);
    }
  }

  private children(node: Node): void {
    for (const child of node.children) {
      if (child === null) continue;
      if (child.isNamed) this.statement(child);
      else if (child.type === '&') this.structural('`&` runs a command in the background, where it can outlive the call');
      else if (!SEPARATORS.has(child.type)) this.structural(`the shell operator \`${child.type}\` is not classified`);
    }
  }

  /** Commands inside substitutions run too, wherever they appear. */
  private substitutionsWithin(node: Node): void {
    for (const child of node.namedChildren) {
      if (child === null) continue;
      if (child.type === 'command_substitution' || child.type === 'process_substitution') this.children(child);
      else this.substitutionsWithin(child);
    }
  }

  private command(node: Node): void {
    let name: ShellWord | null = null;
    const args: ShellWord[] = [];
    let previousWordEnd = -1;
    for (let index = 0; index < node.childCount; index++) {
      const child = node.child(index);
      if (child === null) continue;
      const field = node.fieldNameForChild(index);
      if (field === 'name' || field === 'argument') {
        // bash splits words only at blanks and operators; two words with nothing between them are
        // one word to bash, so the grammar misread it (it does so around escaped braces).
        if (child.startIndex === previousWordEnd) {
          this.structural(`\`${node.text.slice(0, 80)}\`: the parser split one shell word in two, so its arguments cannot be trusted`);
        }
        previousWordEnd = child.endIndex;
      }
      if (field === 'name') {
        name = this.word(child);
        this.commands.push(name.text);
      } else if (field === 'argument') args.push(this.word(child));
      else if (REDIRECTS.has(child.type)) this.redirect(child);
      else if (child.type === 'variable_assignment') {
        this.structural(`\`${child.text}\` sets a variable for the command, which can change what it runs (PAGER, GIT_*, LD_PRELOAD…)`);
        this.substitutionsWithin(child);
      } else if (child.type !== 'comment') {
        this.structural(`\`${child.text}\` is not classified`);
      }
    }
    if (name === null) {
      this.structural('a redirection without a command is not classified');
      return;
    }
    if (name.kind !== 'static') {
      this.structural(`the command name \`${name.text}\` is expanded at run time`);
      return;
    }
    const runner = COMMAND_RUNNERS.get(name.text);
    if (runner !== undefined) {
      this.structural(`${name.text} ${runner}`);
      return;
    }
    const prefix = commandPrefix(name.text, args);
    const rule = COMMAND_RULES.get(name.text);
    if (rule === undefined) {
      const known = UNSAFE_PROGRAM_REASONS.get(name.text);
      this.findings.push({ reason: known ?? `${name.text} is not on the allowlist of known-safe commands`, prefix });
      return;
    }
    this.sandboxReason = null;
    const problem = rule(args, this);
    if (problem !== null) this.findings.push({ reason: `${name.text}: ${problem}`, prefix });
    else if (this.sandboxReason !== null) this.sandboxOnly.push({ reason: `${name.text}: ${this.sandboxReason}`, prefix });
  }

  requireSandbox(reason: string): void {
    this.sandboxReason = reason;
  }

  private redirect(node: Node): void {
    if (node.type === 'herestring_redirect') {
      for (const child of node.namedChildren) if (child !== null) this.word(child);
      return;
    }
    if (node.type === 'heredoc_redirect') {
      // bash expands the body only when no part of the delimiter is quoted or escaped.
      const start = node.namedChildren.find((child) => child?.type === 'heredoc_start');
      const expanded = start === undefined || start === null || !/['"\\]/.test(start.text);
      for (const child of node.namedChildren) {
        if (child === null || child.type === 'heredoc_start' || child.type === 'heredoc_end') continue;
        if (child.type === 'heredoc_body') {
          if (expanded) this.heredocBody(child);
        } else {
          this.statement(child);
        }
      }
      return;
    }
    let operator = '';
    let destination: Node | null = null;
    for (let index = 0; index < node.childCount; index++) {
      const child = node.child(index);
      if (child === null) continue;
      const field = node.fieldNameForChild(index);
      if (field === 'destination') destination = child;
      else if (!child.isNamed) operator = child.type;
    }
    if (operator === '>&-' || operator === '<&-') return;
    if ((operator === '>&' || operator === '<&') && destination?.type === 'number') return;
    if (destination === null) {
      this.structural(`the redirection \`${node.text}\` is not classified`);
      return;
    }
    const target = this.word(destination);
    if (operator === '<') {
      const problem = this.checkRead(target);
      if (problem !== null) this.structural(`input redirection: ${problem}`);
    } else if (OUTPUT_OPERATORS.has(operator) || operator === '>&') {
      if (target.kind !== 'static' || target.text !== '/dev/null') {
        this.structural(`\`${node.text}\` redirects output to a file (a write)`);
      }
    } else {
      this.structural(`the redirection \`${node.text}\` is not classified`);
    }
  }

  /**
   * An unquoted here-document body goes through parameter, arithmetic and command expansion. The
   * grammar parses some of that into nodes (walked like words) but leaves other parts as plain
   * text (backticks, `$[ ]`, anything it could not match), so every character no walked node
   * covers is scanned for an evaluation too.
   */
  private heredocBody(node: Node): void {
    const text = node.text;
    let uncovered = '';
    let offset = node.startIndex;
    for (const child of node.namedChildren) {
      if (child === null || child.type === 'heredoc_content') continue;
      uncovered += `${text.slice(offset - node.startIndex, child.startIndex - node.startIndex)} `;
      offset = child.endIndex;
      // Inside the body, as inside double quotes, single quotes are plain characters.
      this.wordPart(child, new WordBuilder(), true);
    }
    uncovered += text.slice(offset - node.startIndex);
    this.leafText(node, uncovered, 'heredoc');
  }

  /**
   * Text the grammar left as a leaf (a word, a pattern, string or here-document content) must
   * hold no evaluation bash would perform: the grammar does not see backticks inside `${ }`
   * operands or here-documents, and a substitution it missed would run unclassified.
   */
  private leafText(node: Node, text: string, quoting: 'unquoted' | 'double' | 'heredoc'): void {
    const found = hiddenEvaluation(text, quoting);
    if (found !== null) {
      this.structural(
        `${JSON.stringify(node.text.slice(0, 80))} holds ${found} that the parser did not separate out, so what it runs cannot be classified`,
      );
    }
  }

  word(node: Node): ShellWord {
    const builder = new WordBuilder();
    this.wordPart(node, builder, false);
    return builder.finish(node.text);
  }

  /**
   * `quoted`: the node sits inside double quotes or an unquoted here-document body, where bash
   * treats single quotes in a `${…}` operand as plain characters and expands what is between them.
   */
  private wordPart(node: Node, builder: WordBuilder, quoted: boolean): void {
    switch (node.type) {
      case 'command_name':
      case 'concatenation':
        for (const child of node.children) if (child !== null) this.wordPart(child, builder, quoted);
        return;
      case 'word':
      case 'number':
        this.leafText(node, node.text, quoted ? 'double' : 'unquoted');
        builder.addUnquoted(node.text);
        return;
      case 'raw_string':
        if (quoted) {
          builder.dynamic = true;
          this.leafText(node, node.text, 'double');
          return;
        }
        builder.addQuoted(node.text.slice(1, -1));
        return;
      case 'string':
        for (const child of node.namedChildren) {
          if (child === null) continue;
          if (child.type === 'string_content') {
            this.leafText(child, child.text, 'double');
            builder.addQuoted(unescapeDoubleQuoted(child.text));
          } else {
            this.wordPart(child, builder, true);
          }
        }
        return;
      case 'ansi_c_string':
        builder.dynamic = true;
        return;
      case 'brace_expression':
        // Only the grammar's name for a numeric `{1..5}`; the text is plain, and finish() expands it.
        builder.addUnquoted(node.text);
        return;
      case 'simple_expansion':
        builder.dynamic = true;
        builder.usesVariables = true;
        return;
      case 'expansion':
        builder.dynamic = true;
        builder.usesVariables = true;
        this.expansion(node, quoted);
        return;
      case 'command_substitution':
      case 'process_substitution':
        builder.dynamic = true;
        this.children(node);
        return;
      case 'arithmetic_expansion':
        builder.dynamic = true;
        this.structural(`\`${node.text}\`: arithmetic expansion is not classified (array subscripts in it can run commands)`);
        this.substitutionsWithin(node);
        return;
      default:
        builder.dynamic = true;
        this.structural(`the word \`${node.text}\` (${node.type}) is not classified`);
    }
  }

  /**
   * `${…}`: reading a variable is harmless; assigning, indirection, substrings and `@P` are not.
   * The operands (`${x:-word}`, the pattern and replacement of `${x/pat/rep}`) are expanded by
   * bash, so they are walked like words, and the pattern, which the grammar keeps as one leaf,
   * is scanned for substitutions.
   */
  private expansion(node: Node, quoted: boolean): void {
    for (const child of node.children) {
      if (child === null || child.type === '${' || child.type === '}') continue;
      if (child.type === 'variable_name' || child.type === 'special_variable_name') continue;
      if (child.type === 'regex') {
        this.leafText(child, child.text, quoted ? 'double' : 'unquoted');
        continue;
      }
      if (!child.isNamed) {
        if (!VALUE_OPERATORS.has(child.type)) {
          this.structural(`\`${node.text}\`: the expansion operator \`${child.type}\` is not classified`);
          return;
        }
        continue;
      }
      if (child.type === 'subscript' || child.type === 'number') {
        this.structural(`\`${node.text}\`: array subscripts and substrings are evaluated as arithmetic, which can run commands`);
        return;
      }
      this.wordPart(child, new WordBuilder(), quoted);
    }
  }

  private pathProblem(word: ShellWord, contents: boolean): string | null {
    // Brace expansion is textual: every word it makes is checked like a literal one.
    if (word.alternatives !== undefined) {
      for (const alternative of word.alternatives) {
        const problem = this.pathProblem(alternative, contents);
        if (problem !== null) return problem;
      }
      return null;
    }
    // `$HOME/.ssh/…` is the natural way to name a file outside the root, so a path built from a
    // variable is refused. Other run-time values (`$(…)` output) cannot be checked here; the
    // sandbox is the boundary for them.
    if (word.kind === 'dynamic') {
      if (word.usesVariables === true) return `the path \`${word.text}\` is built from a variable, so where it points cannot be checked`;
      if (word.unlistedBraces === true) return `the brace expansion in \`${word.text}\` makes words that cannot be listed and checked`;
      return null;
    }
    if (word.homeRelative) return `\`${word.text}\` is in a home directory, outside the project root`;
    if (word.kind === 'static' && (word.text === '-' || HARMLESS_DEVICES.has(word.text))) return null;
    // A glob matches one name per component, so read as a path it climbs exactly as deep as what
    // it matches (`*/../../x` is `../x`), once a component that could match `..` counts as `..`.
    // For a glob, its own text looking like a secret file (`*/.env`, `src/id_rsa*`) means it can
    // match one; `cat *` matching `.env` is a documented limit (the sandbox masks it).
    const paths =
      word.kind === 'glob'
        ? [
            { path: globBaseDirectory(word.text), secret: false },
            { path: globAsPath(word.text), secret: contents },
          ]
        : [{ path: word.text, secret: contents }];
    for (const directory of this.directories) {
      for (const { path, secret } of paths) {
        const absolute = resolve(directory, path);
        if (!isInside(this.root, absolute)) return `\`${word.text}\` is outside the project root`;
        if (secret && isSecretPath(relative(this.root, absolute))) {
          return `\`${word.text}\` ${word.kind === 'glob' ? 'can match' : 'looks like'} a secret file`;
        }
      }
    }
    return null;
  }

  checkRead(word: ShellWord): string | null {
    return this.pathProblem(word, true);
  }

  checkMetadata(word: ShellWord): string | null {
    return this.pathProblem(word, false);
  }

  changeDirectory(word: ShellWord): string | null {
    if (word.kind !== 'static') return `the directory \`${word.text}\` is not a literal path`;
    const problem = this.pathProblem(word, false);
    if (problem !== null) return problem;
    // Where the shell ends up depends on which commands ran, so later paths must be inside the
    // root from every directory the command might be in.
    for (const directory of [...this.directories]) {
      const target = resolve(directory, word.text);
      if (!this.directories.includes(target)) this.directories.push(target);
    }
    return null;
  }
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

export interface AnalyzeOptions {
  root: string;
  cwd: string;
}

export function analyzeSyntaxTree(program: Node, options: AnalyzeOptions): CommandClassification {
  const walker = new SyntaxWalker(options.root, options.cwd);
  walker.statement(program);
  const { commands, findings, sandboxOnly } = walker;
  const inSandbox = verdict(commands, findings);
  if (sandboxOnly.length === 0) return inSandbox;
  return { ...inSandbox, outsideSandbox: verdict(commands, [...findings, ...sandboxOnly]) };
}

function verdict(commands: string[], findings: readonly Finding[]): CommandClassification {
  if (findings.length === 0 && commands.length === 0) {
    return { safe: false, reason: 'there is no command to run', commands, unsafePrefixes: null };
  }
  const first = findings[0];
  if (first === undefined) {
    return { safe: true, reason: `known safe: ${unique(commands).join(', ')}`, commands, unsafePrefixes: [] };
  }
  const more = findings.length > 1 ? ` (and ${findings.length - 1} more problem${findings.length > 2 ? 's' : ''})` : '';
  const structural = findings.some((finding) => finding.prefix === null);
  return {
    safe: false,
    reason: `needs approval: ${first.reason}${more}`,
    commands,
    unsafePrefixes: structural ? null : unique(findings.map((finding) => finding.prefix ?? '')),
  };
}
