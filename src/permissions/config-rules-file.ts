// The `permissions` section of a config file (`<home>/config.json`, a project's
// `.glassbox/config.json`), read from the file's text so that every rule keeps the line it is
// written on: the audit says which rule decided and where, and an error names the line to fix.

import { createHash } from 'node:crypto';
import { PERMISSION_DECISIONS } from '../protocol/index.js';
import { type ConfigRule, PermissionRuleError, type RuleList, parseConfigRule } from './config-rule.js';

export interface PermissionRulesSection {
  /** Deny, ask and allow rules, each list in the file's order. */
  rules: ConfigRule[];
  /**
   * `sha256:…` of the three lists as written: what a user pins to let a project's allow rules
   * apply (`projectPermissionRules` in the user's config). Any change to any rule changes it.
   */
  fingerprint: string;
}

const STRICTNESS: Readonly<Record<RuleList, number>> = { allow: 0, ask: 1, deny: 2 };
/** The lists in the order they are consulted: deny, then ask, then allow (the decisions, strictest first). */
const LISTS: readonly RuleList[] = [...PERMISSION_DECISIONS].sort((a, b) => STRICTNESS[b] - STRICTNESS[a]);
/** Claude Code's other keys in `permissions`: accepted so a pasted block works, and ignored. */
const IGNORED_KEYS: ReadonlySet<string> = new Set(['defaultMode', 'additionalDirectories', 'disableBypassPermissionsMode']);

/** Line numbers of array elements, by array: filled while the text is parsed. */
type ElementLines = WeakMap<unknown[], number[]>;

/** JSON.parse, also recording the line each array element starts on (the last duplicate key wins, as in JSON.parse). */
function parseWithLines(text: string, lines: ElementLines): unknown {
  let index = 0;
  let line = 1;
  const space = (): void => {
    while (index < text.length && /[ \t\r\n]/.test(text[index]!)) {
      if (text[index] === '\n') line++;
      index++;
    }
  };
  const token = (pattern: RegExp): string => {
    pattern.lastIndex = index;
    const found = pattern.exec(text);
    if (found === null || found.index !== index) throw new SyntaxError(`unexpected input at line ${line}`);
    index += found[0].length;
    return found[0];
  };
  const value = (): unknown => {
    space();
    const char = text[index];
    if (char === '{') {
      index++;
      const object: Record<string, unknown> = {};
      space();
      if (text[index] === '}') {
        index++;
        return object;
      }
      for (;;) {
        space();
        const key = JSON.parse(token(/"(?:[^"\\\n]|\\.)*"/y)) as string;
        space();
        token(/:/y);
        Object.defineProperty(object, key, { value: value(), enumerable: true, writable: true, configurable: true });
        space();
        if (token(/[,}]/y) === '}') return object;
      }
    }
    if (char === '[') {
      index++;
      const array: unknown[] = [];
      const at: number[] = [];
      lines.set(array, at);
      space();
      if (text[index] === ']') {
        index++;
        return array;
      }
      for (;;) {
        space();
        at.push(line);
        array.push(value());
        space();
        if (token(/[,\]]/y) === ']') return array;
      }
    }
    if (char === '"') return JSON.parse(token(/"(?:[^"\\\n]|\\.)*"/y));
    return JSON.parse(token(/-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y));
  };
  const result = value();
  space();
  if (index !== text.length) throw new SyntaxError(`unexpected input at line ${line}`);
  return result;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The rules in a config file's text, or null when it has no `permissions`. A malformed rule, or a
 * section of the wrong shape, is a `PermissionRuleError` naming the file, the line and the rule.
 */
export function readPermissionRulesSection(text: string, file: string): PermissionRulesSection | null {
  let config: unknown;
  const lines: ElementLines = new WeakMap();
  try {
    // JSON.parse first, for its error message; the second reading only adds line numbers.
    JSON.parse(text);
    config = parseWithLines(text, lines);
  } catch (error) {
    throw new PermissionRuleError(`${file} is not valid JSON: ${(error as Error).message}`, true);
  }
  if (!isObject(config) || !Object.hasOwn(config, 'permissions')) return null;
  const section = config.permissions;
  if (!isObject(section)) throw new PermissionRuleError(`${file}: permissions must be an object with allow, ask and deny lists of rules`);
  for (const key of Object.keys(section)) {
    if (!LISTS.includes(key as RuleList) && !IGNORED_KEYS.has(key)) {
      throw new PermissionRuleError(`${file}: permissions.${key}: unknown key; expected allow, ask or deny`);
    }
  }
  const rules: ConfigRule[] = [];
  const written: Record<string, unknown[]> = {};
  for (const list of LISTS) {
    const entries = section[list];
    if (entries === undefined) continue;
    if (!Array.isArray(entries)) throw new PermissionRuleError(`${file}: permissions.${list} must be a list of rules`);
    const at = lines.get(entries) ?? [];
    for (const [position, entry] of entries.entries()) rules.push(parseConfigRule(entry, list, file, at[position] ?? 1));
    written[list] = entries;
  }
  const fingerprint = `sha256:${createHash('sha256')
    .update(JSON.stringify(LISTS.map((list) => written[list] ?? [])))
    .digest('hex')}`;
  return { rules, fingerprint };
}
