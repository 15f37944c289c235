// Connection settings every PostgreSQL client of Glassbox uses (pools and LISTEN clients alike).

import type { Client, ClientConfig, PoolConfig } from 'pg';
import { SessionError } from './session-errors.js';

/**
 * TCP keepalive finds a connection whose peer is gone without a word (a failover, a dropped NAT
 * entry): without it an idle LISTEN connection waits for notifications that never come. A
 * statement timeout bounds any one statement, so a worker blocked on a lock or on a database that
 * stopped answering gets an error it can retry or give up on instead of hanging (60 s is far
 * above any statement Glassbox sends, which are single-row or batched writes and reads).
 */
export const PG_CONNECTION_DEFAULTS = {
  keepAlive: true,
  keepAliveInitialDelayMillis: 10_000,
  statement_timeout: 60_000,
} as const;

/**
 * How long opening one connection may take. Without a bound, a host that drops packets keeps a
 * starting server or worker waiting until the OS gives up on the TCP handshake (minutes), instead
 * of exiting 2 with the reason; a URL's `connect_timeout` (libpq's parameter, seconds) overrides it.
 */
export const PG_CONNECT_TIMEOUT_MS = 10_000;

/** The connect timeout `databaseUrl` asks for with `connect_timeout=<seconds>`, else the default; 0 waits forever, as in libpq. */
export function pgConnectTimeoutMs(databaseUrl: string): number {
  const match = /[?&]connect_timeout=([^&#]*)/.exec(databaseUrl);
  if (match === null) return PG_CONNECT_TIMEOUT_MS;
  const text = decodeURIComponent(match[1]!);
  const seconds = Number(text);
  if (text.trim() === '' || !Number.isFinite(seconds) || seconds < 0) {
    throw new SessionError(
      'SESSION_INVALID_ARGUMENT',
      `connect_timeout in the database URL must be a number of seconds, got ${JSON.stringify(text)}`,
      {
        exitCode: 2,
      },
    );
  }
  return seconds === 0 ? 0 : Math.max(1, Math.round(seconds * 1000));
}

/** A single client's settings (a LISTEN connection): the defaults and the connect timeout. */
export function pgClientConfig(databaseUrl: string): ClientConfig {
  return { ...PG_CONNECTION_DEFAULTS, connectionString: databaseUrl, connectionTimeoutMillis: pgConnectTimeoutMs(databaseUrl) };
}

/**
 * A pool's settings. The connect timeout goes on the pool's clients, not the pool: pg-pool would
 * also apply a pool-level one to waiting for a busy pool's free connection, and a wait behind other
 * runs' queries is load, not an unreachable database.
 */
export function pgPoolConfig(ClientClass: typeof Client, databaseUrl: string, settings: PoolConfig): PoolConfig {
  const timeout = pgConnectTimeoutMs(databaseUrl);
  class TimedClient extends ClientClass {
    constructor(config?: ClientConfig) {
      super({ ...config, connectionTimeoutMillis: timeout });
    }
  }
  return { ...PG_CONNECTION_DEFAULTS, ...settings, connectionString: databaseUrl, Client: TimedClient };
}
