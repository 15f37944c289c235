// Each tool's presentation (views/tool-presentations.ts) against the tool itself: every built-in
// tool has one and no entry is left for a tool that is gone; a tool that writes files says which
// (the same files its `access` declares to permissions), one that does not says none; and a tool
// without an entry (an MCP tool) still reads as a call.

import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, test } from 'node:test';
import type { AnyTool } from '../../src/agent/index.js';
import { createEditingTools, createReadOnlyTools, createShellTool, createSkillTool, createUpdatePlanTool } from '../../src/tools/index.js';
import { actionPhrase, phraseText, presentationOf, requestedChange, TOOL_PRESENTATIONS, writtenPaths } from '../../src/views/index.js';
import { makeContext } from '../tools/tool-test-context.js';

const TOOLS: AnyTool[] = [
  ...createReadOnlyTools(),
  ...createEditingTools(),
  createShellTool(),
  createSkillTool({ glassboxHome: '/home' }),
  createUpdatePlanTool(),
];

/** Arguments each writing tool accepts, naming two files where it can. */
const WRITES: Record<string, Record<string, unknown>> = {
  write_file: { path: 'src/a.ts', content: 'x\n' },
  edit_file: { path: 'src/a.ts', old_string: 'x', new_string: 'y' },
  apply_patch: { patch: '*** Begin Patch\n*** Update File: a.ts\n*** Move to: b.ts\n@@\n-x\n+y\n*** Add File: c.ts\n+z\n*** End Patch' },
};

describe('tool presentations', () => {
  test('every built-in tool has one, and every entry is a built-in tool', () => {
    assert.deepEqual(Object.keys(TOOL_PRESENTATIONS).sort(), TOOLS.map((tool) => tool.name).sort());
  });

  test('the files a call writes are the files its access declares', () => {
    const root = '/project';
    const context = makeContext(root);
    for (const tool of createEditingTools()) assert.ok(presentationOf(tool.name).writes, `${tool.name} says which files it writes`);
    for (const tool of TOOLS) {
      const presentation = presentationOf(tool.name);
      const args = WRITES[tool.name];
      if (presentation.writes === undefined) {
        assert.ok(tool.readOnly || args === undefined, `${tool.name}: a tool with a sample write says which files it writes`);
        continue;
      }
      assert.ok(args, `a sample call of ${tool.name} in WRITES`);
      const access = tool.access(tool.schema.parse(args), context);
      assert.equal(access.kind, 'write');
      const declared = access.kind === 'write' ? access.paths : [];
      assert.deepEqual(
        writtenPaths(tool.name, args)
          .map((path) => resolve(root, path))
          .sort(),
        [...declared].sort(),
        tool.name,
      );
      assert.ok(requestedChange(tool.name, JSON.stringify(args), root) !== null, `${tool.name} says what it asks for`);
    }
  });

  test('a tool without an entry reads as a call of it and writes nothing the faces track', () => {
    const args = { path: 'a.txt' };
    assert.equal(phraseText(actionPhrase('mcp__fs__write', JSON.stringify(args))), 'Called mcp__fs__write');
    assert.equal(phraseText(actionPhrase('mcp__fs__write', JSON.stringify(args), false)), 'Call mcp__fs__write');
    assert.equal(presentationOf('mcp__fs__write').title, 'mcp__fs__write');
    assert.deepEqual(writtenPaths('mcp__fs__write', args), []);
    assert.equal(requestedChange('mcp__fs__write', JSON.stringify(args)), null);
    // Names that are properties of every object are not entries.
    assert.equal(presentationOf('constructor').title, 'constructor');
  });
});
