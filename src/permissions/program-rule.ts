// A rule built from a program's option table: the options must all be in the table, and every
// path in an option's value or an operand is policy-checked. Most of the allowlist is made of these.

import type { CommandRule, RuleContext } from './command-rule.js';
import { hasOption, parseOptions, type OptionTable, type ParsedArguments } from './parse-options.js';

export interface ProgramSpec {
  options: OptionTable;
  /** What the operands are: files read, paths whose metadata is read, or plain text. */
  operands: 'read' | 'metadata' | 'text';
  /** The first operand is a pattern or script, not a file, unless one of these options is given. */
  patternUnless?: readonly string[];
  maxOperands?: { count: number; reason: string };
  /** Known safe outside the sandbox too (the short list that runs where no sandbox is). */
  floor: boolean;
  /** Further checks once the options parsed. */
  check?: (parsed: ParsedArguments, context: RuleContext) => string | null;
}

export function firstProblem(checks: Iterable<string | null>): string | null {
  for (const problem of checks) if (problem !== null) return problem;
  return null;
}

export const NOT_OUTSIDE = 'is known safe only inside the sandbox';

/** A rule from a program's option table: options, then the paths in option values and operands. */
export function programRule(program: string, spec: ProgramSpec): CommandRule {
  return (args, context) => {
    if (context.outsideSandbox && !spec.floor) return `${program} ${NOT_OUTSIDE}`;
    const result = parseOptions(program, args, spec.options);
    if (!result.ok) return result.problem;
    const { parsed } = result;
    for (const option of parsed.options) {
      if (option.value === null || option.kind === 'text') continue;
      const problem = option.kind === 'read' ? context.checkRead(option.value) : context.checkMetadata(option.value);
      if (problem !== null) return `${option.name}: ${problem}`;
    }
    let files = parsed.operands;
    if (spec.patternUnless !== undefined && !hasOption(parsed, ...spec.patternUnless)) files = files.slice(1);
    if (spec.maxOperands !== undefined) {
      // A glob can become any number of operands.
      const glob = files.find((file) => file.kind === 'glob');
      if (glob !== undefined) return `the glob \`${glob.text}\` can become several operands: ${spec.maxOperands.reason}`;
      if (files.length > spec.maxOperands.count) return spec.maxOperands.reason;
    }
    if (spec.operands !== 'text') {
      const check = spec.operands === 'read' ? context.checkRead.bind(context) : context.checkMetadata.bind(context);
      const problem = firstProblem(files.map((file) => check(file)));
      if (problem !== null) return problem;
    }
    return spec.check?.(parsed, context) ?? null;
  };
}
