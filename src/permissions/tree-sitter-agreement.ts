// A second reading of a literal command, by the tree-sitter bash grammar. Our lexer decides what
// is literal; the grammar must agree on every command and every word, or the command is not
// known safe. Two independent readings that agree are what a shell-quoting mistake in either one
// would have to get past.

import type { Node, Tree } from 'web-tree-sitter';
import type { LiteralSimpleCommand } from './literal-command.js';

const CONTAINERS = new Set(['program', 'list', 'pipeline', 'redirected_statement']);
const WORDS = new Set(['word', 'string', 'raw_string', 'number', 'concatenation']);
const SEPARATORS = new Set(['&&', '||', ';', '|', '\n']);

/** The words of every command the grammar found, in source order; null for any other construct. */
function commandWords(root: Node): string[][] | null {
  const commands: string[][] = [];
  const visit = (node: Node): boolean => {
    if (node.isError || node.isMissing) return false;
    if (CONTAINERS.has(node.type)) {
      for (const child of node.children) {
        if (child === null) continue;
        if (child.isNamed ? !visit(child) : !SEPARATORS.has(child.type)) return false;
      }
      return true;
    }
    if (node.type === 'file_redirect') return true;
    // `[ … ]` is the test builtin, which the grammar reads as an expression: its leaves in order
    // are the words bash passes to `[`.
    if (node.type === 'test_command' && node.child(0)?.type === '[') {
      const words: string[] = [];
      const leaves = (parent: Node): void => {
        for (const child of parent.children) {
          if (child === null) continue;
          if (!child.isNamed || WORDS.has(child.type) || child.type === 'test_operator') words.push(child.text);
          else leaves(child);
        }
      };
      leaves(node);
      commands.push(words);
      return true;
    }
    if (node.type !== 'command') return false;
    const words: string[] = [];
    for (const child of node.namedChildren) {
      if (child === null) continue;
      if (child.type === 'command_name' || WORDS.has(child.type)) words.push(child.text);
      else if (child.type !== 'file_redirect') return false;
    }
    commands.push(words);
    return true;
  };
  return visit(root) ? commands : null;
}

/** Null when the grammar reads the same commands and words; otherwise why not. */
export function treeSitterDisagreement(tree: Tree, commands: readonly LiteralSimpleCommand[]): string | null {
  if (tree.rootNode.hasError) return 'the bash grammar finds a syntax error in it';
  const found = commandWords(tree.rootNode);
  if (found === null) return 'the bash grammar reads a construct in it that is not a plain command';
  const ours = commands.map((command) => command.words.map((word) => word.raw));
  if (JSON.stringify(found) !== JSON.stringify(ours)) return 'the bash grammar splits it into different commands or words';
  return null;
}
