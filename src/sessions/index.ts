// Sessions: the durable, append-only record of everything an agent did, and the history derived
// from it by replay. See docs/session-format.md for the file format.

export * from './session-errors.js';
export { createSessionIdGenerator, isSessionId, newSessionId, sessionIdTimestamp, type SessionIdGeneratorOptions } from './session-id.js';
export * from './session-records.js';
export type * from './session-store.js';
export { sessionTitle, TITLE_MAX_CHARS, type SessionSummary } from './session-summary.js';
export { JsonlSessionStore, type JsonlSessionStoreOptions, type RebuildResult } from './jsonl-session-store.js';
export { MemorySessionStore, type MemorySessionStoreOptions } from './memory-session-store.js';
export * from './replay-session.js';
export * from './resume-session.js';
export * from './fork-session.js';
export { checkSessionLines, splitSessionBytes, type CheckedSession } from './session-import.js';
export { REPLAY_SKIPPABLE_TYPES, type ScanRecordOptions } from './record-lines.js';
// Only types and a class whose `open` loads `pg` on demand: importing sessions/ loads no driver.
export { describeDatabaseUrl, PgSessionStore, type PgSessionStoreOptions } from './pg-session-store.js';
export { PG_CONNECT_TIMEOUT_MS, PG_CONNECTION_DEFAULTS, pgClientConfig, pgConnectTimeoutMs, pgPoolConfig } from './pg-connection.js';
export { migratePgSchema, PG_SCHEMA_VERSION } from './pg-schema.js';
