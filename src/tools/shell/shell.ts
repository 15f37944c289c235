// The `shell` tool: the model's general-purpose escape hatch, so it is the one tool that always
// goes through the OS sandbox unless the permission layer decided otherwise for this call.

import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { z } from 'zod';
import {
  builtInSchema,
  FatalToolError,
  ToolError,
  loadToolDescription,
  type Tool,
  type ToolContext,
  type ToolResult,
} from '../../agent/index.js';
import { resolveExisting, type ResolvedPath } from '../path-policy.js';
import {
  describeUnverifiedTree,
  detectSandbox,
  prepareSandbox,
  runCommand,
  SANDBOX_INSTALL_HINT,
  type CommandResult,
  type SandboxDetector,
  type SandboxSettings,
} from '../../sandbox/index.js';
import { executionPolicy } from '../tool-session-state.js';
import { SHELL_FIELD_SEPARATOR } from '../../views/index.js';

export const DEFAULT_TIMEOUT_MS = 60_000;
export const MAX_TIMEOUT_MS = 600_000;

const shellArguments = builtInSchema(
  'shell',
  z.strictObject({
    command: z.string().min(1).describe('Run with bash -c.'),
    workdir: z.string().optional().describe('Relative to the project root (default: root).'),
    timeout_ms: z.number().optional().describe(`Default ${DEFAULT_TIMEOUT_MS}, max ${MAX_TIMEOUT_MS}.`),
    escalate: z.boolean().optional().describe('Run outside the sandbox.'),
    justification: z.string().optional().describe('Why escalation is needed.'),
  }),
);

export type ShellArguments = z.infer<typeof shellArguments>;

export interface ShellToolOptions {
  /** How to find out whether bubblewrap works here (default: the process-wide memoized probe). */
  sandboxDetector?: SandboxDetector;
  /** Environment the child's allowlist is taken from (default: `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Home directory whose credential stores are masked (default: `os.homedir()`). */
  homeDir?: string;
  /** Glassbox home, always masked in the sandbox (default: `$GLASSBOX_HOME` or `~/.glassbox`). */
  glassboxHome?: string;
  /** Characters of output kept, head and tail together (default 30,000). */
  outputLimit?: number;
  /** Time between SIGTERM and SIGKILL when a command is stopped (default 2 s). */
  killGraceMs?: number;
  /** Entries the git-metadata walks around a workspace-write command read at most (default 200,000). */
  gitScanMaxEntries?: number;
}

interface CheckedArguments {
  command: string;
  workdir: string;
  timeoutMs: number;
  escalate: boolean;
  justification: string | null;
}

function checkArguments(args: ShellArguments): CheckedArguments {
  if (args.command.trim() === '') throw new ToolError('EMPTY_COMMAND', 'command must not be empty or only whitespace.');
  const timeoutMs = args.timeout_ms ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) {
    throw new ToolError(
      'INVALID_TIMEOUT',
      `timeout_ms must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, got ${args.timeout_ms}.`,
    );
  }
  const escalate = args.escalate ?? false;
  const justification = args.justification?.trim() ? args.justification.trim() : null;
  if (escalate && justification === null) {
    throw new ToolError(
      'JUSTIFICATION_REQUIRED',
      'escalate: true needs a justification: say in one sentence why the command must run outside the sandbox.',
    );
  }
  return { command: args.command, workdir: args.workdir ?? '.', timeoutMs, escalate, justification };
}

async function resolveWorkdir(root: string, workdir: string): Promise<string> {
  let resolved: ResolvedPath;
  try {
    resolved = await resolveExisting(root, workdir);
  } catch (error) {
    if (error instanceof ToolError && error.code === 'PATH_NOT_FOUND') {
      throw new ToolError('WORKDIR_NOT_FOUND', `workdir ${workdir} does not exist.`);
    }
    throw error;
  }
  if (!(await stat(resolved.absolute)).isDirectory()) {
    throw new ToolError('NOT_A_DIRECTORY', `workdir ${workdir} is not a directory.`);
  }
  return resolved.absolute;
}

function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return `${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)}s`;
}

