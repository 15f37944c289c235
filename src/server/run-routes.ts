// Runs and approvals: start a run (answered with its event stream), list runs, re-attach to a
// run's stream, cancel, and list/resolve the approvals runs are waiting for (with a preview of
// the change a pending file write would make, worked out here against the files on disk).

import type { Hono } from 'hono';
import { z } from 'zod';
import {
  cancelRunRequestSchema,
  resolveApprovalRequestSchema,
  startRunRequestSchema,
  type ApprovalList,
  type CancelAnswer,
  type PendingApproval,
  type ResolveAnswer,
  type RunList,
} from '../protocol/index.js';
import { exactAllowRule, saveAllowRule } from '../permissions/index.js';
import { previewChange, type ChangePreview } from '../runner/index.js';
import { isSessionId } from '../sessions/index.js';
import { CompactionBridge } from './compaction-bridge.js';
import { HttpError } from './http-error.js';
import { positiveIntegerParameter, queryObject, readJsonBody, validate } from './json-body.js';
import type { RunParameters } from './run-manager.js';
import { resolveRunProject } from './run-project.js';
import type { ServerContext } from './server-context.js';
import { approvalPolicyWithin, sandboxWithin } from './server-settings.js';
import { SSE_HEADERS, sseResponse } from './sse-response.js';

const RUN_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const CANCEL_REASON = 'Cancelled from the workbench.';

// The body is protocol/'s; the server adds the checks that need its own knowledge: a session id
// is a full one, and `compactAt` is a threshold compaction/ can read.
const { sessionId: sessionIdField, compactAt: compactAtField } = startRunRequestSchema.shape;
const startRunSchema = startRunRequestSchema.extend({
  sessionId: sessionIdField.unwrap().unwrap().refine(isSessionId, 'must be a full session id (a UUIDv7)').nullable().optional(),
  compactAt: compactAtField
    .unwrap()
    .superRefine((value, context) => {
      const problem = CompactionBridge.checkCompactAt(value);
      if (problem !== null) context.addIssue({ code: 'custom', message: problem });
    })
    .optional(),
});

const approvalsQuerySchema = z.strictObject({ runId: z.string().max(100).optional() });

const noQuery = z.strictObject({});
// As `GET /api/sessions` pages (docs/api.md): a team's deployment keeps every run it ever ran.
const RUN_LIST_DEFAULT_LIMIT = 100;
const RUN_LIST_MAX_LIMIT = 1000;
const runListQuerySchema = z.strictObject({
  cursor: z.string().max(100).optional(),
  limit: positiveIntegerParameter(RUN_LIST_MAX_LIMIT).optional(),
});

/** `GET /api/approvals/:runId/:callId/preview` answers this (null: a tool that writes no file). */
export interface ApprovalPreviewAnswer {
  preview: ChangePreview | null;
  /** The exact allow rule "Always allow" would save for this call; null when none describes it. */
  alwaysRule: string | null;
}

async function parseRunParameters(context: ServerContext, body: z.infer<typeof startRunSchema>): Promise<RunParameters> {
  const { settings, defaults } = context;
  const sandbox = body.sandbox ?? defaults.sandbox;
  const approvalPolicy = body.approvalPolicy ?? defaults.approvalPolicy;
  if (!sandboxWithin(sandbox, settings.caps.sandbox)) {
    throw new HttpError(403, `sandbox ${sandbox} is more permissive than this server allows (at most ${settings.caps.sandbox})`);
  }
  if (!approvalPolicyWithin(approvalPolicy, settings.caps.approvalPolicy)) {
    throw new HttpError(
      403,
      `approval policy ${approvalPolicy} is more permissive than this server allows (at most ${settings.caps.approvalPolicy})`,
    );
  }
  const project = await resolveRunProject(body.project, settings);
  return {
    prompt: body.prompt,
    sessionId: body.sessionId ?? null,
    model: body.model ?? settings.model,
    wireApi: body.wireApi ?? settings.wireApi,
    sandbox,
    approvalPolicy,
    compactAt: body.compactAt ?? null,
    project,
  };
}

function knownRunId(runId: string): string {
  if (!RUN_ID_PATTERN.test(runId)) throw new HttpError(404, `no run ${runId}`);
  return runId;
}

/** `Last-Event-ID` (or `?lastEventId=` for clients that cannot set headers): the last id the client has. */
function lastEventId(header: string | undefined, query: string | undefined): number {
  const value = header ?? query;
  if (value === undefined || value.trim() === '') return 0;
  if (!/^\d{1,15}$/.test(value.trim()))
    throw new HttpError(400, 'Last-Event-ID must be a whole number', { 'Last-Event-ID': ['must be a whole number'] });
  return Number(value.trim());
}

