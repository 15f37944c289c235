// Which configured rule (if any) matches a call. Allow rules match narrowly and deny and ask rules
// broadly, so a mistake in either reading errs toward asking: an allow rule for a command matches
// only the exact argv of a string that is one plain command (`CommandRuleView.exact`), and needs
// every path of a file call to match; a deny or ask rule matches any simple command in the string
// (a word that cannot be read stands for any words) and any one path, ignoring case.

import { homedir } from 'node:os';
import { isAbsolute, join, relative, sep } from 'node:path';
import picomatch from 'picomatch';
import type { CommandRuleView, RuleWord } from './command-classification.js';
import type { CommandPatternWord, ConfigRule, RuleList } from './config-rule.js';
import type { PermissionInput } from './permission-types.js';

/** Pattern words against command words; `*` in the pattern and an unreadable (null) command word each stand for any words. */
export function matchCommandWords(pattern: readonly CommandPatternWord[], words: readonly RuleWord[]): boolean {
  const memo = new Map<number, boolean>();
  const at = (i: number, j: number): boolean => {
    const key = i * (words.length + 1) + j;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    const part = pattern[i];
    const word = words[j];
    if (part === undefined) result = j === words.length || words.slice(j).every((rest) => rest === null);
    else if ('star' in part) result = at(i + 1, j) || (j < words.length && at(i, j + 1));
    else if (word === undefined) result = false;
    else if (word === null) result = at(i, j + 1) || at(i + 1, j);
    else result = word === part.literal && at(i + 1, j + 1);
    memo.set(key, result);
    return result;
  };
  return at(0, 0);
}

/** Per rule and project root (a process may serve several projects with the same rule objects). */
const MATCHERS = new WeakMap<ConfigRule, Map<string, (path: string) => boolean>>();

function escapeGlob(text: string): string {
  return text.replace(/[\\*?[\]{}()!+@]/g, '\\$&');
}

/**
 * A path glob as the rule means it: `//abs/**` absolute, `~/x` under the home directory, anything
 * else relative to the project root (`src/**`, `./src/**`, `/src/**`). A path matches when it or a
 * directory above it does, as in `.gitignore`: `Read(secrets)` covers what is inside `secrets/`.
 */
function pathMatcher(rule: ConfigRule, glob: string, root: string): (path: string) => boolean {
  const byRoot = MATCHERS.get(rule) ?? new Map<string, (path: string) => boolean>();
  MATCHERS.set(rule, byRoot);
  const cached = byRoot.get(root);
  if (cached !== undefined) return cached;
  let pattern = glob.endsWith('/') ? `${glob}**` : glob;
  let absolute = false;
  if (pattern.startsWith('//')) {
    pattern = pattern.slice(1);
    absolute = true;
  } else if (pattern === '~' || pattern.startsWith('~/')) {
    pattern = `${escapeGlob(homedir())}${pattern.slice(1)}`;
    absolute = true;
  } else {
    pattern = pattern.replace(/^\.?\/+/, '');
    if (pattern === '' || pattern === '.') pattern = '**';
  }
  // Deny and ask ignore case: on a case-insensitive file system `.ENV` is `.env`.
  const test = picomatch(pattern, { dot: true, nocase: rule.list !== 'allow' });
  const matcher = (path: string): boolean => {
    let candidate = absolute ? path : relative(root, path).split(sep).join('/');
    // No file name is longer than 255 bytes; a longer one (a path made up to slow the glob's
    // backtracking down) never exists, so it is allowed by no rule and denied or asked by all.
    if (candidate.split('/').some((name) => name.length > 255)) return rule.list !== 'allow';
    if (!absolute && (candidate.startsWith('../') || candidate === '..' || isAbsolute(candidate))) return false;
    if (candidate === '') candidate = '.';
    for (;;) {
      if (test(candidate)) return true;
      const slash = candidate.lastIndexOf('/');
      if (slash <= 0) return false;
      candidate = candidate.slice(0, slash);
    }
  };
  byRoot.set(root, matcher);
  return matcher;
}

function ruleMatches(rule: ConfigRule, input: PermissionInput, root: string): boolean {
  const { target } = rule;
  const { access } = input;
  const allow = rule.list === 'allow';
  switch (target.kind) {
    case 'command': {
      if (access.kind !== 'exec') return false;
      if (target.words === null) return true;
      const view: CommandRuleView | null | undefined = input.commandRules;
      // No reading of the command: no allow rule can vouch for it, and every deny or ask matches.
      if (view === null || view === undefined) return !allow;
      if (allow) return view.exact !== null && matchCommandWords(target.words, view.exact);
      const words = target.words;
      return view.unreadable || view.commands.some((command) => matchCommandWords(words, command));
    }
    case 'path': {
      const selected = target.access !== null ? access.kind === target.access : input.toolName === target.toolName;
      if (!selected) return false;
      if (target.glob === null) return true;
      const paths = access.kind === 'read' || access.kind === 'write' ? access.paths.map((path) => join(path)) : [];
      const matches = pathMatcher(rule, target.glob, root);
      return allow ? paths.length > 0 && paths.every(matches) : paths.some(matches);
    }
    case 'mcp': {
      if (access.kind !== 'mcp') return false;
      if (access.server === target.server && (target.tool === null || access.tool === target.tool)) return true;
      // Server and tool names may hold `__` themselves, so `mcp__a__b__c` may also mean server
      // `a__b`'s tool `c`: a deny or ask rule also matches the tool's own name it reads as.
      const name = rule.text.replace(/__\*$/, '');
      return !allow && (input.toolName === name || input.toolName.startsWith(`${name}__`));
    }
    case 'tool':
      // A pattern on a tool we cannot read patterns for: never allows, always denies or asks.
      return input.toolName === target.toolName && (target.pattern === null || !allow);
  }
}

/** The first rule of `list` that matches the call, in the order the files list them. */
export function findConfigRule(rules: readonly ConfigRule[], list: RuleList, input: PermissionInput, root: string): ConfigRule | null {
  for (const rule of rules) if (rule.list === list && ruleMatches(rule, input, root)) return rule;
  return null;
}

/**
 * Whether a file a directory search would read (`grep` over `.`) is covered by a deny or ask rule
 * for `toolName`: the decision saw only the directory, so the search itself leaves such files out,
 * as it leaves out secret files. Null when no deny or ask rule names paths for that tool.
 */
export function configRulesHiding(
  rules: readonly ConfigRule[],
  toolName: string,
  root: string,
): ((absolutePath: string) => boolean) | null {
  const hiding = rules.filter((rule) => {
    const { target } = rule;
    if (rule.list === 'allow' || target.kind !== 'path') return false;
    return target.access !== null ? target.access === 'read' : target.toolName === toolName;
  });
  if (hiding.length === 0) return null;
  return (absolutePath) =>
    hiding.some((rule) => {
      const { target } = rule;
      return target.kind === 'path' && (target.glob === null || pathMatcher(rule, target.glob, root)(join(absolutePath)));
    });
}
