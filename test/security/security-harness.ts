// Shared by the security suite: a temp project with an "outside" sibling and a Glassbox home,
// snapshots that prove nothing outside the project changed, and a ToolRuntime over the real tools
// behind either the real permission gate or one that allows everything (to attack the tools' own
// checks). Every path here is inside a temp directory the caller removes with `cleanup`.

import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, readFile, readdir, readlink, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import {
  NO_APPROVER,
  ToolRuntime,
  toolDefinition,
  type AnyTool,
  type ApprovalBroker,
  type PermissionGate,
  type RunEvent,
  type ToolCallOutcome,
} from '../../src/agent/index.js';
import { createToolSessionState } from '../../src/tools/index.js';
import type { ExecutionPolicy } from '../../src/workspace/index.js';
import { parseToolArguments } from '../../src/model/index.js';
import { createEditingTools, createReadOnlyTools, createShellTool } from '../../src/tools/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';

export interface Fixture {
  /** Holds everything below; removed by `cleanup`. */
  base: string;
  /** The project root (a real path). */
  root: string;
  /** A sibling of the root that no tool call may change. */
  outside: string;
  /** The Glassbox home, outside the root. */
  home: string;
  cleanup(): Promise<void>;
}

/**
 * `files` are relative to the root; `outsideFiles` relative to the outside directory. `parent`
 * places the fixture somewhere other than the OS temp directory (the sandbox replaces /tmp and
 * /var/tmp with private ones and shows neither; a fixture under /var/tmp checks that the outside
 * stays out of reach where an older sandbox showed it).
 */
export async function makeFixture(
  files: Record<string, string> = {},
  outsideFiles: Record<string, string> = { 'secret.txt': 'OUTSIDE-ORIGINAL\n' },
  parent?: string,
): Promise<Fixture> {
  const base = parent === undefined ? await makeTempDir() : realpathSync(await mkdtemp(join(parent, 'glassbox-security-')));
  const root = join(base, 'project');
  const outside = join(base, 'outside');
  const home = join(base, 'home');
  await mkdir(root);
  await mkdir(outside);
  await mkdir(home);
  for (const [name, text] of Object.entries(files)) await writeTree(root, name, text);
  for (const [name, text] of Object.entries(outsideFiles)) await writeTree(outside, name, text);
  return { base, root, outside, home, cleanup: () => rm(base, { recursive: true, force: true }) };
}

async function writeTree(directory: string, name: string, text: string): Promise<void> {
  const path = join(directory, name);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
}

/**
 * Every entry under `directory` (symlinks not followed) with what would show a change: type,
 * mode, size, link count and a content hash for files, the target for symlinks.
 */
export async function snapshotTree(directory: string): Promise<Map<string, string>> {
  const entries = new Map<string, string>();
  const visit = async (path: string, relative: string): Promise<void> => {
    const info = await lstat(path);
    if (info.isSymbolicLink()) {
      entries.set(relative, `link -> ${await readlink(path)}`);
    } else if (info.isDirectory()) {
      entries.set(relative, `dir ${info.mode.toString(8)}`);
      for (const name of (await readdir(path)).sort()) await visit(join(path, name), `${relative}/${name}`);
    } else if (info.isFile()) {
      const hash = createHash('sha256')
        .update(await readFile(path))
        .digest('hex')
        .slice(0, 16);
      entries.set(relative, `file ${info.mode.toString(8)} ${info.size} links=${info.nlink} ${hash}`);
    } else {
      entries.set(relative, `other ${info.mode.toString(8)}`);
    }
  };
  await visit(directory, '.');
  return entries;
}

/** Entries added, removed or changed between two snapshots, one line each. */
export function snapshotChanges(before: Map<string, string>, after: Map<string, string>): string[] {
  const changes: string[] = [];
  for (const [path, state] of after) {
    const previous = before.get(path);
    if (previous === undefined) changes.push(`added ${path} (${state})`);
    else if (previous !== state) changes.push(`changed ${path}: ${previous} => ${state}`);
  }
  for (const path of before.keys()) if (!after.has(path)) changes.push(`removed ${path}`);
  return changes;
}

/** What every failed call's output must look like: a code the model can act on. */
export const TOOL_ERROR_OUTPUT = /^Error \[[A-Z][A-Z0-9_]*\]: \S/;

/** The real tools as the runner builds them, with a shell whose environment holds only `env`. */
export function realTools(home: string, env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home }): AnyTool[] {
  return [...createReadOnlyTools(), ...createEditingTools(), createShellTool({ glassboxHome: home, homeDir: home, env, killGraceMs: 200 })];
}

/**
 * Allows every call without asking, so the attack reaches the tool itself. Commands still run in
 * the sandbox (the shell tool refuses to run when bubblewrap is missing), never on the host.
 */
export function allowEverythingGate(
  execution: ExecutionPolicy = { mode: 'workspace-write', sandboxed: true, network: false, secretsApproved: true },
): PermissionGate {
  return {
    decide: () => ({ decision: 'allow', reason: 'security test: allow everything', rule: 'test', execution }),
    grantForSession: () => {},
    isVisible: () => true,
  };
}

export interface RuntimeHarness {
  runtime: ToolRuntime;
  events: RunEvent[];
  /** Run one call; `args` is sent verbatim when it is a string, else JSON-encoded. */
  call(name: string, args: string | Record<string, unknown>, signal?: AbortSignal): Promise<ToolCallOutcome>;
}

export function createRuntime(options: {
  root: string;
  tools: AnyTool[];
  gate: PermissionGate;
  approvals?: ApprovalBroker;
}): RuntimeHarness {
  const events: RunEvent[] = [];
  const schemas = new Map(options.tools.map((tool) => [tool, toolDefinition(tool).parameters]));
  const runtime = new ToolRuntime({
    tools: options.tools,
    root: options.root,
    state: createToolSessionState(),
    gate: options.gate,
    approvals: options.approvals ?? NO_APPROVER,
    // The runner's parsing, strict-mode null mapping included.
    parseArguments: (raw, tool) => parseToolArguments(raw, schemas.get(tool) ?? toolDefinition(tool).parameters, tool.strict),
  });
  let next = 0;
  return {
    runtime,
    events,
    async call(name, args, signal = new AbortController().signal) {
      next += 1;
      const raw = typeof args === 'string' ? args : JSON.stringify(args);
      const [outcome] = await runtime.executeBatch([{ id: `call_${next}`, name, arguments: raw }], {
        runId: 'security',
        round: next,
        signal,
        emit: (event) => events.push(event),
      });
      return outcome!;
    },
  };
}

/** The code of an `Error [CODE]: …` output, or null for a normal output. */
export function errorCode(output: string): string | null {
  return /^Error \[([A-Z0-9_]+)\]: /.exec(output)?.[1] ?? null;
}

/** `fc.assert`, with the failing assertion's own message in the error (fast-check keeps it as `cause`). */
export async function assertProperty<T>(property: fc.IAsyncProperty<T>, parameters: fc.Parameters<T>): Promise<void> {
  try {
    await fc.assert(property, parameters);
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof Error) (error as Error).message += `\nCaused by: ${cause.message}`;
    throw error;
  }
}
