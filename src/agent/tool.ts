// The tool contract. A tool is a plain object made by a factory: a zod schema for its arguments,
// a model-facing description (kept in a sibling `.md` file), an `execute` function, and a
// declaration of what a call touches so permissions can be decided before it runs.

import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { JsonSchema, ModelToolDefinition } from '../model/index.js';

/**
 * What one call will touch, declared before it runs. Permissions and the sandbox decide on this,
 * never on the tool's name alone.
 */
export type ToolAccess =
  | { kind: 'read'; paths: string[] }
  | { kind: 'write'; paths: string[] }
  | { kind: 'exec'; command: string; workdir: string; escalate: boolean; justification: string | null }
  /**
   * A tool of an MCP server: what it touches is unknown to us, so the decision rests on trust the
   * user's own config gave (`trusted`) and the server's read-only annotation (`readOnly`).
   */
  | { kind: 'mcp'; server: string; tool: string; readOnly: boolean; trusted: boolean }
  | { kind: 'none' };

export interface ToolContext {
  /** Real path of the project root; every path a tool touches must resolve inside it. */
  root: string;
  /**
   * How this call may act, as the permission gate decided it (and a person's approval amended
   * it, see `PermissionGate.approvedExecution`). Opaque to the agent core: a coding host puts its
   * sandbox policy here; with `ALLOW_ALL_GATE` it is undefined.
   */
  execution: unknown;
  callId: string;
  /** Aborted when the run is cancelled; long-running tools must stop promptly. */
  signal: AbortSignal;
  /** The host's per-session state for its tools (`ToolRuntimeOptions.state`), opaque here. */
  state: unknown;
}

export interface ToolResult {
  output: string;
  /** A result the model should read as a failure, without ending the run. */
  isError?: boolean;
}

/**
 * Contract:
 * - `execute` receives arguments already validated by `schema`.
 * - To tell the model something went wrong (bad path, no match…), throw `ToolError`: the run
 *   continues and the model sees `Error [CODE]: message` as the output.
 * - To end the run (the harness itself is broken), throw `FatalToolError`.
 * - Any other thrown error is treated as `ToolError` with code `TOOL_FAILED`; tools must not rely
 *   on that for expected failures.
 * - `execute` must honour `context.signal`.
 */
export interface Tool<Args = unknown> {
  name: string;
  description: string;
  schema: z.ZodType<Args>;
  /** Read-only tools in one batch run in parallel; all others run in order. */
  readOnly: boolean;
  /** Send the schema in OpenAI strict mode. */
  strict: boolean;
  /**
   * The JSON Schema sent to the model, for tools that bring their own (MCP servers); `schema` then
   * only checks the arguments' outer shape. Default: derived from `schema`.
   */
  parameters?: JsonSchema;
  access(args: Args, context: Pick<ToolContext, 'root'>): ToolAccess;
  execute(args: Args, context: ToolContext): Promise<ToolResult>;
  /**
   * Work the first call would otherwise do before it can start (loading code, probing the
   * system), done while the first model request is in flight. `execution` is what the session's
   * policy gives a call that asks for nothing more. It must change nothing a call could observe,
   * and it is not awaited by anyone: it must not reject.
   */
  prepare?(context: Pick<ToolContext, 'root' | 'execution'>): Promise<void>;
}

/** An error the model should see and can recover from. */
export class ToolError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'ToolError';
    this.code = code;
  }
}

/** An error that ends the run: the harness cannot continue safely. */
export class FatalToolError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'FatalToolError';
    this.code = code;
  }
}

export function formatToolError(code: string, message: string): string {
  return `Error [${code}]: ${message}`;
}

/** Read a tool's model-facing description from a sibling file (`new URL('./x.md', import.meta.url)`). */
export function loadToolDescription(url: URL): string {
  return readFileSync(url, 'utf8').trim();
}

// `Tool<Args>` is invariant in Args; registries hold tools of different argument types.
// biome-ignore lint/suspicious/noExplicitAny: a registry of tools with different argument types
export type AnyTool = Tool<any>;

const definitionCache = new WeakMap<AnyTool, ModelToolDefinition>();

/** The model-facing definition; computed once per tool object (schema conversion is not free). */
export function toolDefinition(tool: AnyTool): ModelToolDefinition {
  const cached = definitionCache.get(tool);
  if (cached) return cached;
  const definition = buildToolDefinition(tool);
  definitionCache.set(tool, definition);
  return definition;
}

function buildToolDefinition(tool: AnyTool): ModelToolDefinition {
  if (tool.parameters) return { name: tool.name, description: tool.description, parameters: tool.parameters, strict: tool.strict };
  const key = builtInSchemaKeys.get(tool.schema);
  const emitted = key === undefined ? undefined : emittedSchemas()[key];
  const parameters = emitted === undefined ? toolJsonSchema(tool.schema) : (structuredClone(emitted) as Record<string, unknown>);
  return { name: tool.name, description: tool.description, parameters, strict: tool.strict };
}

/** The JSON Schema of a tool's arguments, as sent to the model. */
export function toolJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const converted = z.toJSONSchema(schema, { io: 'input', target: 'draft-7' }) as Record<string, unknown>;
  delete converted.$schema;
  dropSafeIntegerBounds(converted);
  return converted;
}

// Built-in tools' schemas are module constants, so their JSON Schemas are known at build time:
// scripts/bundle-cli.js writes them to dist/bundle/tool-schemas.json (`toolJsonSchema` of each,
// keyed as registered here), and the bundle reads that file instead of converting at start-up
// (z.toJSONSchema was ~60 ms of `exec`'s start, docs/benchmarks.md). From the sources there is no
// such file, and a schema not registered (MCP, a library user's tool) is converted as before.
const builtInSchemaKeys = new Map<z.ZodType, string>();

/** Registers a built-in tool's module-level schema under `key` (unique), for the build to emit. */
export function builtInSchema<T extends z.ZodType>(key: string, schema: T): T {
  for (const [known, knownKey] of builtInSchemaKeys) {
    if (knownKey === key && known !== schema) throw new Error(`built-in tool schema ${key} registered twice`);
  }
  builtInSchemaKeys.set(schema, key);
  return schema;
}

/** The registered built-in schemas by key (the build emits these; a test checks the emitted file). */
export function builtInSchemas(): Map<string, z.ZodType> {
  return new Map([...builtInSchemaKeys].map(([schema, key]) => [key, schema]));
}

let emitted: Record<string, Record<string, unknown>> | undefined;
function emittedSchemas(): Record<string, Record<string, unknown>> {
  if (emitted !== undefined) return emitted;
  try {
    // Rewritten by the bundle to ./tool-schemas.json next to its chunks; from src/ it names nothing.
    emitted = JSON.parse(readFileSync(new URL('../bundle/tool-schemas.json', import.meta.url), 'utf8')) as Record<
      string,
      Record<string, unknown>
    >;
  } catch {
    emitted = {};
  }
  return emitted;
}

/** zod writes ±Number.MAX_SAFE_INTEGER bounds on every `.int()`; they tell the model nothing and cost bytes on every request. */
function dropSafeIntegerBounds(node: unknown): void {
  if (Array.isArray(node)) {
    for (const child of node) dropSafeIntegerBounds(child);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const record = node as Record<string, unknown>;
  if (record.maximum === Number.MAX_SAFE_INTEGER) delete record.maximum;
  if (record.minimum === Number.MIN_SAFE_INTEGER) delete record.minimum;
  for (const value of Object.values(record)) dropSafeIntegerBounds(value);
}
