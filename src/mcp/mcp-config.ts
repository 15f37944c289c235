// Which MCP servers a run may use: `mcpServers` in `<home>/config.json` (the user's own) and in the
// project's `.glassbox/config.json`. Only the user's file can trust a server or tool; a project's
// servers start only when the user's file enables them (`projectMcpServers`), because starting one
// runs whatever command the repository names. The opt-in is pinned to the project's directory and
// to a fingerprint of what the server runs (mcp-fingerprint.ts: the command line and the contents
// of the project files it runs): enabling "lint" for one repository must not let another
// repository, a later commit of the same one, or a sandboxed command editing its script run
// different code under that name. Reading costs two small file reads (and a read of each project
// file a project's server runs), no SDK.

import { realpath } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import type { ConfigSource } from '../protocol/index.js';
import { hasControlCharacters } from '../terminal-text/index.js';
import { readProjectFile } from '../workspace/index.js';
import { McpFingerprintError, describeFilesRun, filesRun, mcpServerFingerprint, type FileRun } from './mcp-fingerprint.js';

/** A setting in a config file is wrong: a usage error (exit 2) naming the file and the key. */
export class McpConfigError extends Error {
  readonly exitCode = 2;
  constructor(message: string) {
    super(message);
    this.name = 'McpConfigError';
  }
}

export type McpConfigSource = ConfigSource;

export type McpTransportConfig =
  | { kind: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd: string }
  | { kind: 'http'; url: string; headers: Record<string, string> };

export interface McpServerConfig {
  name: string;
  source: McpConfigSource;
  /** The file it came from, for messages. */
  path: string;
  /** The project of the turn: `${GLASSBOX_PROJECT_ROOT}` in args, env, cwd, url and headers. */
  projectRoot: string;
  transport: McpTransportConfig;
  /** Only these tools are offered to the model; null: all (up to the cap). */
  allowedTools: string[] | null;
  /** Every tool of the server runs without asking (user config only). */
  trusted: boolean;
  /** These tools run without asking (user config only). */
  trustedTools: string[];
  enabled: boolean;
  startupTimeoutMs: number;
  toolTimeoutMs: number;
  /** A stdio server's time to exit after its stdin closes, and again after SIGTERM (then SIGKILL). */
  stopGraceMs: number;
  /**
   * A project's server that the user enabled: the fingerprint they pinned, checked again just
   * before it starts (what it runs may have changed since the config was read).
   */
  pinnedFingerprint?: string;
}

export interface McpConfigWarning {
  code: string;
  message: string;
}

export interface McpConfig {
  servers: McpServerConfig[];
  warnings: McpConfigWarning[];
}

export const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;
export const DEFAULT_TOOL_TIMEOUT_MS = 120_000;
/**
 * The largest message a remote (Streamable HTTP) server may send: one SSE event, or one JSON
 * body, counted while it streams. Results are cut to 30,000 characters for the model anyway;
 * this leaves room for images and resources.
 */
export const MAX_MCP_RESPONSE_BYTES = 16 * 1024 * 1024;
export const DEFAULT_STOP_GRACE_MS = 1_000;

// Names become part of `mcp__<server>__<tool>`, which providers restrict to [A-Za-z0-9_-].
const SERVER_NAME = /^[A-Za-z0-9_-]{1,32}$/;

// A config string is shown to the user (warnings, `mcp list`, approvals) and handed to a process;
// a control character in it could redraw the screen to hide what would really run.
const text = () => z.string().refine((value) => !hasControlCharacters(value), 'must not contain control characters');

const commonFields = {
  tools: z.array(z.string().min(1)).optional(),
  trust: z.boolean().optional(),
  trustedTools: z.array(z.string().min(1)).optional(),
  enabled: z.boolean().optional(),
  startupTimeoutSec: z.number().positive().max(600).optional(),
  toolTimeoutSec: z.number().positive().max(3600).optional(),
};
const stdioSchema = z.strictObject({
  command: text().trim().min(1, 'must not be empty'),
  args: z.array(text()).optional(),
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a variable name'), text()).optional(),
  cwd: text().min(1).optional(),
  // Bounded: a turn waits up to twice this for a server that ignores EOF and SIGTERM.
  stopGraceSec: z.number().positive().max(30).optional(),
  ...commonFields,
});
const httpSchema = z.strictObject({
  url: text().refine(isHttpUrl, 'must be an http:// or https:// URL'),
  headers: z.record(text(), text()).optional(),
  ...commonFields,
});

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    // `${VAR}` placeholders are expanded when the server starts; accept them in the host.
    return /^https?:\/\/\S+$/.test(value) && value.includes('${');
  }
}

