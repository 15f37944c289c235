// `--database-url` / GLASSBOX_DATABASE_URL / `"database": {"url": …}` in <home>/config.json: where `serve` and
// `exec` keep sessions when a team shares them (PostgreSQL). Unset, sessions stay JSONL files under
// <home>/sessions, exactly as before, and `pg` is never loaded. The URL can carry a password, so it
// is a secret: it is shown only as host and database name, never logged or traced, and it is taken
// out of this process's environment once read, so no child (a tool, an MCP server, git) inherits it.

import { Option } from 'commander';
import type { SessionStore } from '../sessions/index.js';
import { homeConfigSection } from './home-config-section.js';
import { UsageError } from './usage-error.js';

export const DATABASE_URL_VARIABLE = 'GLASSBOX_DATABASE_URL';

export function databaseUrlOption(): Option {
  return new Option(
    '--database-url <url>',
    'keep sessions in PostgreSQL (postgres://…) instead of <home>/sessions; also "database.url" in <home>/config.json',
  ).env(DATABASE_URL_VARIABLE);
}

/** The URL from the option (commander fills it from the variable), else from config.json; undefined: the file store. */
export function resolveDatabaseUrl(option: string | undefined, home: string): string | undefined {
  if (option !== undefined && option.trim() !== '') return option.trim();
  const found = homeConfigSection(home, 'database', '{"url": "postgres://…"}');
  if (found === undefined) return undefined;
  const { path, section } = found;
  const value = section.url;
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`${path}: database.url must be a postgres:// URL`);
  return value.trim();
}

/** Take the variable out of this process's environment: children spawned with `process.env` must not get it. */
export function forgetDatabaseUrlVariable(env: NodeJS.ProcessEnv = process.env): void {
  delete env[DATABASE_URL_VARIABLE];
}

/** `text` without the URL or its password, in case an error quoted either. */
function withoutSecret(text: string, url: string): string {
  const password = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*?:([^@/?#]+)@/i.exec(url)?.[1];
  let result = text.split(url).join('[database url]');
  if (password !== undefined && password.length >= 3) result = result.split(password).join('[redacted]');
  return result;
}

export interface OpenedSessionStore {
  /** undefined: the default JSONL store under <home>/sessions. */
  store: SessionStore | undefined;
  close(): Promise<void>;
}

/**
 * Open the PostgreSQL store (connecting and migrating its schema) when a URL is given. A database
 * that cannot be reached or used is a start-up failure with exit code 2 and the reason.
 */
export async function openSessionStore(databaseUrl: string | undefined, options: { leaseMs?: number } = {}): Promise<OpenedSessionStore> {
  if (databaseUrl === undefined) return { store: undefined, close: async () => {} };
  const { PgSessionStore } = await import('../sessions/index.js');
  const store = await asStartupFailure(databaseUrl, () => PgSessionStore.open(databaseUrl, options));
  return { store, close: () => store.close() };
}

/** A database that cannot be reached or used: a usage error (exit 2) with the reason and without the secret. */
export async function asStartupFailure<T>(databaseUrl: string, open: () => Promise<T>): Promise<T> {
  const { describeDatabaseUrl, isSessionError } = await import('../sessions/index.js');
  try {
    return await open();
  } catch (error) {
    const reason = withoutSecret((error as Error)?.message ?? String(error), databaseUrl);
    if (isSessionError(error)) throw new UsageError(`session database ${describeDatabaseUrl(databaseUrl)}: ${reason}`);
    throw new UsageError(`cannot open the session database ${describeDatabaseUrl(databaseUrl)}: ${reason}`);
  }
}

/** `glassbox db migrate`: apply the missing migrations under the advisory lock every opener takes. */
export async function migrateDatabase(databaseUrl: string): Promise<{ from: number; to: number; location: string }> {
  const { describeDatabaseUrl, migratePgSchema } = await import('../sessions/index.js');
  const { default: pg } = await import('pg');
  return asStartupFailure(databaseUrl, async () => {
    const { pgPoolConfig } = await import('../sessions/index.js');
    const pool = new pg.Pool(pgPoolConfig(pg.Client, databaseUrl, { max: 1 }));
    pool.on('error', () => undefined);
    try {
      const client = await pool.connect();
      try {
        return { ...(await migratePgSchema(client)), location: describeDatabaseUrl(databaseUrl) };
      } finally {
        client.release();
      }
    } finally {
      await pool.end();
    }
  });
}
