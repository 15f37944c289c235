// Approvals remembered for the rest of a session ("approve for session"). A grant is narrow on
// purpose: a file grant covers that tool on that exact path; a command grant covers that tool
// running the same simple commands, word for word as parsed (`npm test` covers `npm test` in any
// literal command, but not `npm test --script-shell=x`), and only when nothing else in the string
// (a redirect, an assignment, `xargs`…) needed approval.
// Approving a command to run inside the sandbox never covers running it outside.

import type { GrantLookup, PermissionInput } from './permission-types.js';

type ExecLevel = 'sandboxed' | 'unsandboxed';

function execLevel(escalate: boolean): ExecLevel {
  return escalate ? 'unsandboxed' : 'sandboxed';
}

/** Keys `add` would record for this input, with a readable label for each. */
function grantKeys(input: PermissionInput, level?: ExecLevel): { key: string; label: string }[] {
  const { access, toolName } = input;
  if (access.kind === 'read' || access.kind === 'write') {
    return access.paths.map((path) => ({ key: `${toolName}\0${access.kind}\0${path}`, label: `${toolName}: ${access.kind} ${path}` }));
  }
  // An MCP tool's arguments mean nothing to us: approving for the session covers that tool of that server.
  if (access.kind === 'mcp') return [{ key: `${toolName}\0mcp\0${access.server}\0${access.tool}`, label: `${toolName}: any call` }];
  if (access.kind !== 'exec') return [];
  const where = level ?? execLevel(access.escalate);
  // A grant to read a secret by name covers that exact command only, never `git show` at large.
  const readsSecret = (input.commandSafety?.secretReads?.length ?? 0) > 0;
  const prefixes = readsSecret ? null : (input.commandSafety?.unsafePrefixes ?? null);
  if (prefixes !== null && prefixes.length > 0) {
    return prefixes.map((prefix) => ({
      key: `${toolName}\0exec-${where}\0prefix\0${prefix}`,
      label: `${toolName}: ${prefix}${where === 'unsandboxed' ? ' (outside the sandbox)' : ''}`,
    }));
  }
  // Without prefixes (not classified, or unsafe for structural reasons) only the exact same
  // command in the same directory is covered.
  return [
    {
      key: `${toolName}\0exec-${where}\0exact\0${access.workdir}\0${access.command}`,
      label: `${toolName}: exactly \`${access.command}\` in ${access.workdir}${where === 'unsandboxed' ? ' (outside the sandbox)' : ''}`,
    },
  ];
}

export class SessionGrants implements GrantLookup {
  private readonly grants = new Map<string, string>();

  /** Remember an approve-for-session decision. Returns the labels of what is now granted. */
  add(input: PermissionInput): string[] {
    const keys = grantKeys(input);
    for (const { key, label } of keys) this.grants.set(key, label);
    return keys.map((entry) => entry.label);
  }

  /** What `add(input)` would grant, for showing next to an "approve for session" choice. */
  describe(input: PermissionInput): string[] {
    return grantKeys(input).map((entry) => entry.label);
  }

  /** True when earlier grants cover everything this call needs approval for. */
  matches(input: PermissionInput): boolean {
    const exact = grantKeys(input);
    if (exact.length === 0) return false;
    if (exact.every(({ key }) => this.grants.has(key))) return true;
    // A grant to run outside the sandbox also covers running the same thing inside it.
    if (input.access.kind === 'exec' && !input.access.escalate) {
      return grantKeys(input, 'unsandboxed').every(({ key }) => this.grants.has(key));
    }
    return false;
  }

  list(): string[] {
    return [...this.grants.values()];
  }

  get size(): number {
    return this.grants.size;
  }
}
