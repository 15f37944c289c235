// views/'s skill cost (what /status and the workbench's Context view show) counts tokens as
// compaction's fast path does; views/ cannot run compaction/, so the two are pinned here.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cheapTokenEstimate } from '../../src/compaction/index.js';
import { SKILL_TOOL_NAME } from '../../src/tools/index.js';
import { SKILL_LIST_TAG, skillContextCost, skillTokenEstimate } from '../../src/views/index.js';

describe('skill context cost', () => {
  test('estimates as compaction does', () => {
    for (const text of ['', 'a', 'abcd', 'abcde', 'é'.repeat(9), 'x'.repeat(4001)])
      assert.equal(skillTokenEstimate(text), cheapTokenEstimate(text), JSON.stringify(text));
  });

  test('the list in the system message and each successful load', () => {
    const list = `<${SKILL_LIST_TAG}>\nSkills are…\n- review: Review.\n- deploy: Deploy.\n</${SKILL_LIST_TAG}>`;
    const cost = skillContextCost([
      { type: 'message', role: 'system', content: `You are Glassbox.\n\n${list}` },
      { type: 'function_call', callId: 'c1', name: SKILL_TOOL_NAME, arguments: '{"name":"review"}' },
      { type: 'function_call_output', callId: 'c1', output: 'x'.repeat(400), isError: false },
      { type: 'function_call', callId: 'c2', name: SKILL_TOOL_NAME, arguments: '{"name":"nope"}' },
      { type: 'function_call_output', callId: 'c2', output: 'Error [NOT_FOUND]', isError: true },
    ] as Parameters<typeof skillContextCost>[0]);
    assert.deepEqual(cost, { listTokens: cheapTokenEstimate(list), listed: 2, loaded: [{ name: 'review', file: null, tokens: 100 }] });
  });
});
