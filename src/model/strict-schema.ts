// OpenAI strict mode only accepts schemas where every property is required and objects are
// closed. Optional properties therefore become required-but-nullable on the wire, and the model
// answers `null` for "not given". `stripStrictNulls` undoes that so the tool's own (zod) schema,
// which knows nothing about strict mode, sees `undefined` again and applies its defaults.

import type { JsonSchema, ModelToolDefinition } from './ir.js';
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from './json-depth.js';
import { ModelError } from './model-error.js';

/** Keywords strict mode rejects; dropping them loses only hints, never constraints the model relies on. */
const DROPPED_KEYWORDS = new Set(['default', '$schema']);

/** Keywords whose value is a map of name → subschema. */
const SCHEMA_MAP_KEYWORDS = ['properties', '$defs', 'definitions'] as const;

export class StrictSchemaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StrictSchemaError';
  }
}

/** Thrown by `parseToolArguments`; the message is written for the model to read and fix its call. */
export class ToolArgumentsError extends Error {
  readonly code = 'INVALID_ARGUMENTS';
  constructor(message: string) {
    super(message);
    this.name = 'ToolArgumentsError';
  }
}

function isSchemaObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isObjectSchema(schema: JsonSchema): boolean {
  return schema.type === 'object' || (schema.type === undefined && isSchemaObject(schema.properties));
}

function requiredSet(schema: JsonSchema): Set<string> {
  return new Set(Array.isArray(schema.required) ? schema.required.filter((k): k is string => typeof k === 'string') : []);
}

/** Whether a schema already accepts `null`, so making it nullable again would be redundant. */
function acceptsNull(schema: JsonSchema): boolean {
  if (schema.type === 'null') return true;
  if (Array.isArray(schema.type) && schema.type.includes('null')) {
    return !Array.isArray(schema.enum) || schema.enum.includes(null);
  }
  const branches = schema.anyOf ?? schema.oneOf;
  return Array.isArray(branches) && branches.some((branch) => isSchemaObject(branch) && acceptsNull(branch));
}

function makeNullable(schema: JsonSchema): JsonSchema {
  if (acceptsNull(schema)) return schema;
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...schema.anyOf, { type: 'null' }] };
  // `const` cannot take a second value, and `$ref`/typeless schemas have no type list to extend.
  const typeless = schema.type === undefined;
  if (typeless || 'const' in schema || '$ref' in schema) {
    const { description, ...rest } = schema;
    const wrapped: JsonSchema = { anyOf: [rest, { type: 'null' }] };
    if (description !== undefined) wrapped.description = description;
    return wrapped;
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const nullable: JsonSchema = { ...schema, type: [...types, 'null'] };
  if (Array.isArray(schema.enum)) nullable.enum = [...schema.enum, null];
  return nullable;
}

function adapt(schema: JsonSchema, path: string): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED_KEYWORDS.has(key)) continue;
    if (key === 'allOf' || key === 'not' || key === 'if' || key === 'patternProperties') {
      throw new StrictSchemaError(`Strict mode cannot express "${key}" (at ${path}). Simplify the schema or mark the tool non-strict.`);
    }
    if ((SCHEMA_MAP_KEYWORDS as readonly string[]).includes(key) && isSchemaObject(value)) {
      const mapped: JsonSchema = {};
      for (const [name, sub] of Object.entries(value)) {
        mapped[name] = isSchemaObject(sub) ? adapt(sub, `${path}.${key}.${name}`) : sub;
      }
      out[key] = mapped;
    } else if ((key === 'anyOf' || key === 'oneOf') && Array.isArray(value)) {
      // Strict mode has no `oneOf`; zod emits it for discriminated unions, whose branches are
      // mutually exclusive anyway, so `anyOf` accepts exactly the same values.
      out.anyOf = value.map((branch, i) => (isSchemaObject(branch) ? adapt(branch, `${path}.${key}[${i}]`) : branch));
    } else if (key === 'items' && isSchemaObject(value)) {
      out.items = adapt(value, `${path}[]`);
    } else if ((key === 'items' || key === 'prefixItems') && Array.isArray(value)) {
      out[key] = value.map((item, i) => (isSchemaObject(item) ? adapt(item, `${path}[${i}]`) : item));
    } else if (key === 'additionalProperties' && isSchemaObject(value)) {
      throw new StrictSchemaError(
        `Strict mode cannot express an open map/record (additionalProperties with a schema at ${path}). ` +
          'Use an array of entries or mark the tool non-strict.',
      );
    } else if (key === 'propertyNames') {
    } else {
      out[key] = value;
    }
  }

  if (isObjectSchema(schema)) {
    const properties = isSchemaObject(out.properties) ? out.properties : {};
    const required = requiredSet(schema);
    const strictProperties: JsonSchema = {};
    for (const [name, sub] of Object.entries(properties)) {
      strictProperties[name] = required.has(name) || !isSchemaObject(sub) ? sub : makeNullable(sub);
    }
    out.type = 'object';
    out.properties = strictProperties;
    out.required = Object.keys(strictProperties);
    out.additionalProperties = false;
  }
  return out;
}

/**
 * Adapt a JSON Schema to OpenAI strict mode, recursively: every property required, optional ones
 * nullable, objects closed, unsupported keywords dropped. Throws `StrictSchemaError` for
 * constructs strict mode cannot express at all, naming where they are.
 * The input is not modified.
 */
