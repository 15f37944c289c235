// What a project's MCP server runs, as the digest the user pins (`projectMcpServers`). The command
// line alone is not enough: `node server.mjs` stays the same command line while a sandboxed
// command (the project is writable in workspace-write) or a write tool rewrites server.mjs, and
// the pinned server would then run the new code on the host, unsandboxed. So the digest also
// covers the contents of the project files the server runs: its command once resolved the way the
// server's process will resolve it (a path, or the child's PATH: a `.venv/bin` inside the project
// counts), and every argument (or `--option=value` value) naming a regular file inside the
// project. Files outside the project are not read: a sandboxed command cannot change them. What
// the server loads by itself (imports, `python -m`, `npx`) is not covered (docs/permissions.md).

import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { access, open, realpath, stat } from 'node:fs/promises';
import { delimiter, relative, resolve } from 'node:path';
import { buildChildEnvironment } from '../sandbox/index.js';
import { isInside } from '../workspace/index.js';

/** What the digest is taken of (an `McpServerConfig` is one). */
export interface FingerprintSubject {
  transport:
    | { kind: 'stdio'; command: string; args: readonly string[]; env: Readonly<Record<string, string>>; cwd: string }
    | { kind: 'http'; url: string; headers: Readonly<Record<string, string>> };
  /** Real path of the project: files the server runs are hashed when they are inside it. */
  projectRoot: string;
}

/** A file larger than this cannot be fingerprinted, so its server does not start. */
export const MAX_FINGERPRINTED_FILE_BYTES = 64 * 1024 * 1024;

export interface FileRun {
  /** `command`, or `args[i]` for the argument that names it. */
  role: string;
  /** Relative to the project root. */
  path: string;
  sha256: string;
}

/** A file the server runs could not be read to fingerprint it: the server does not start. */
export class McpFingerprintError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'McpFingerprintError';
  }
}

/** The real path of the regular file `path` names, if it is inside `root`; null otherwise. */
async function projectFile(path: string, root: string): Promise<string | null> {
  const real = await realpath(path).catch(() => null);
  if (real === null || !isInside(root, real)) return null;
  const info = await stat(real).catch(() => null);
  return info?.isFile() ? real : null;
}

async function sha256(path: string): Promise<string> {
  // Non-blocking, so a FIFO swapped in after the check cannot hang the start; capped.
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK).catch((error: Error) => {
    throw new McpFingerprintError(`${path} cannot be read to fingerprint it: ${error.message}`);
  });
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new McpFingerprintError(`${path} is not a regular file`);
    if (info.size > MAX_FINGERPRINTED_FILE_BYTES) {
      throw new McpFingerprintError(`${path} is larger than ${MAX_FINGERPRINTED_FILE_BYTES / (1024 * 1024)} MiB, too large to fingerprint`);
    }
    const hash = createHash('sha256');
    const buffer = Buffer.alloc(1024 * 1024);
    for (let total = 0; ; ) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) return hash.digest('hex');
      total += bytesRead;
      if (total > MAX_FINGERPRINTED_FILE_BYTES) throw new McpFingerprintError(`${path} grew past the fingerprint limit while it was read`);
      hash.update(buffer.subarray(0, bytesRead));
    }
  } finally {
    await handle.close();
  }
}

/** Where the server's process finds its command: a path as given, else the child's PATH, in `cwd`. */
async function resolveCommand(command: string, cwd: string, env: Readonly<Record<string, string>>): Promise<string | null> {
  if (command.includes('/')) return resolve(cwd, command);
  for (const directory of (buildChildEnvironment(process.env, env).PATH ?? '').split(delimiter)) {
    const candidate = resolve(cwd, directory, command);
    const executable = await access(candidate, constants.X_OK).then(
      () => true,
      () => false,
    );
    if (executable && (await stat(candidate).catch(() => null))?.isFile()) return candidate;
  }
  return null;
}

/** The project files a stdio server runs (see the top of this file), in a stable order. */
export async function filesRun(server: FingerprintSubject): Promise<FileRun[]> {
  const { transport } = server;
  if (transport.kind !== 'stdio') return [];
  const root = server.projectRoot;
  const named: { role: string; path: string }[] = [];
  const command = await resolveCommand(transport.command, transport.cwd, transport.env);
  if (command !== null) named.push({ role: 'command', path: command });
  transport.args.forEach((arg, index) => {
    const value = /^--?[^=]+=(.+)$/.exec(arg)?.[1];
    for (const candidate of value === undefined ? [arg] : [arg, value]) {
      named.push({ role: `args[${index}]`, path: resolve(transport.cwd, candidate) });
    }
  });
  const files: FileRun[] = [];
  for (const { role, path } of named) {
    const real = await projectFile(path, root);
    if (real !== null) files.push({ role, path: relative(root, real), sha256: await sha256(real) });
  }
  return files;
}

function sortedEntries(record: Readonly<Record<string, string>>): [string, string][] {
  return Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * What a project's server would run, as a short stable digest: the transport with its command,
 * arguments, environment and directory (or URL and headers) as the project file gives them, and
 * the contents of the project files it runs. A server that runs no project file keeps the digest
 * earlier versions gave it. Throws `McpFingerprintError` when a file it runs cannot be read.
 */
export async function mcpServerFingerprint(server: FingerprintSubject, files?: readonly FileRun[]): Promise<string> {
  const transport = server.transport;
  const canonical: unknown[] =
    transport.kind === 'stdio'
      ? ['stdio', transport.command, transport.args, sortedEntries(transport.env), transport.cwd]
      : ['http', transport.url, sortedEntries(transport.headers)];
  const run = files ?? (await filesRun(server));
  if (run.length > 0) canonical.push(run.map((file) => [file.role, file.path, file.sha256]));
  return `sha256:${createHash('sha256').update(JSON.stringify(canonical)).digest('hex').slice(0, 32)}`;
}

/** `; its fingerprint covers the contents of server.mjs, lib/tool.py`, or nothing. */
export function describeFilesRun(files: readonly FileRun[]): string {
  if (files.length === 0) return '';
  return `; the fingerprint covers the contents of ${[...new Set(files.map((file) => file.path))].join(', ')}`;
}
