// A fork's file holds its parent's history records (turns up to the fork point) but not the
// parent's model calls, audit or warnings: those stay with the parent. To show a fork's Debug
// and Context data, inspection reads its lineage: the parent's records up to the fork point
// (recursively, for forks of forks), then the fork's own records after it. Because a fork's
// history records are copies of the parent's, replaying this stream gives exactly the fork's
// history, with the parent's model calls in place.

import type { SessionRecord, SessionStore } from '../sessions/index.js';

/** Forks of forks of …: past this depth the older ancestors are left out rather than read forever. */
const MAX_DEPTH = 16;

export interface LineageRecord {
  record: SessionRecord;
  /** The session file the record was read from (the parent's id for inherited records). */
  origin: string;
  /** True for records read from an ancestor. */
  inherited: boolean;
}

function turnOf(record: SessionRecord): number | null {
  const turn = (record as { turn?: unknown }).turn;
  return typeof turn === 'number' ? turn : null;
}

async function parentOf(store: SessionStore, sessionId: string): Promise<{ sessionId: string; atTurn: number } | null> {
  const first = await store.readPage(sessionId, { limit: 1 });
  const meta = first.entries[0]?.record;
  return meta?.type === 'session_meta' ? (meta.parent ?? null) : null;
}

/**
 * Hands every record of the session's lineage to `onRecord`, oldest ancestor first. The first
 * record is always a `session_meta` (the oldest ancestor's); the fork's own meta is left out,
 * since the stream continues the ancestor's history.
 */
export async function scanLineage(store: SessionStore, sessionId: string, onRecord: (entry: LineageRecord) => void): Promise<void> {
  const chain = await lineageChain(store, sessionId);
  // chain[i].upTo is the turn the session *below* it forked at; read oldest first.
  let after = 0;
  for (let i = chain.length - 1; i >= 0; i--) {
    const link = chain[i]!;
    const limit = link.upTo;
    const from = after;
    const inherited = i > 0;
    const isOldest = i === chain.length - 1;
    await store.scan(link.sessionId, (record) => {
      if (record.type === 'session_meta') {
        if (isOldest) onRecord({ record, origin: link.sessionId, inherited });
        return;
      }
      const turn = turnOf(record);
      // Records of turns the fork copied come from the ancestor; later ones are this file's own.
      if (turn !== null && turn <= from) return;
      if (limit !== null && turn !== null && turn > limit) return;
      onRecord({ record, origin: link.sessionId, inherited });
    });
    if (limit !== null) after = limit;
  }
}

/**
 * What `scanLineage` would read, as one token: each session of the chain with its store revision.
 * Taken before a scan, it may be older than what the scan then reads, never newer, so a cache
 * keyed by it can only be refreshed once too often.
 */
export async function lineageRevision(store: SessionStore, sessionId: string): Promise<string> {
  const chain = await lineageChain(store, sessionId);
  // An ancestor removed since the chain was read is left out of the walk too (scanLineage): it
  // is "gone" here rather than a failed listing.
  const revisions = await Promise.all(
    chain.map(async (link, index) => {
      const revision = await store.revision(link.sessionId).catch((error: unknown) => {
        if (index === 0) throw error;
        return 'gone';
      });
      return `${link.sessionId}@${link.upTo}@${revision}`;
    }),
  );
  return revisions.join(' ');
}

/** The chain from the session up to its oldest ancestor, each with the turn it forked at. */
async function lineageChain(store: SessionStore, sessionId: string): Promise<Array<{ sessionId: string; upTo: number | null }>> {
  const chain: Array<{ sessionId: string; upTo: number | null }> = [{ sessionId, upTo: null }];
  let current = sessionId;
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    let parent: { sessionId: string; atTurn: number } | null;
    try {
      parent = await parentOf(store, current);
    } catch {
      // A parent that was removed or cannot be read: the fork's own records are still shown.
      parent = null;
    }
    if (parent === null) break;
    try {
      await store.readPage(parent.sessionId, { limit: 1 });
    } catch {
      break;
    }
    chain.push({ sessionId: parent.sessionId, upTo: parent.atTurn });
    current = parent.sessionId;
  }
  return chain;
}