export function toStrictJsonSchema(schema: JsonSchema): JsonSchema {
  if (!isObjectSchema(schema)) {
    throw new StrictSchemaError(`A tool's parameters must be an object schema; got type ${JSON.stringify(schema.type)}.`);
  }
  return adapt(schema, '$');
}

function resolveRef(root: JsonSchema, ref: string): JsonSchema | null {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return null;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isSchemaObject(node)) return null;
    node = node[part];
  }
  return isSchemaObject(node) ? node : null;
}

function valueMatchesShape(schema: JsonSchema, value: unknown): boolean {
  if (!isSchemaObject(value)) return !isObjectSchema(schema);
  if (!isObjectSchema(schema)) return false;
  const properties = isSchemaObject(schema.properties) ? schema.properties : {};
  return Object.keys(value).every((key) => key in properties);
}

function strip(schema: JsonSchema, value: unknown, root: JsonSchema, depth: number): unknown {
  // A self-referencing schema must not loop forever on a malicious or cyclic definition.
  if (depth > 64) return value;
  if (typeof schema.$ref === 'string') {
    const target = resolveRef(root, schema.$ref);
    return target ? strip(target, value, root, depth + 1) : value;
  }
  const branches = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(branches)) {
    const match = branches.find((branch) => isSchemaObject(branch) && valueMatchesShape(branch, value));
    return isSchemaObject(match) ? strip(match, value, root, depth + 1) : value;
  }
  if (Array.isArray(value)) {
    const items = schema.items;
    if (isSchemaObject(items)) return value.map((item) => strip(items, item, root, depth + 1));
    if (Array.isArray(items) || Array.isArray(schema.prefixItems)) {
      const tuple = (Array.isArray(schema.prefixItems) ? schema.prefixItems : items) as unknown[];
      return value.map((item, i) => (isSchemaObject(tuple[i]) ? strip(tuple[i] as JsonSchema, item, root, depth + 1) : item));
    }
    return value;
  }
  if (isSchemaObject(value) && isSchemaObject(schema.properties)) {
    const properties = schema.properties;
    const required = requiredSet(schema);
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const sub = properties[key];
      if (!isSchemaObject(sub)) {
        setOwn(out, key, item);
        continue;
      }
      // Only an optional property that did not itself accept null got its null from strict mode.
      if (item === null && !required.has(key) && !acceptsNull(sub)) continue;
      setOwn(out, key, strip(sub, item, root, depth + 1));
    }
    return out;
  }
  return value;
}

/**
 * JSON.parse makes `"__proto__"` an ordinary own key; assigning it with `out[key] = …` would call
 * the prototype setter instead, and the model's `{"__proto__": {"escalate": true}}` would turn
 * into inherited argument values that slip past the schema's unknown-key check.
 */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * The inverse of `toStrictJsonSchema` for values: drop `null` where the original schema had an
 * optional, non-nullable property, recursively. `schema` is the original (non-strict) schema.
 */
export function stripStrictNulls(schema: JsonSchema, value: unknown): unknown {
  return strip(schema, value, schema, 0);
}

function describeJsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/**
 * Parse the raw argument string a model produced for a tool call. For strict tools, nulls that
 * strict mode forced in are mapped back to absent keys, so the result validates against the
 * tool's original schema. Throws `ToolArgumentsError` naming the problem.
 */
export function parseToolArguments(raw: string, originalSchema: JsonSchema, strict: boolean): unknown {
  // Models calling a tool without parameters sometimes send an empty string instead of `{}`.
  const text = raw.trim() === '' ? '{}' : raw;
  // Before anything walks the value: a recursion over 100,000 levels would end the run.
  if (jsonNestsDeeperThan(text)) {
    throw new ToolArgumentsError(`Tool arguments nest arrays or objects more than ${MAX_JSON_DEPTH} levels deep; send a flatter value.`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const preview = text.length > 200 ? `${text.slice(0, 200)}…` : text;
    throw new ToolArgumentsError(`Tool arguments are not valid JSON (${reason}). Received: ${preview}`);
  }
  if (!isSchemaObject(parsed)) {
    throw new ToolArgumentsError(`Tool arguments must be a JSON object, got ${describeJsonType(parsed)}.`);
  }
  return strict ? stripStrictNulls(originalSchema, parsed) : parsed;
}

/** Adapted schemas by the definition's `parameters` object; requests only read them. */
const strictSchemas = new WeakMap<JsonSchema, JsonSchema>();

/**
 * The parameters schema a tool definition puts on the wire: strict-mode adapted when the tool
 * asks for it, else sent unchanged. A schema strict mode cannot express is a BAD_REQUEST that
 * names the tool, raised before anything is sent.
 */
export function wireParameters(tool: ModelToolDefinition): JsonSchema {
  if (!tool.strict) return tool.parameters;
  // Every request of a run sends the same tool definitions: adapt each schema object once.
  const cached = strictSchemas.get(tool.parameters);
  if (cached !== undefined) return cached;
  try {
    const strict = toStrictJsonSchema(tool.parameters);
    strictSchemas.set(tool.parameters, strict);
    return strict;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ModelError('BAD_REQUEST', `Tool ${tool.name} cannot be sent in strict mode: ${reason}`, { cause: error });
  }
}
