// What a hook reads as `tool_name` and `tool_input`: Claude Code's, for our tools that have one
// counterpart there, so a hook script written for Claude Code (`jq -r .tool_name` = "Bash",
// `.tool_input.file_path`) works unchanged. Our own name and arguments go beside them as
// `glassbox_tool_name` and `glassbox_tool_input`. Tools with no counterpart (apply_patch,
// update_plan, MCP tools, which are `mcp__server__tool` in both) keep ours in both places.

import { isAbsolute, resolve } from 'node:path';

type Args = Record<string, unknown>;

function absolute(root: string, path: unknown): string | undefined {
  if (typeof path !== 'string') return undefined;
  return isAbsolute(path) ? path : resolve(root, path);
}

function defined(fields: Args): Args {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/** Our tool → Claude Code's name and its argument names (Claude Code's file tools take absolute paths). */
const COUNTERPARTS: Readonly<Record<string, { name: string; input: (args: Args, root: string) => Args }>> = {
  shell: { name: 'Bash', input: (a) => defined({ command: a.command, timeout: a.timeout_ms }) },
  read_file: { name: 'Read', input: (a, root) => defined({ file_path: absolute(root, a.path), offset: a.offset, limit: a.limit }) },
  write_file: { name: 'Write', input: (a, root) => defined({ file_path: absolute(root, a.path), content: a.content }) },
  edit_file: {
    name: 'Edit',
    input: (a, root) =>
      defined({ file_path: absolute(root, a.path), old_string: a.old_string, new_string: a.new_string, replace_all: a.replace_all }),
  },
  grep: {
    name: 'Grep',
    input: (a, root) => defined({ pattern: a.pattern, path: absolute(root, a.path), glob: a.glob, '-i': a.ignore_case }),
  },
  glob: { name: 'Glob', input: (a, root) => defined({ pattern: a.pattern, path: absolute(root, a.path) }) },
  list_dir: { name: 'LS', input: (a, root) => ({ path: absolute(root, a.path ?? '.') }) },
};

export interface HookToolFields extends Record<string, unknown> {
  tool_name: string;
  tool_input: unknown;
  glassbox_tool_name: string;
  glassbox_tool_input: unknown;
}

export function hookToolFields(toolName: string, args: unknown, root: string): HookToolFields {
  const counterpart = COUNTERPARTS[toolName];
  const ours = { glassbox_tool_name: toolName, glassbox_tool_input: args };
  if (counterpart === undefined || typeof args !== 'object' || args === null || Array.isArray(args))
    return { tool_name: toolName, tool_input: args, ...ours };
  // Ours stay in the input too, so a field only Glassbox has (shell's `workdir`) is not lost.
  return { tool_name: counterpart.name, tool_input: { ...(args as Args), ...counterpart.input(args as Args, root) }, ...ours };
}
