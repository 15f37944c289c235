// What a session listing shows about one session: kept in the sessions index (sessions/ builds it
// from records as it appends), served by `GET /api/sessions` and shown by the web. The type is
// derived from the schema.

import { z } from 'zod';
import { wireApiSchema } from './response-item.js';
import { sessionParentSchema } from './session-records.js';

export const sessionSummarySchema = z.object({
  sessionId: z.string().min(1),
  createdAt: z.string(),
  /** Time of the newest record seen. */
  updatedAt: z.string(),
  /** The first prompt, whitespace collapsed, capped at TITLE_MAX_CHARS. Empty before the first turn. */
  title: z.string(),
  cwd: z.string(),
  /** The model of the latest turn (the session's initial model before any turn). */
  model: z.string(),
  wireApi: wireApiSchema,
  /** Highest turn number started. */
  turns: z.number().int().min(0),
  /** Sum of `usage.total.totalTokens` over ended turns. */
  totalTokens: z.number().min(0),
  parent: sessionParentSchema.nullable(),
});
export type SessionSummary = z.infer<typeof sessionSummarySchema>;
