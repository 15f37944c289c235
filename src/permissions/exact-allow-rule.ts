// The allow rule "approve always" saves: exactly the call a person approved, never a prefix. A
// command is written as its words, each quoted where bash would read it otherwise, and read back
// with the rule parser to make sure the rule means those words and nothing else; a call no exact
// rule can describe (a compound or non-literal command, a patch of several files) gets none.

import { isAbsolute, join, relative, sep } from 'node:path';
import { parseConfigRule } from './config-rule.js';
import { parseLiteralCommand } from './literal-command.js';

function quoteWord(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", "'\\''")}'`;
}

function escapeGlob(path: string): string {
  return path.replace(/[\\*?[\]{}()!+@]/g, '\\$&');
}

function commandRule(command: string): string | null {
  const parsed = parseLiteralCommand(command);
  if (!parsed.literal || parsed.commands.length !== 1) return null;
  const [only] = parsed.commands;
  if (only!.redirects.length > 0 || only!.words.some((word) => word.glob)) return null;
  const words = only!.words.map((word) => word.value);
  const rule = `shell(${words.map(quoteWord).join(' ')})`;
  try {
    const target = parseConfigRule(rule, 'allow', 'approval', 1).target;
    const back = target.kind === 'command' ? target.words : null;
    const same =
      back !== null && back.length === words.length && back.every((part, index) => 'literal' in part && part.literal === words[index]);
    return same ? rule : null;
  } catch {
    return null;
  }
}

/**
 * The exact rule for a call, from its tool name and arguments as the model sent them; null when
 * there is none. `root` is the project root the file tools resolve paths against.
 */
export function exactAllowRule(toolName: string, argumentsJson: string, root: string): string | null {
  let args: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(argumentsJson);
    if (typeof parsed !== 'object' || parsed === null) return null;
    args = parsed as Record<string, unknown>;
  } catch {
    return null;
  }
  if (toolName === 'shell') {
    // An escalation or another directory is not what a rule says; only the plain call is saved.
    if (typeof args.command !== 'string' || args.escalate === true || (args.workdir !== undefined && args.workdir !== '.')) return null;
    return commandRule(args.command);
  }
  if (toolName === 'write_file' || toolName === 'edit_file') {
    if (typeof args.path !== 'string' || args.path === '') return null;
    const path = relative(root, isAbsolute(args.path) ? args.path : join(root, args.path))
      .split(sep)
      .join('/');
    if (path === '' || path.startsWith('..') || /[\u0000-\u001f]/.test(path)) return null;
    // Absolute (`//…`): the user's rules apply in every project, and the approval was for this file.
    return `${toolName}(/${escapeGlob(`${root}/${path}`)})`;
  }
  // Only a name that reads back as one server and one tool: `mcp__a__b__c` could be server
  // `a__b`'s tool `c` or server `a`'s tool `b__c`, and the rule would mean the latter.
  if (
    /^mcp__[A-Za-z0-9_-]+__[A-Za-z0-9_-]+$/.test(toolName) &&
    toolName.slice('mcp__'.length).split('__').length === 2 &&
    !toolName.includes('___')
  )
    return toolName;
  return null;
}
