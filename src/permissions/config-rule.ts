// One permission rule as a user writes it in `permissions.allow|ask|deny` of a config file:
// a tool name, optionally with a pattern in parentheses (`shell(npm test)`, `write_file(src/**)`),
// Claude Code's spellings included (`Bash(npm run test:*)`, `Read(...)`, `Edit(...)`), so a user
// can paste theirs. Parsing is strict: a rule we cannot read exactly is an error, never a rule
// that quietly matches more (or less) than it says.

import type { PermissionDecisionKind } from '../protocol/index.js';
import { parseLiteralCommand } from './literal-command.js';

/** The list a rule is written in, named like the decision it makes. */
export type RuleList = PermissionDecisionKind;

/** A pattern word: a literal argument, or `*` (any number of whole words, none included). */
export type CommandPatternWord = { literal: string } | { star: true };

/** Which calls a rule's tool name selects. */
export type RuleTarget =
  /** `shell`, `Bash`: every call that runs a command; the pattern is read as a command. */
  | { kind: 'command'; words: CommandPatternWord[] | null }
  /** File tools: by access (`Read` = every reading tool, `Edit` = every writing tool) or by name. */
  | { kind: 'path'; access: 'read' | 'write' | null; toolName: string | null; glob: string | null }
  /** `mcp__server`, `mcp__server__*`, `mcp__server__tool`. */
  | { kind: 'mcp'; server: string; tool: string | null }
  /** Any other tool name; a pattern on it cannot be read, so it never allows (and deny/ask match every call). */
  | { kind: 'tool'; toolName: string; pattern: string | null };

export interface ConfigRule {
  /** As written. */
  text: string;
  list: RuleList;
  /** The config file and the 1-based line the rule is written on. */
  file: string;
  line: number;
  target: RuleTarget;
}

/** A rule that cannot be read: the message names the file, the line and the rule. */
export class PermissionRuleError extends Error {
  readonly exitCode = 2;
  constructor(
    message: string,
    /** The file is not JSON at all (not a problem with its rules). */
    readonly notJson = false,
  ) {
    super(message);
    this.name = 'PermissionRuleError';
  }
}

/** Tool names whose pattern is a path glob: the access they select, or the one tool. */
const PATH_TOOLS: Readonly<Record<string, { access: 'read' | 'write' | null; toolName: string | null }>> = {
  read_file: { access: null, toolName: 'read_file' },
  write_file: { access: null, toolName: 'write_file' },
  edit_file: { access: null, toolName: 'edit_file' },
  apply_patch: { access: null, toolName: 'apply_patch' },
  grep: { access: null, toolName: 'grep' },
  glob: { access: null, toolName: 'glob' },
  list_dir: { access: null, toolName: 'list_dir' },
  // Claude Code's names. Its Read rules apply to every tool that reads files, its Edit rules to
  // every tool that changes them (our write_file, edit_file and apply_patch); Write is the one tool.
  Read: { access: 'read', toolName: null },
  Edit: { access: 'write', toolName: null },
  MultiEdit: { access: 'write', toolName: null },
  Write: { access: null, toolName: 'write_file' },
  Grep: { access: null, toolName: 'grep' },
  Glob: { access: null, toolName: 'glob' },
  LS: { access: null, toolName: 'list_dir' },
};

const COMMAND_TOOLS: ReadonlySet<string> = new Set(['shell', 'Bash']);

/**
 * Claude Code's names for one of our tools, read off the alias tables above, so a hook's matcher
 * (`Bash`, `Edit|Write`) selects the calls a pasted rule of the same name would.
 */
export function claudeCodeToolNames(toolName: string, access: 'read' | 'write' | 'exec' | 'mcp' | 'none'): string[] {
  if (access === 'exec') return [...COMMAND_TOOLS].filter((name) => name !== toolName);
  return Object.entries(PATH_TOOLS)
    .filter(
      ([name, target]) => name !== toolName && (target.toolName === toolName || (target.toolName === null && target.access === access)),
    )
    .map(([name]) => name);
}

const RULE = /^([A-Za-z_][A-Za-z0-9_-]*\*?)(?:\((.*)\))?$/s;

function fail(file: string, line: number, text: unknown, why: string): never {
  throw new PermissionRuleError(`${file}:${line}: permission rule ${JSON.stringify(text) ?? String(text)} ${why}`);
}

