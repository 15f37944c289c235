// Hand-written checks for the records that occur many times per turn (`response_item`,
// `model_call`, `audit`), because replaying a long session must cost little more than JSON.parse
// and zod's safeParse costs several times these. They accept exactly what the zod schemas in
// protocol/session-records.ts accept (their names are protocol's enumerations):
// test/sessions/record-checks-property.test.ts proves it on arbitrary
// valid and broken records, so a change to one without the other fails the tests.

import {
  APPROVAL_DECISIONS,
  FINISH_REASONS,
  HOOK_EVENTS,
  HOOK_OUTCOMES,
  CONFIG_SOURCES,
  PERMISSION_DECISIONS,
  RUNTIME_ROLES,
  USAGE_STAGES,
  WIRE_APIS,
} from '../protocol/index.js';

type Check = (value: unknown) => boolean;
type Fields = Record<string, unknown>;
/** Returns the first offending field name, or null. */
type ShapeCheck = (value: Fields) => string | null;

const isString: Check = (value) => typeof value === 'string';
const isBoolean: Check = (value) => typeof value === 'boolean';
const isPresent: Check = (value) => value !== undefined;
// zod's int() is a safe integer (2 ** 60 is an integer but not one), its numbers finite.
const isCount: Check = (value) => Number.isSafeInteger(value) && (value as number) >= 0;
const isTurnNumber: Check = (value) => Number.isSafeInteger(value) && (value as number) >= 1;
const isInteger: Check = (value) => Number.isSafeInteger(value);
const isAmount: Check = (value) => typeof value === 'number' && Number.isFinite(value) && value >= 0;

function nullable(check: Check): Check {
  return (value) => value === null || check(value);
}

function optional(check: Check): Check {
  return (value) => value === undefined || check(value);
}

function oneOf(allowed: readonly string[]): Check {
  const set = new Set(allowed);
  return (value) => typeof value === 'string' && set.has(value);
}

export function isObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function shape(fields: Record<string, Check>): ShapeCheck {
  const names = Object.keys(fields);
  const checks = Object.values(fields);
  return (value) => {
    for (let index = 0; index < names.length; index += 1) {
      const name = names[index] as string;
      if (!(checks[index] as Check)(value[name])) return name;
    }
    return null;
  };
}

const isWireApi: Check = (value) => typeof value === 'string' && (WIRE_APIS as readonly string[]).includes(value);
const providerFieldsShape = shape({ format: isWireApi, fields: isObject });
const isProviderFields: Check = (value) => isObject(value) && providerFieldsShape(value) === null;

const usageShape = shape({
  inputTokens: isAmount,
  cachedInputTokens: nullable(isAmount),
  cacheWriteInputTokens: optional(isAmount),
  outputTokens: isAmount,
  reasoningTokens: isAmount,
  totalTokens: isAmount,
  // Any JSON value (null included), but present: JSON has no undefined, so absent is undefined.
  raw: isPresent,
});
const isUsage: Check = (value) => isObject(value) && usageShape(value) === null;
const errorShape = shape({ code: isString, message: isString });
const isErrorInfo: Check = (value) => isObject(value) && errorShape(value) === null;

// Lookups by a type read from the file go through Maps, so a record typed `constructor` or
// `__proto__` cannot reach Object.prototype members.
const assistantShape = shape({
  content: isString,
  runtimeRole: oneOf(RUNTIME_ROLES),
  providerFields: optional(isProviderFields),
});
const itemShapes = new Map<string, ShapeCheck>(
  Object.entries({
    message: (value: Fields) => {
      if (value.role === 'assistant') return assistantShape(value);
      if (value.role === 'user' || value.role === 'system') return isString(value.content) ? null : 'content';
      return 'role';
    },
    function_call: shape({
      callId: isString,
      name: isString,
      arguments: isString,
      providerCallId: optional(isString),
      providerFields: optional(isProviderFields),
    }),
    reasoning: shape({ format: isWireApi, text: isString, state: nullable(isObject) }),
    function_call_output: shape({ callId: isString, name: isString, output: isString, isError: isBoolean }),
    compaction_summary: shape({ compactionId: isString, summary: isString }),
  }),
);

const auditShapes = new Map<string, ShapeCheck>(
  Object.entries({
    tool_permission_decided: shape({
      callId: isString,
      name: isString,
      decision: oneOf(PERMISSION_DECISIONS),
      reason: isString,
      rule: isString,
    }),
    approval_requested: shape({ callId: isString, name: isString, summary: isString, reason: isString, arguments: isString }),
    approval_resolved: shape({
      callId: isString,
      name: isString,
      decision: oneOf(APPROVAL_DECISIONS),
      by: isString,
      message: nullable(isString),
    }),
    tool_started: shape({ callId: isString, name: isString }),
    tool_finished: shape({ callId: isString, name: isString, isError: isBoolean, durationMs: isAmount }),
    hook_ran: shape({
      event: oneOf(HOOK_EVENTS),
      source: oneOf(CONFIG_SOURCES),
      file: isString,
      entry: isString,
      command: isString,
      callId: optional(isString),
      toolName: optional(isString),
      input: isString,
      stdout: isString,
      stderr: isString,
      exitCode: nullable(isInteger),
      timedOut: isBoolean,
      durationMs: isAmount,
      sandboxed: isBoolean,
      outcome: oneOf(HOOK_OUTCOMES),
      reason: nullable(isString),
    }),
  }),
);

const modelCallShape = shape({
  turn: isTurnNumber,
  round: isCount,
  stage: oneOf(USAGE_STAGES),
  usage: nullable(isUsage),
  durationMs: isAmount,
  finishReason: nullable(oneOf(FINISH_REASONS)),
  error: nullable(isErrorInfo),
});

function checkResponseItemRecord(record: Fields): string | null {
  if (!isTurnNumber(record.turn)) return 'turn must be an integer >= 1';
  if (record.repaired !== undefined && record.repaired !== true) return 'repaired must be true when present';
  const item = record.item;
  if (!isObject(item)) return 'item must be an object';
  const check = typeof item.type === 'string' ? itemShapes.get(item.type) : undefined;
  if (check === undefined) return `item.type ${JSON.stringify(item.type)} is not a known response item type`;
  const field = check(item);
  return field === null ? null : `item.${field} is missing or has the wrong type`;
}

function checkAuditRecord(record: Fields): string | null {
  if (!isTurnNumber(record.turn)) return 'turn must be an integer >= 1';
  const event = record.event;
  if (!isObject(event)) return 'event must be an object';
  const check = typeof event.type === 'string' ? auditShapes.get(event.type) : undefined;
  if (check === undefined) return `event.type ${JSON.stringify(event.type)} is not an audited run event`;
  const field = check(event);
  return field === null ? null : `event.${field} is missing or has the wrong type`;
}

function checkModelCallRecord(record: Fields): string | null {
  const field = modelCallShape(record);
  return field === null ? null : `${field} is missing or has the wrong type`;
}

/**
 * The fast check of each frequent record type, given an object of that type whose `ts` is a
 * string: null when it is valid, else what is wrong.
 */
export const FAST_CHECKS: ReadonlyMap<string, (record: Fields) => string | null> = new Map(
  Object.entries({ response_item: checkResponseItemRecord, model_call: checkModelCallRecord, audit: checkAuditRecord }),
);
