// Request bodies and query strings in, validated values out. Bodies must be JSON (415), at most
// 1 MiB (413, counted while reading so a lying Content-Length cannot get past it), and match a
// zod schema (400 with the offending fields).

import type { Context } from 'hono';
import { z } from 'zod';
import { HttpError, type FieldErrors } from './http-error.js';

export const MAX_BODY_BYTES = 1024 * 1024;
const JSON_TYPE = /^application\/json\s*(;|$)/i;
const BODY_FIELD = '(body)';
const QUERY_FIELD = '(query)';

/** Read the body as JSON. An empty body reads as `{}`, so `POST …/cancel` needs no payload. */
export async function readJsonBody(c: Context): Promise<unknown> {
  const type = c.req.header('content-type') ?? '';
  if (!JSON_TYPE.test(type)) throw new HttpError(415, 'request bodies must be JSON: send Content-Type: application/json');
  const header = c.req.header('content-length');
  const declared = header !== undefined && /^\d+$/.test(header.trim()) ? Number(header) : null;
  if (declared !== null && declared > MAX_BODY_BYTES) throw tooLarge();
  const text = await readLimited(c.req.raw.body, declared);
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new HttpError(400, `the body is not valid JSON: ${(error as Error).message}`);
  }
}

/**
 * The client hung up before it sent the body it announced (a closed tab, a killed script). Routine,
 * not a server bug: the server logs one line for it instead of a stack trace, and nobody is left
 * to read the 400 it answers.
 */
export class RequestAbortedError extends Error {
  constructor(
    readonly received: number,
    readonly declared: number | null,
    /** What the body stream said, kept for the log line (not its stack). */
    readonly detail: string | null = null,
  ) {
    super(
      `the client closed the connection after ${received} of ${declared === null ? 'an unknown number of' : declared} bytes of the request body` +
        (detail === null ? '' : ` (${detail})`),
    );
    this.name = 'RequestAbortedError';
  }
}

function tooLarge(): HttpError {
  return new HttpError(413, `the body is larger than ${MAX_BODY_BYTES} bytes`);
}

async function readLimited(body: ReadableStream<Uint8Array> | null, declared: number | null): Promise<string> {
  if (body === null) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let next: Awaited<ReturnType<typeof reader.read>>;
    try {
      next = await reader.read();
    } catch (error) {
      // Reading an incoming body fails when the connection goes away mid-body (Node's bare
      // "aborted", or the adapter's "prematurely closed"); the stack says nothing useful.
      const detail = String((error as Error)?.message ?? error).split('\n')[0];
      throw new RequestAbortedError(size, declared, detail);
    }
    const { done, value } = next;
    if (done) {
      // A body stream can also just end early when the socket closed before it was first read.
      if (declared !== null && size < declared) throw new RequestAbortedError(size, declared);
      break;
    }
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new HttpError(400, 'the body is not valid UTF-8');
  }
}

/** Parse `value` with `schema`, or throw a 400 naming every offending field. */
export function validate<T>(schema: z.ZodType<T>, value: unknown, what: 'body' | 'query'): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const fieldErrors = describeIssues(result.error, what === 'body' ? BODY_FIELD : QUERY_FIELD);
  const first = Object.entries(fieldErrors)[0];
  const summary = first ? `${first[0]}: ${first[1][0]}` : 'does not match the schema';
  throw new HttpError(400, `invalid request ${what} (${summary})`, fieldErrors);
}

function describeIssues(error: z.ZodError, rootName: string): FieldErrors {
  // A Map, not an object literal: field names come from the client (`constructor`, `__proto__`).
  const fields = new Map<string, string[]>();
  const add = (field: string, message: string): void => {
    const messages = fields.get(field);
    if (messages === undefined) fields.set(field, [message]);
    else messages.push(message);
  };
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) add(issue.path.length > 0 ? `${issue.path.join('.')}.${key}` : key, 'unknown field');
      continue;
    }
    add(issue.path.length > 0 ? issue.path.join('.') : rootName, issue.message);
  }
  return Object.fromEntries(fields);
}

/** A query parameter holding a positive whole number up to `max`. */
export function positiveIntegerParameter(max: number): z.ZodType<number> {
  return z
    .string()
    .regex(/^\d{1,9}$/, 'expected a positive whole number')
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be at least 1').max(max, `must be at most ${max}`));
}

/** The query string as one value per name; a repeated name is refused rather than guessed at. */
export function queryObject(c: Context): Record<string, string> {
  const all = c.req.queries();
  const single: Record<string, string> = {};
  for (const [name, values] of Object.entries(all)) {
    if (values.length !== 1)
      throw new HttpError(400, `query parameter ${name} is given more than once`, { [name]: ['given more than once'] });
    single[name] = values[0]!;
  }
  return single;
}