/** `npm test`, `git diff *`, `npm run test:*` (Claude Code's prefix form: a trailing `*` word). */
function commandPattern(pattern: string, problem: (why: string) => never): CommandPatternWord[] {
  const source = pattern.endsWith(':*') ? `${pattern.slice(0, -2)} *` : pattern;
  if (source.trim() === '') problem('has an empty command pattern; write the tool name alone to match every command');
  const parsed = parseLiteralCommand(source);
  if (!parsed.literal)
    problem(`is not a plain command (${parsed.reason.replace(/;.*$/, '')}); a pattern is one command of literal words and \`*\``);
  if (parsed.commands.length !== 1) problem('names more than one command; write one rule per command');
  const [command] = parsed.commands;
  if (command!.redirects.length > 0) problem('has a redirection; a pattern is one command of literal words and `*`');
  return command!.words.map((word) => {
    if (!word.glob) return { literal: word.value };
    if (word.raw === '*') return { star: true } as const;
    return problem(`has a glob inside a word (${word.raw}); \`*\` stands for whole words only (quote it to mean the character)`);
  });
}

function pathPattern(pattern: string, problem: (why: string) => never): string {
  if (pattern.trim() !== pattern || pattern === '') problem('has an empty or space-padded path pattern');
  if (pattern.includes('\0')) problem('has a NUL byte in its path pattern');
  // The glob becomes a regular expression that backtracks: a few `*` in one name, a `*` inside
  // braces or an extglob makes one match take seconds to hours on a long path, and a project's
  // deny rules apply without a pin. Such patterns are refused rather than left to hang a run.
  const unescaped = pattern.replace(/\\./gs, '_');
  if (/[*?+@!]\(/.test(unescaped)) problem('has an extglob (`*(…)`, `+(…)`…); write one rule per alternative');
  if (/\{[^}]*\*/.test(unescaped)) problem('has a `*` inside braces; write one rule per alternative');
  if (unescaped.split('/').some((name) => name !== '**' && (name.match(/\*/g)?.length ?? 0) > 3))
    problem('has more than three `*` in one name');
  return pattern;
}

/** Reads one rule; `file` and `line` only name where it is written, for errors and the audit. */
export function parseConfigRule(text: unknown, list: RuleList, file: string, line: number): ConfigRule {
  if (typeof text !== 'string') fail(file, line, text, 'is not a string');
  const problem = (why: string): never => fail(file, line, text, why);
  const match = RULE.exec(text);
  if (match === null)
    problem('is not a tool name, optionally followed by a pattern in parentheses: `shell(npm test)`, `write_file(src/**)`');
  const name = match![1]!;
  const pattern = match![2];
  const rule = (target: RuleTarget): ConfigRule => ({ text, list, file, line, target });
  if (COMMAND_TOOLS.has(name)) return rule({ kind: 'command', words: pattern === undefined ? null : commandPattern(pattern, problem) });
  const pathTool = PATH_TOOLS[name];
  if (pathTool !== undefined)
    return rule({ kind: 'path', ...pathTool, glob: pattern === undefined ? null : pathPattern(pattern, problem) });
  if (name.startsWith('mcp__')) {
    if (pattern !== undefined) problem('has a pattern; an MCP rule names a server (`mcp__docs`) or one of its tools (`mcp__docs__search`)');
    const [server, ...rest] = name.slice('mcp__'.length).split('__');
    const tool = rest.join('__');
    if (!server) problem('names no MCP server');
    // Anything else would name no server or tool at all, and a deny rule that matches nothing is
    // worse than an error: `mcp__*`, `mcp__docs*`, `mcp__docs__sea*`.
    if (server!.includes('*') || (tool !== '*' && tool.includes('*')))
      problem('has a `*` inside a name; an MCP rule names a server (`mcp__docs`), all its tools (`mcp__docs__*`) or one tool');
    return rule({ kind: 'mcp', server: server!, tool: tool === '' || tool === '*' ? null : tool });
  }
  if (name.endsWith('*')) problem('has a `*` in its tool name; only an MCP rule may end in one (`mcp__docs__*`)');
  if (pattern !== undefined && pattern.trim() === '') problem('has an empty pattern');
  return rule({ kind: 'tool', toolName: name, pattern: pattern ?? null });
}