function formatResult(result: CommandResult, timeoutMs: number): string {
  const parts: string[] = [`exit_code: ${result.exitCode ?? 'none'}`];
  if (result.signal !== null) parts.push(`signal: ${result.signal}`);
  parts.push(`duration: ${formatSeconds(result.durationMs)}`);
  if (result.timedOut) parts.push(`timed out after ${formatSeconds(timeoutMs)}`);
  if (result.cancelled) parts.push('cancelled');
  parts.push(
    result.sandbox === null ? 'sandbox: none' : `sandbox: ${result.sandbox.mode} (network ${result.sandbox.network ? 'on' : 'off'})`,
  );
  const output = result.output.text === '' ? '(no output)' : result.output.text;
  return `${parts.join(SHELL_FIELD_SEPARATOR)}\n${output}${gitMetadataNotice(result)}`;
}

/** Said to the model (and shown to the user with the output) when the command planted git metadata. */
function gitMetadataNotice(result: CommandResult): string {
  const lines: string[] = [];
  for (const { path, movedTo } of result.quarantinedGitMetadata) {
    const what = basename(path).toLowerCase() === '.glassbox' ? "Glassbox's project configuration" : 'git metadata';
    lines.push(`glassbox: this command created ${what} at ${path}; it was moved to ${movedTo} so it is not used.`);
  }
  if (result.quarantinedGitMetadata.length > 0) {
    lines.push(
      "glassbox: a repository's config and hooks, and Glassbox's project config, name programs that run on the host, so creating them needs a person's approval: " +
        'run the command again with escalate: true and a justification, or ask the user to do it.',
    );
  }
  for (const problem of result.gitMetadataProblems) lines.push(`glassbox: ${problem}.`);
  if (result.unverifiedTree !== null) lines.push(`glassbox: ${describeUnverifiedTree(result.unverifiedTree)}`);
  return lines.length === 0 ? '' : `\n${lines.join('\n')}`;
}

export function createShellTool(options: ShellToolOptions = {}): Tool<ShellArguments> {
  const detector = options.sandboxDetector ?? detectSandbox;
  const env = options.env ?? process.env;
  const homeDir = options.homeDir ?? homedir();
  const glassboxHome = options.glassboxHome ?? (env.GLASSBOX_HOME?.trim() ? resolve(env.GLASSBOX_HOME) : join(homeDir, '.glassbox'));

  async function sandboxFor(context: ToolContext): Promise<SandboxSettings | null> {
    const execution = executionPolicy(context);
    if (!execution.sandboxed) return null;
    if (execution.mode === 'danger-full-access') {
      // The permission layer must never ask for both; guessing which one it meant is not safe.
      throw new FatalToolError('INVALID_EXECUTION_POLICY', 'Execution policy asks for a sandbox in danger-full-access mode.');
    }
    const availability = await detector();
    if (!availability.available || availability.path === null) {
      throw new ToolError('SANDBOX_UNAVAILABLE', `${availability.reason} ${SANDBOX_INSTALL_HINT}`);
    }
    return {
      bwrapPath: availability.path,
      mode: execution.mode,
      network: execution.network,
      secretsApproved: execution.secretsApproved,
      homeDir,
      glassboxHome,
    };
  }

  return {
    name: 'shell',
    description: loadToolDescription(new URL('./shell.md', import.meta.url)),
    schema: shellArguments,
    readOnly: false,
    strict: true,
    access(args, context) {
      const checked = checkArguments(args);
      return {
        kind: 'exec',
        command: checked.command,
        workdir: resolve(context.root, checked.workdir),
        escalate: checked.escalate,
        justification: checked.justification,
      };
    },
    async prepare(context): Promise<void> {
      try {
        const execution = executionPolicy(context);
        if (!execution.sandboxed || execution.mode === 'danger-full-access') return;
        const availability = await detector();
        if (!availability.available || availability.path === null) return;
        await prepareSandbox({ root: context.root, bwrapPath: availability.path, homeDir, glassboxHome, env, network: execution.network });
      } catch {
        // Only a head start: the call itself reports what is wrong.
      }
    },
    async execute(args, context): Promise<ToolResult> {
      const checked = checkArguments(args);
      const workdir = await resolveWorkdir(context.root, checked.workdir);
      const sandbox = await sandboxFor(context);
      let result: CommandResult;
      try {
        result = await runCommand({
          command: checked.command,
          root: context.root,
          workdir,
          env,
          sandbox,
          timeoutMs: checked.timeoutMs,
          signal: context.signal,
          outputLimit: options.outputLimit,
          killGraceMs: options.killGraceMs,
          gitScanMaxEntries: options.gitScanMaxEntries,
        });
      } catch (error) {
        throw new ToolError('SPAWN_FAILED', `The command could not be started: ${(error as Error).message}`);
      }
      return { output: formatResult(result, checked.timeoutMs), isError: result.timedOut || result.cancelled };
    },
  };
}
