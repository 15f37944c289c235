// Connection settings every PostgreSQL client of Glassbox uses (pools and LISTEN clients alike).

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