/** One problem as `file: key.path: what is wrong`, naming an unknown key itself. */
function describe(path: string, prefix: string, issue: z.core.$ZodIssue | undefined): McpConfigError {
  if (issue === undefined) return new McpConfigError(`${path}: ${prefix}: invalid configuration`);
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((key) => [prefix, ...issue.path.map(String), key].join('.'));
    return new McpConfigError(`${path}: ${keys.join(', ')}: unknown setting${keys.length > 1 ? 's' : ''}`);
  }
  return new McpConfigError(`${path}: ${[prefix, ...issue.path.map(String)].join('.')}: ${issue.message}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `${GLASSBOX_PROJECT_ROOT}`: the project a turn runs in, for a user's server that works on it. */
export const PROJECT_ROOT_VARIABLE = 'GLASSBOX_PROJECT_ROOT';

/**
 * Check one file's `mcpServers` object. A relative `cwd` resolves against `baseDir`, which is also
 * the default: the project root for a project's file, the Glassbox home for the user's — not the
 * project, where `npx`, `python -m` and the like would pick up code the repository planted.
 */
export function parseMcpServers(
  value: unknown,
  path: string,
  source: McpConfigSource,
  baseDir: string,
  projectRoot = baseDir,
): McpServerConfig[] {
  if (value === undefined) return [];
  if (!isObject(value)) throw new McpConfigError(`${path}: mcpServers: expected an object of server name → settings`);
  const servers: McpServerConfig[] = [];
  for (const [name, entry] of Object.entries(value)) {
    const prefix = `mcpServers.${name}`;
    if (!SERVER_NAME.test(name)) {
      throw new McpConfigError(`${path}: ${prefix}: a server name may use only letters, digits, _ and - (at most 32)`);
    }
    if (!isObject(entry)) throw new McpConfigError(`${path}: ${prefix}: expected an object`);
    if ('command' in entry && 'url' in entry)
      throw new McpConfigError(`${path}: ${prefix}: give either command (stdio) or url (Streamable HTTP), not both`);
    const schema = 'command' in entry ? stdioSchema : 'url' in entry ? httpSchema : null;
    if (schema === null)
      throw new McpConfigError(`${path}: ${prefix}: needs either command (a stdio server) or url (a Streamable HTTP server)`);
    const parsed = schema.safeParse(entry);
    if (!parsed.success) throw describe(path, prefix, parsed.error.issues[0]);
    if (source === 'project') {
      const variable = findVariable(parsed.data, prefix);
      if (variable !== null) {
        throw new McpConfigError(
          `${path}: ${variable}: a project's config cannot read environment variables (\${…}); only your own config can hand a server a secret`,
        );
      }
    }
    const data = parsed.data as z.infer<typeof stdioSchema> & z.infer<typeof httpSchema>;
    const transport: McpTransportConfig =
      'command' in data && data.command !== undefined
        ? {
            kind: 'stdio',
            command: data.command,
            args: data.args ?? [],
            env: data.env ?? {},
            // `${GLASSBOX_PROJECT_ROOT}` and other variables are expanded when the server starts.
            cwd:
              data.cwd === undefined ? baseDir : isAbsolute(data.cwd) || data.cwd.startsWith('${') ? data.cwd : resolve(baseDir, data.cwd),
          }
        : { kind: 'http', url: data.url, headers: data.headers ?? {} };
    servers.push({
      name,
      source,
      path,
      projectRoot,
      transport,
      allowedTools: data.tools ?? null,
      trusted: data.trust === true,
      trustedTools: data.trustedTools ?? [],
      enabled: data.enabled !== false,
      startupTimeoutMs: Math.round((data.startupTimeoutSec ?? DEFAULT_STARTUP_TIMEOUT_MS / 1000) * 1000),
      toolTimeoutMs: Math.round((data.toolTimeoutSec ?? DEFAULT_TOOL_TIMEOUT_MS / 1000) * 1000),
      stopGraceMs: Math.max(1, Math.round((data.stopGraceSec ?? DEFAULT_STOP_GRACE_MS / 1000) * 1000)),
    });
  }
  return servers;
}

