// An MCP server's tool as a Glassbox tool, `mcp__<server>__<tool>`: the server's JSON Schema is
// sent as is (strict when strict mode can express it without changing what it accepts), the
// description is clipped, and `access` declares an `mcp` access so permissions decide on trust
// and the read-only annotation, never on the name. No SDK import: the connection is injected.

import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { AnyTool, ToolAccess } from '../agent/index.js';
import { jsonNestsDeeperThan, MAX_JSON_DEPTH, toStrictJsonSchema, type JsonSchema } from '../model/index.js';
import { formatMcpResult } from './mcp-result.js';

/** What the adapter needs of a server: its name and a way to call a tool. */
export interface McpCaller {
  readonly name: string;
  call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
}

/** The subset of an MCP `Tool` read here (kept structural so this file needs no SDK types). */
export interface McpToolDescription {
  name: string;
  description?: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
  annotations?: { readOnlyHint?: boolean; title?: string; [key: string]: unknown };
  title?: string;
}

export const MCP_TOOL_PREFIX = 'mcp__';
/** Providers accept function names of 1–64 characters from [A-Za-z0-9_-]. */
const MAX_NAME = 64;
const MAX_DESCRIPTION = 300;

/** `mcp__<server>__<tool>`, made to fit providers' name rules (a hash keeps long names apart). */
export function mcpToolName(server: string, tool: string): string {
  const safe = tool.replace(/[^A-Za-z0-9_-]/g, '_');
  const full = `${MCP_TOOL_PREFIX}${server}__${safe}`;
  if (full.length <= MAX_NAME && safe === tool) return full;
  const hash = createHash('sha256').update(tool).digest('hex').slice(0, 6);
  return `${full.slice(0, MAX_NAME - 7)}_${hash}`;
}

/** The first paragraph, cut at a word: tool lists are sent with every request. */
export function shortDescription(server: string, tool: McpToolDescription): string {
  const raw = (tool.description ?? tool.annotations?.title ?? tool.title ?? '').trim();
  const paragraph =
    raw
      .split(/\n\s*\n/)[0]
      ?.replace(/\s+/g, ' ')
      .trim() ?? '';
  let text = paragraph;
  if (text.length > MAX_DESCRIPTION) {
    const cut = text.slice(0, MAX_DESCRIPTION);
    text = `${cut.slice(0, Math.max(cut.lastIndexOf(' '), MAX_DESCRIPTION - 40))}...`;
  }
  return `${text === '' ? `Tool ${tool.name}` : text} (MCP server ${server})`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Strict mode closes every object and requires every property; a schema with free-form objects
 * (no `properties`, or `additionalProperties` allowed) would then refuse what the server accepts.
 */
function hasOpenObject(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasOpenObject);
  if (!isObject(node)) return false;
  const isObjectType = node.type === 'object' || (Array.isArray(node.type) && node.type.includes('object'));
  if (isObjectType && (!isObject(node.properties) || Object.keys(node.properties).length === 0)) return true;
  if (node.additionalProperties === true || isObject(node.additionalProperties)) return true;
  return Object.values(node).some(hasOpenObject);
}

/**
 * The most JSON characters one MCP tool's input schema may take. Every request carries every
 * offered tool's schema, so one server's 6 MB schema would be sent (and paid for) each round;
 * real tools' schemas are a few KiB.
 */
export const MAX_MCP_SCHEMA_CHARS = 32 * 1024;

/**
 * Why a tool's input schema cannot be offered, or null when it can: larger than `maxChars` as
 * JSON, nested deeper than the schema adapters (which recurse) can walk, or not serialisable.
 * Returns the size too, for the run's total.
 */
export function mcpSchemaProblem(inputSchema: unknown, maxChars = MAX_MCP_SCHEMA_CHARS): { chars: number; problem: string | null } {
  let text: string;
  try {
    text = JSON.stringify(inputSchema ?? {});
  } catch (error) {
    return { chars: 0, problem: `its input schema cannot be read (${(error as Error).message})` };
  }
  if (text.length > maxChars) {
    return {
      chars: text.length,
      problem: `its input schema is ${text.length.toLocaleString('en-US')} characters (at most ${maxChars.toLocaleString('en-US')})`,
    };
  }
  if (jsonNestsDeeperThan(text)) return { chars: text.length, problem: `its input schema nests more than ${MAX_JSON_DEPTH} levels deep` };
  return { chars: text.length, problem: null };
}

/** The schema to send, and whether strict mode can take it unchanged in meaning. */
export function mcpParameters(inputSchema: unknown): { parameters: JsonSchema; strict: boolean } {
  const schema: JsonSchema = isObject(inputSchema) ? { ...inputSchema } : {};
  delete schema.$schema;
  if (schema.type !== 'object') schema.type = 'object';
  if (!isObject(schema.properties)) schema.properties = {};
  // A tool without arguments is strict-safe as an empty closed object.
  const noArguments = Object.keys(schema.properties as object).length === 0 && schema.additionalProperties !== true;
  if (!noArguments && hasOpenObject({ ...schema, type: 'object' })) return { parameters: schema, strict: false };
  try {
    toStrictJsonSchema(schema);
    return { parameters: schema, strict: true };
  } catch {
    return { parameters: schema, strict: false };
  }
}

export interface McpToolOptions {
  server: McpCaller;
  tool: McpToolDescription;
  /** The user's config trusts this server or tool. */
  trusted: boolean;
}

const argumentsSchema = z.record(z.string(), z.unknown());

export function createMcpTool(options: McpToolOptions): AnyTool {
  const { server, tool, trusted } = options;
  const { parameters, strict } = mcpParameters(tool.inputSchema);
  const readOnly = tool.annotations?.readOnlyHint === true;
  const access: ToolAccess = { kind: 'mcp', server: server.name, tool: tool.name, readOnly, trusted };
  const adapted: AnyTool & { fixedAccess: ToolAccess } = {
    name: mcpToolName(server.name, tool.name),
    description: shortDescription(server.name, tool),
    // The server checks its own arguments against its schema; here only the outer shape.
    schema: argumentsSchema,
    parameters,
    readOnly,
    strict,
    access: () => access,
    // Lets the permission layer hide a tool that every call would be denied (`isToolVisible`).
    fixedAccess: access,
    async execute(args: Record<string, unknown>, context) {
      const result = await server.call(tool.name, args, context.signal);
      return formatMcpResult(result);
    },
  };
  return adapted;
}
