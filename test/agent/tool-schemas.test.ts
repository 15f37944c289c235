// The built-in tools' JSON Schemas the build emits (dist/bundle/tool-schemas.json, which the bundle
// sends instead of converting at start-up) are what z.toJSONSchema makes of the sources' schemas:
// the two cannot drift apart, and the model sees the same tools either way.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, test } from 'node:test';
import { z } from 'zod';
import * as agent from '../../src/agent/index.js';
import { builtInSchema, builtInSchemas, toolDefinition, toolJsonSchema, type AnyTool } from '../../src/agent/index.js';
import { createEditingTools, createReadOnlyTools, createShellTool, createSkillTool, createUpdatePlanTool } from '../../src/tools/index.js';
import { buildReady } from '../helpers/build-ready.js';

interface BundleCli {
  toolSchemasOf(agentModule: typeof agent): Record<string, Record<string, unknown>>;
}

let toolSchemasOf: BundleCli['toolSchemasOf'];
before(async () => {
  ({ toolSchemasOf } = (await import(new URL('../../scripts/bundle-cli.js', import.meta.url).href)) as BundleCli);
});

describe('built-in tool schemas emitted at build time', () => {
  test('dist/bundle/tool-schemas.json equals z.toJSONSchema of the sources’ schemas', async () => {
    await buildReady();
    const emitted = JSON.parse(readFileSync(new URL('../../dist/bundle/tool-schemas.json', import.meta.url), 'utf8')) as unknown;
    assert.deepEqual(emitted, toolSchemasOf(agent));
  });

  test('every built-in tool’s schema is registered, under its name, and its definition is the conversion', () => {
    const tools: AnyTool[] = [
      ...createReadOnlyTools(),
      ...createEditingTools(),
      createShellTool(),
      createSkillTool({ glassboxHome: process.cwd() }),
      createUpdatePlanTool(),
    ];
    const registered = builtInSchemas();
    for (const tool of tools) {
      assert.equal(registered.get(tool.name), tool.schema, tool.name);
      assert.deepEqual(toolDefinition(tool).parameters, toolJsonSchema(tool.schema), tool.name);
    }
    assert.deepEqual([...registered.keys()].sort(), tools.map((tool) => tool.name).sort());
  });

  test('a key names one schema', () => {
    const key = `test-only-${process.pid}`;
    const schema = z.object({ a: z.string() });
    assert.equal(builtInSchema(key, schema), schema);
    assert.equal(builtInSchema(key, schema), schema);
    assert.throws(() => builtInSchema(key, z.object({ b: z.string() })), /registered twice/);
  });
});