/** The key path of the first string holding `${…}`, or null. */
function findVariable(value: unknown, at: string): string | null {
  if (typeof value === 'string') return value.includes('${') ? at : null;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findVariable(item, `${at}[${index}]`);
      if (found !== null) return found;
    }
    return null;
  }
  if (isObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      const found = findVariable(item, `${at}.${key}`);
      if (found !== null) return found;
    }
  }
  return null;
}

/** `root`: the project the file belongs to, which its real path must stay inside; null for the user's. */
async function readJson(path: string, root: string | null): Promise<Record<string, unknown> | null> {
  let text: string | null;
  try {
    text = await readProjectFile(path, { root });
  } catch (error) {
    throw new McpConfigError((error as Error).message);
  }
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new McpConfigError(`${path} is not valid JSON: ${(error as Error).message}`);
  }
  if (!isObject(value)) throw new McpConfigError(`${path}: expected a JSON object`);
  return value;
}

export function userConfigPath(home: string): string {
  return join(home, 'config.json');
}

export function projectConfigPath(root: string): string {
  return join(root, '.glassbox', 'config.json');
}

function sortedEntries(record: Record<string, string>): [string, string][] {
  return Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

type ProjectOptIn = (name: string, fingerprint: string) => 'enabled' | 'not-enabled' | 'changed';

/**
 * `projectMcpServers` in the user's file: `{ "<project directory>": { "<server>": "<fingerprint>" } }`.
 * The unpinned forms of earlier versions (`true`, a list of names) enable nothing: they would let
 * any repository that names a server alike run its own command.
 */
function projectOptIn(value: unknown, path: string, root: string, warnings: McpConfigWarning[]): ProjectOptIn {
  if (value === undefined || value === false) return () => 'not-enabled';
  if (value === true || Array.isArray(value)) {
    warnings.push({
      code: 'MCP_PROJECT_OPT_IN_UNPINNED',
      message:
        `${path}: projectMcpServers: ${value === true ? 'true' : 'a list of names'} is no longer honoured: it would start any repository's server of that name. ` +
        `Enable a project's server per project and command: { "<project directory>": { "<server>": "<fingerprint>" } } (the warning about that server gives the exact entry).`,
    });
    return () => 'not-enabled';
  }
  if (!isObject(value))
    throw new McpConfigError(`${path}: projectMcpServers: expected an object of project directory → { server: fingerprint }`);
  for (const [project, servers] of Object.entries(value)) {
    if (!isAbsolute(project)) throw new McpConfigError(`${path}: projectMcpServers: "${project}" is not an absolute directory`);
    if (!isObject(servers) || !Object.values(servers).every((fingerprint) => typeof fingerprint === 'string')) {
      throw new McpConfigError(`${path}: projectMcpServers.${project}: expected an object of server name → fingerprint`);
    }
  }
  const pinned = (value as Record<string, Record<string, string>>)[root];
  return (name, fingerprint) => {
    const wanted = pinned && Object.hasOwn(pinned, name) ? pinned[name] : undefined;
    if (wanted === undefined) return 'not-enabled';
    return wanted === fingerprint ? 'enabled' : 'changed';
  };
}

/** What a server runs, in one line: `stdio: command args…` or `http: url`. */
export function describeTransport(config: McpServerConfig): string {
  const { transport } = config;
  return transport.kind === 'stdio' ? `stdio: ${[transport.command, ...transport.args].join(' ')}` : `http: ${transport.url}`;
}

/**
 * Everything the fingerprint covers, quoted, for the person deciding whether to enable a project's
 * server: the command and each argument, the environment, the directory — or the URL and headers.
 */
export function describeTransportInFull(config: McpServerConfig): string {
  const { transport } = config;
  const pairs = (record: Record<string, string>): string =>
    sortedEntries(record)
      .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
      .join(' ');
  if (transport.kind === 'http') {
    const headers = Object.keys(transport.headers).length > 0 ? ` with headers ${pairs(transport.headers)}` : '';
    return `http ${JSON.stringify(transport.url)}${headers}`;
  }
  const env = Object.keys(transport.env).length > 0 ? ` with env ${pairs(transport.env)}` : '';
  return `${[transport.command, ...transport.args].map((part) => JSON.stringify(part)).join(' ')} in ${JSON.stringify(transport.cwd)}${env}`;
}

/** Both files merged: the user's servers, then the project's that the user enabled. */
export async function readMcpConfig(home: string, root: string): Promise<McpConfig> {
  const userPath = userConfigPath(home);
  const projectPath = projectConfigPath(root);
  const [user, project, projectKey] = await Promise.all([
    readJson(userPath, null),
    readJson(projectPath, root).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    ),
    realpath(root).catch(() => resolve(root)),
  ]);
  const warnings: McpConfigWarning[] = [];
  const servers = parseMcpServers(user?.mcpServers, userPath, 'user', home, root);
  const optIn = projectOptIn(user?.projectMcpServers, userPath, projectKey, warnings);
  // A repository's broken or planted file must not stop every run in its checkout (exit 2): it is
  // left out with a warning, and the user's own file still counts.
  let projectServers: McpServerConfig[] = [];
  try {
    if ('error' in project) throw project.error;
    // Resolved against the real directory, so a symlinked checkout has the same fingerprints.
    projectServers = parseMcpServers(project.value?.mcpServers, projectPath, 'project', projectKey);
  } catch (error) {
    if (!(error instanceof McpConfigError)) throw error;
    warnings.push({
      code: 'PROJECT_CONFIG_IGNORED',
      message: `${error.message}. The project's config is ignored for this run; your own settings in ${userPath} still apply.`,
    });
  }
  const notEnabled: { name: string; fingerprint: string; runs: string }[] = [];
  for (const server of projectServers) {
    if (servers.some((existing) => existing.name === server.name)) {
      warnings.push({
        code: 'MCP_SERVER_SHADOWED',
        message: `MCP server "${server.name}" in ${projectPath} is ignored: ${userPath} defines one with the same name.`,
      });
      continue;
    }
    if (server.trusted || server.trustedTools.length > 0) {
      warnings.push({
        code: 'MCP_PROJECT_TRUST_IGNORED',
        message: `${projectPath}: mcpServers.${server.name}: trust and trustedTools are ignored in a project's config; only ${userPath} can trust a server. Its calls will ask for approval.`,
      });
    }
    const untrusted = { ...server, trusted: false, trustedTools: [] };
    let files: FileRun[];
    let fingerprint: string;
    try {
      files = await filesRun(server);
      fingerprint = await mcpServerFingerprint(server, files);
    } catch (error) {
      if (!(error instanceof McpFingerprintError)) throw error;
      servers.push({ ...untrusted, enabled: false });
      warnings.push({
        code: 'MCP_PROJECT_SERVER_UNVERIFIABLE',
        message: `MCP server "${server.name}" in ${projectPath} is not started: ${error.message}, so what it runs cannot be checked against what you enabled.`,
      });
      continue;
    }
    const state = optIn(server.name, fingerprint);
    if (state === 'enabled') {
      servers.push({ ...untrusted, pinnedFingerprint: fingerprint });
      continue;
    }
    servers.push({ ...untrusted, enabled: false });
    const runs = `${describeTransportInFull(server)}${describeFilesRun(files)}`;
    if (state === 'changed') {
      warnings.push({
        code: 'MCP_PROJECT_SERVER_CHANGED',
        message:
          `MCP server "${server.name}" in ${projectPath} is not started: what it runs changed since you enabled it — its command line, or the contents of a project file it runs (now ${runs}). ` +
          `If you trust what it runs now, set projectMcpServers[${JSON.stringify(projectKey)}].${server.name} to ${JSON.stringify(fingerprint)} in ${userPath}.`,
      });
    } else {
      notEnabled.push({ name: server.name, fingerprint, runs });
    }
  }
  if (notEnabled.length > 0) {
    const entry = Object.fromEntries(notEnabled.map((server) => [server.name, server.fingerprint]));
    warnings.push({
      code: 'MCP_PROJECT_SERVER_NOT_ENABLED',
      message:
        `${projectPath} names MCP server${notEnabled.length > 1 ? 's' : ''} ${notEnabled.map((server) => `"${server.name}" (runs ${server.runs})`).join(', ')}, not started: a project's server runs a command the repository chose. ` +
        `To allow it for this project and this command only, add to ${userPath}: "projectMcpServers": ${JSON.stringify({ [projectKey]: entry })}`,
    });
  }
  return { servers, warnings };
}

/**
 * `${NAME}` in env values, headers, the URL and args is taken from Glassbox's environment, so
 * tokens need not be written into the file. A missing variable fails that server's start.
 */
export function expandVariables(text: string, env: NodeJS.ProcessEnv, what: string): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_match, name: string) => {
    const value = env[name];
    if (value === undefined || value === '') throw new Error(`${what} uses \${${name}}, which is not set in the environment`);
    return value;
  });
}
