// Sessions: the list, one session's records page by page, its model calls with rebuilt requests,
// its context chart, fork and manual compaction. Ids from the URL are checked to be session ids
// before the store sees them, so a crafted id can never name a file.

import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { forkSession, isSessionId, type SessionSummary } from '../sessions/index.js';
import { HttpError } from './http-error.js';
import { positiveIntegerParameter, queryObject, readJsonBody, validate } from './json-body.js';
import type { ServerContext } from './server-context.js';
import { contextChart, listModelCalls } from './session-inspection.js';

const MAX_PAGE = 1000;
const DEFAULT_LIST_LIMIT = 100;
const MAX_INSTRUCTIONS_CHARS = 16 * 1024;

const listQuerySchema = z.strictObject({
  query: z.string().max(1000).optional(),
  cursor: z.string().max(1000).optional(),
  limit: positiveIntegerParameter(MAX_PAGE).optional(),
});

const pageQuerySchema = z.strictObject({
  cursor: z.string().max(100).optional(),
  limit: positiveIntegerParameter(MAX_PAGE).optional(),
});

const callsQuerySchema = z.strictObject({
  cursor: z.string().regex(/^\d{1,9}$/, 'must be a cursor from a previous page').optional(),
  limit: positiveIntegerParameter(MAX_PAGE).optional(),
});

const forkSchema = z.strictObject({
  atTurn: z.number().int('must be a whole number').min(0, 'must be 0 or more').max(1_000_000_000).optional(),
});

const compactSchema = z.strictObject({
  instructions: z.string().max(MAX_INSTRUCTIONS_CHARS, `must be at most ${MAX_INSTRUCTIONS_CHARS} characters`).optional(),
});

const noQuery = z.strictObject({});

function sessionIdParameter(c: Context): string {
  const id = c.req.param('id') ?? '';
  if (!isSessionId(id)) throw new HttpError(400, 'not a session id (expected a lowercase UUIDv7)', { id: ['not a session id'] });
  return id;
}

async function summaryOf(context: ServerContext, sessionId: string): Promise<SessionSummary | null> {
  const { sessions } = await context.store.list({ query: sessionId });
  return sessions.find((summary) => summary.sessionId === sessionId) ?? null;
}

export function registerSessionRoutes(app: Hono, context: ServerContext): void {
  const { store } = context;

  app.get('/api/sessions', async (c) => {
    const query = validate(listQuerySchema, queryObject(c), 'query');
    const list = await store.list({ query: query.query, cursor: query.cursor ?? null, limit: query.limit ?? DEFAULT_LIST_LIMIT });
    return c.json({ sessions: list.sessions, nextCursor: list.nextCursor, problems: list.problems });
  });

  app.get('/api/sessions/:id', async (c) => {
    const sessionId = sessionIdParameter(c);
    const query = validate(pageQuerySchema, queryObject(c), 'query');
    const page = await store.readPage(sessionId, { cursor: query.cursor ?? null, limit: query.limit });
    // Later pages start mid-file; the meta record is always the first line.
    let meta = page.entries[0]?.record.type === 'session_meta' ? page.entries[0].record : null;
    if (meta === null) {
      const first = await store.readPage(sessionId, { limit: 1 });
      const record = first.entries[0]?.record;
      meta = record?.type === 'session_meta' ? record : null;
    }
    return c.json({
      summary: await summaryOf(context, sessionId),
      meta,
      records: page.entries,
      problems: page.problems,
      nextCursor: page.nextCursor,
    });
  });

  app.get('/api/sessions/:id/model-calls', async (c) => {
    const sessionId = sessionIdParameter(c);
    const query = validate(callsQuerySchema, queryObject(c), 'query');
    const page = await listModelCalls(store, sessionId, await context.tools(), {
      offset: query.cursor === undefined ? 0 : Number(query.cursor),
      limit: query.limit ?? null,
    });
    return c.json(page);
  });

  app.get('/api/sessions/:id/context', async (c) => {
    const sessionId = sessionIdParameter(c);
    validate(noQuery, queryObject(c), 'query');
    const chart = await contextChart(
      store,
      sessionId,
      (model) => context.compaction.limitsFor(model),
      (items) => context.compaction.estimate(items),
    );
    return c.json(chart);
  });

  app.post('/api/sessions/:id/fork', async (c) => {
    const sessionId = sessionIdParameter(c);
    const body = validate(forkSchema, await readJsonBody(c), 'body');
    const forked = await forkSession(store, sessionId, { atTurn: body.atTurn, glassboxVersion: context.version });
    return c.json({ sessionId: forked }, 201);
  });

  app.post('/api/sessions/:id/compact', async (c) => {
    const sessionId = sessionIdParameter(c);
    const body = validate(compactSchema, await readJsonBody(c), 'body');
    await store.readPage(sessionId, { limit: 1 });
    const release = context.runs.reserveSession(sessionId);
    if (release === null) throw new HttpError(409, `session ${sessionId} has an active run; compact it when the run has ended`);
    try {
      const runner = await context.openRunner();
      const compaction = await context.compaction.compact(runner, sessionId, body.instructions, context.shutdownSignal);
      return c.json({ compaction });
    } finally {
      release();
    }
  });
}