export function registerRunRoutes(app: Hono, context: ServerContext): void {
  const { runs, approvals } = context;

  app.post('/api/runs', async (c) => {
    const body = validate(startRunSchema, await readJsonBody(c), 'body');
    const parameters = await parseRunParameters(context, body);
    // Refuse an unknown session before starting anything, so the answer is a plain 404.
    if (parameters.sessionId !== null) await context.store.readPage(parameters.sessionId, { limit: 1 });
    const run = await runs.start(parameters);
    return sseResponse({ log: run.log, afterId: 0, heartbeatMs: context.heartbeatMs, headers: { 'x-run-id': run.runId } });
  });

  app.get('/api/runs', async (c) => {
    const query = validate(runListQuerySchema, queryObject(c), 'query');
    const page = await runs.list({ limit: query.limit ?? RUN_LIST_DEFAULT_LIMIT, cursor: query.cursor ?? null });
    return c.json(page satisfies RunList);
  });

  app.get('/api/runs/:runId/events', async (c) => {
    const query = validate(z.strictObject({ lastEventId: z.string().max(20).optional() }), queryObject(c), 'query');
    const runId = knownRunId(c.req.param('runId'));
    const run = await runs.get(runId);
    if (run === undefined) throw new HttpError(404, `no run ${runId}`);
    const afterId = lastEventId(c.req.header('last-event-id'), query.lastEventId);
    if (afterId > run.log.lastId) throw new HttpError(400, `run ${runId} has no event ${afterId} yet (last is ${run.log.lastId})`);
    // HEAD gets the headers only: a stream nobody reads would hold a subscription until the run ends.
    if (c.req.method === 'HEAD') return new Response(null, { status: 200, headers: { ...SSE_HEADERS, 'x-run-id': run.runId } });
    return sseResponse({ log: run.log, afterId, heartbeatMs: context.heartbeatMs, headers: { 'x-run-id': run.runId } });
  });

  app.post('/api/runs/:runId/cancel', async (c) => {
    validate(cancelRunRequestSchema, await readJsonBody(c), 'body');
    const runId = knownRunId(c.req.param('runId'));
    const outcome = await runs.cancel(runId, CANCEL_REASON);
    if (outcome === 'unknown') throw new HttpError(404, `no run ${runId}`);
    if (outcome === 'finished') throw new HttpError(409, `run ${runId} has already finished`);
    return c.json({ cancelled: true } satisfies CancelAnswer, 202);
  });

  app.get('/api/approvals', async (c) => {
    const query = validate(approvalsQuerySchema, queryObject(c), 'query');
    const listed = await approvals.list(query.runId);
    // So a client can badge the session that waits without a second request.
    const sessions = await Promise.all(listed.map(async (approval) => (await runs.get(approval.runId))?.sessionId ?? null));
    const pending = listed.map(
      (approval, index): PendingApproval => ({
        runId: approval.runId,
        sessionId: sessions[index] ?? null,
        callId: approval.callId,
        toolName: approval.toolName,
        summary: approval.summary,
        reason: approval.reason,
        arguments: approval.arguments,
        requestedAt: approval.requestedAt,
        expiresAt: approval.expiresAt,
      }),
    );
    return c.json({ approvals: pending } satisfies ApprovalList);
  });

  app.get('/api/approvals/:runId/:callId/preview', async (c) => {
    validate(noQuery, queryObject(c), 'query');
    const runId = c.req.param('runId');
    const callId = c.req.param('callId');
    const pending = (await approvals.list(runId)).find((approval) => approval.callId === callId);
    if (pending === undefined) throw new HttpError(404, `no pending approval for call ${callId} of run ${runId}`);
    // Computed on each request, not when the approval was asked: the file may change meanwhile,
    // and the person should see what approving would do now.
    const answer: ApprovalPreviewAnswer = {
      preview: await previewChange(pending.toolName, pending.arguments, context.settings.root),
      alwaysRule: exactAllowRule(pending.toolName, pending.arguments, context.settings.root),
    };
    return c.json(answer);
  });

  app.post('/api/approvals/:runId/:callId', async (c) => {
    const body = validate(resolveApprovalRequestSchema, await readJsonBody(c), 'body');
    const runId = c.req.param('runId');
    const callId = c.req.param('callId');
    if (body.saveRule === undefined) {
      if (!(await approvals.resolve(runId, callId, body.decision, body.message ?? null, 'user'))) {
        throw new HttpError(404, `no pending approval for call ${callId} of run ${runId}`);
      }
      return c.json({ resolved: true } satisfies ResolveAnswer);
    }
    // "Always allow", as the terminal's [s]: the rule is the server's own reading of the call, and
    // the page must have shown exactly that one (a page cannot save a broader rule than the call).
    const pending = (await approvals.list(runId)).find((approval) => approval.callId === callId);
    if (pending === undefined) throw new HttpError(404, `no pending approval for call ${callId} of run ${runId}`);
    if (body.decision !== 'approve_session') throw new HttpError(400, 'saveRule goes with the decision approve_session');
    const rule = exactAllowRule(pending.toolName, pending.arguments, context.settings.root);
    if (rule === null) throw new HttpError(400, 'no exact allow rule describes this call');
    if (rule !== body.saveRule) throw new HttpError(409, `the rule for this call is ${rule}, not ${body.saveRule}`);
    let file: string;
    try {
      file = await saveAllowRule(context.settings.home, rule);
    } catch (error) {
      // Nothing decided: the person can still approve once or for the session.
      throw new HttpError(400, `the rule was not saved: ${(error as Error).message}`);
    }
    // The rule applies from the next turn (rules are read when a turn starts); the session grant
    // covers the rest of this one. The decision records the rule and where it was written.
    const note = `Always allow: saved the rule ${rule} to ${file}.${body.message ? ` ${body.message}` : ''}`;
    if (!(await approvals.resolve(runId, callId, 'approve_session', note, 'user'))) {
      throw new HttpError(404, `no pending approval for call ${callId} of run ${runId}`);
    }
    return c.json({ resolved: true, saved: { rule, file } } satisfies ResolveAnswer);
  });
}
