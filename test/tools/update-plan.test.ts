// update_plan: the plan is the call's arguments; the tool checks what zod cannot (one step in
// progress, no blank step) and answers with what the model now holds. Bad plans reach the model
// through the tool error channel (`Error [CODE]: …`) as the runtime sends them.

import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ALLOW_ALL_GATE, ToolRuntime, toolDefinition, type ApprovalBroker } from '../../src/agent/index.js';
import { createToolSessionState, createUpdatePlanTool } from '../../src/tools/index.js';
import { callTool, makeContext, rejectsWithCode } from './tool-test-context.js';

const noApprovals: ApprovalBroker = { request: () => Promise.reject(new Error('update_plan asks for no approval')) };

describe('update_plan', () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'gb-plan-'));
  });
  after(() => rm(root, { recursive: true, force: true }));
  const tool = createUpdatePlanTool();

  it('accepts a plan and says how far it got, touching nothing', async () => {
    const output = await callTool(
      tool,
      {
        explanation: 'Found the parser first',
        plan: [
          { step: 'Read the parser', status: 'completed' },
          { step: 'Fix the bug', status: 'in_progress' },
          { step: 'Run the tests', status: 'pending' },
        ],
      },
      makeContext(root),
    );
    assert.equal(output, 'Plan updated: 1 of 3 steps completed. In progress: Fix the bug.');
    assert.deepEqual(await readdir(root), []);
    assert.deepEqual(tool.access(tool.schema.parse({ plan: [{ step: 'a', status: 'pending' }] }), { root }), { kind: 'none' });
    assert.ok(tool.readOnly);
  });

  it('refuses two steps in progress and a blank step', async () => {
    const two = tool.schema.parse({
      plan: [
        { step: 'a', status: 'in_progress' },
        { step: 'b', status: 'in_progress' },
      ],
    });
    await rejectsWithCode(tool.execute(two, makeContext(root)), 'INVALID_PLAN', /At most one step can be in_progress; 2 are: "a", "b"/);
    const blank = tool.schema.parse({ plan: [{ step: '  ', status: 'pending' }] });
    await rejectsWithCode(tool.execute(blank, makeContext(root)), 'INVALID_PLAN', /Step 1 has no text/);
  });

  it('sends bad plans back to the model as tool errors, not as a failed run', async () => {
    const runtime = new ToolRuntime({ tools: [tool], root, state: createToolSessionState(), gate: ALLOW_ALL_GATE, approvals: noApprovals });
    const events: unknown[] = [];
    const outcomes = await runtime.executeBatch(
      [
        { id: 'c1', name: 'update_plan', arguments: JSON.stringify({ plan: [{ step: 'a', status: 'done' }] }) },
        { id: 'c2', name: 'update_plan', arguments: JSON.stringify({ plan: [] }) },
        {
          id: 'c3',
          name: 'update_plan',
          arguments: JSON.stringify({
            plan: [
              { step: 'a', status: 'in_progress' },
              { step: 'b', status: 'in_progress' },
            ],
          }),
        },
        { id: 'c4', name: 'update_plan', arguments: JSON.stringify({ plan: [{ step: 'a', status: 'pending' }] }) },
      ],
      { runId: 'r', round: 1, signal: new AbortController().signal, emit: (event) => events.push(event) },
    );
    assert.match(outcomes[0]!.output, /^Error \[INVALID_ARGUMENTS\]: Invalid arguments for update_plan: plan\.0\.status/);
    assert.match(outcomes[1]!.output, /^Error \[INVALID_ARGUMENTS\]: .*plan/);
    assert.match(outcomes[2]!.output, /^Error \[INVALID_PLAN\]: At most one step/);
    assert.deepEqual(
      outcomes.map((outcome) => outcome.isError),
      [true, true, true, false],
    );
  });

  it('honours an aborted signal', async () => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(
      tool.execute(tool.schema.parse({ plan: [{ step: 'a', status: 'pending' }] }), makeContext(root, controller.signal)),
    );
  });

  it('has a short description and a small definition', () => {
    assert.ok(tool.description.length < 400, `${tool.description.length}`);
    assert.ok(JSON.stringify(toolDefinition(tool)).length < 1200, `${JSON.stringify(toolDefinition(tool)).length}`);
  });
});
