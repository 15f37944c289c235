// Sessions: the list, one session's records page by page, its model calls with rebuilt requests,
// its context chart, export, fork, manual compaction and deletion. Ids from the URL are checked
// to be session ids before the store sees them, so a crafted id can never name a file.

import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { forkSession, isSessionId, type SessionSummary } from '../sessions/index.js';
import {
  compactRequestSchema,
  forkRequestSchema,
  MODEL_CALL_PAYLOADS,
  type CompactAnswer,
  type DeleteAnswer,
  type ForkAnswer,
  type SessionList,
  type SessionPage,
} from '../protocol/index.js';
import { HttpError } from './http-error.js';
import { positiveIntegerParameter, queryObject, readJsonBody, validate } from './json-body.js';
import type { ServerContext } from './server-context.js';
import { createCallPricer } from './call-pricing.js';
import { contextChart } from './session-inspection.js';
import { SessionStatsCache } from './session-stats.js';
import { TraceCache, traceCallDetail, traceCalls } from './trace-scan.js';
import { SESSION_EXPORT_FORMATS, createRedactor, exportSession } from '../telemetry/index.js';

const MAX_PAGE = 1000;
const DEFAULT_LIST_LIMIT = 100;

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
  cursor: z
    .string()
    .regex(/^\d{1,9}$/, 'must be a cursor from a previous page')
    .optional(),
  limit: positiveIntegerParameter(MAX_PAGE).optional(),
  payloads: z.enum(MODEL_CALL_PAYLOADS).optional(),
  query: z.string().max(1000).optional(),
});

const callIndexSchema = z.string().regex(/^\d{1,9}$/, 'must be a call index (0, 1, …)');

const noQuery = z.strictObject({});

const exportQuerySchema = z.strictObject({ format: z.enum(SESSION_EXPORT_FORMATS).optional() });

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
  const stats = new SessionStatsCache();
  const traces = new TraceCache();

  app.get('/api/sessions', async (c) => {
    const query = validate(listQuerySchema, queryObject(c), 'query');
    const list = await store.list({ query: query.query, cursor: query.cursor ?? null, limit: query.limit ?? DEFAULT_LIST_LIMIT });
    const pricer = await createCallPricer(context.settings.home);
    const figures = await Promise.all(
      list.sessions.map(async (summary) => {
        try {
          return [summary.sessionId, await stats.statsFor(store, summary, pricer, context.runs.isSessionBusy(summary.sessionId))] as const;
        } catch {
          // A session that cannot be scanned still lists; the index's summary is all there is.
          return null;
        }
      }),
    );
    const statsById = Object.fromEntries(figures.filter((entry) => entry !== null));
    return c.json({
      sessions: list.sessions,
      stats: statsById,
      nextCursor: list.nextCursor,
      problems: list.problems,
    } satisfies SessionList);
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
    } satisfies SessionPage);
  });

  app.get('/api/sessions/:id/model-calls', async (c) => {
    const sessionId = sessionIdParameter(c);
    const query = validate(callsQuerySchema, queryObject(c), 'query');
    const pricer = await createCallPricer(context.settings.home);
    const page = await traceCalls(
      store,
      sessionId,
      await context.tools(),
      pricer,
      {
        offset: query.cursor === undefined ? 0 : Number(query.cursor),
        limit: query.limit ?? null,
        payloads: query.payloads !== 'none',
        query: query.query ?? null,
      },
      traces,
    );
    return c.json(page);
  });

  app.get('/api/sessions/:id/model-calls/:index', async (c) => {
    const sessionId = sessionIdParameter(c);
    validate(noQuery, queryObject(c), 'query');
    const raw = c.req.param('index') ?? '';
    if (!callIndexSchema.safeParse(raw).success) throw new HttpError(400, 'not a call index (0, 1, …)', { index: ['not a call index'] });
    const index = Number(raw);
    const pricer = await createCallPricer(context.settings.home);
    const call = await traceCallDetail(store, sessionId, await context.tools(), pricer, index);
    if (call === null) throw new HttpError(404, `session ${sessionId} has no model call ${index}`);
    return c.json({ call });
  });

  app.get('/api/sessions/:id/export', async (c) => {
    const sessionId = sessionIdParameter(c);
    const { format } = validate(exportQuerySchema, queryObject(c), 'query');
    if (format !== undefined) {
      // For someone else: one self-contained HTML page or a Markdown transcript, or the records,
      // every string through the trace redactor (`glassbox sessions export` writes the same).
      const { records } = await store.read(sessionId);
      const text = exportSession(records, format, createRedactor());
      const types = { html: 'text/html', md: 'text/markdown', jsonl: 'application/x-ndjson' } as const;
      return c.body(text, 200, {
        'content-type': `${types[format]}; charset=utf-8`,
        'content-disposition': `attachment; filename="${sessionId}.${format === 'md' ? 'md' : format}"`,
        'cache-control': 'no-store',
      });
    }
    // Records exactly as read (unknown fields kept); unreadable lines are left out, as everywhere.
    const lines: string[] = [];
    await store.scan(sessionId, (record) => lines.push(JSON.stringify(record)));
    return c.body(`${lines.join('\n')}\n`, 200, {
      'content-type': 'application/x-ndjson; charset=utf-8',
      'content-disposition': `attachment; filename="${sessionId}.jsonl"`,
      'cache-control': 'no-store',
    });
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
    const body = validate(forkRequestSchema, await readJsonBody(c), 'body');
    const forked = await forkSession(store, sessionId, { atTurn: body.atTurn, glassboxVersion: context.version });
    return c.json({ sessionId: forked } satisfies ForkAnswer, 201);
  });

  app.delete('/api/sessions/:id', async (c) => {
    const sessionId = sessionIdParameter(c);
    validate(noQuery, queryObject(c), 'query');
    // A run here holds the session; a writer elsewhere (the CLI, another server) holds its lock,
    // which the store checks. Either way the answer is 409 and nothing is removed.
    const release = context.runs.reserveSession(sessionId);
    if (release === null) throw new HttpError(409, `session ${sessionId} has an active run; delete it when the run has ended`);
    try {
      await store.delete(sessionId);
    } finally {
      release();
    }
    return c.json({ deleted: true } satisfies DeleteAnswer);
  });

  app.post('/api/sessions/:id/compact', async (c) => {
    const sessionId = sessionIdParameter(c);
    const body = validate(compactRequestSchema, await readJsonBody(c), 'body');
    await store.readPage(sessionId, { limit: 1 });
    const release = context.runs.reserveSession(sessionId);
    if (release === null) throw new HttpError(409, `session ${sessionId} has an active run; compact it when the run has ended`);
    try {
      const runner = await context.openRunner();
      const compaction = await context.compaction.compact(runner, sessionId, body.instructions, context.shutdownSignal);
      return c.json({ compaction } satisfies CompactAnswer);
    } finally {
      release();
    }
  });
}
