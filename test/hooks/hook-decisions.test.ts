// What a hook's ending means and how it folds into the gate's decision: pure functions, so every
// case is checked here; test/hooks/hooks-flow.test.ts runs them through real scripts.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { GateDecision } from '../../src/agent/index.js';
import { combineHookDecisions, type HookEnding, hookMatches, interpretHook, parseHooksSection } from '../../src/hooks/index.js';
import { claudeCodeToolNames } from '../../src/permissions/index.js';

const ending = (fields: Partial<HookEnding>): HookEnding => ({
  exitCode: 0,
  signal: null,
  timedOut: false,
  timeoutSec: 5,
  stdout: '',
  stderr: '',
  startError: null,
  ...fields,
});

const [hook] = parseHooksSection(
  { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'check' }] }] } },
  'c.json',
  'user',
);
const gate = (decision: GateDecision['decision'], rule: string): GateDecision => ({
  decision,
  rule,
  reason: 'gate',
  execution: { sandboxed: true },
});
const ran = (outcome: 'allow' | 'ask' | 'deny' | 'failed' | 'continue') => ({
  hook: hook!,
  verdict: { outcome, reason: 'why', context: null },
});

describe('hook results', () => {
  test('exit codes, JSON answers and failures', () => {
    assert.equal(interpretHook('PreToolUse', ending({})).outcome, 'continue');
    assert.deepEqual(interpretHook('PreToolUse', ending({ exitCode: 2, stderr: 'no\n' })), {
      outcome: 'deny',
      reason: 'no',
      context: null,
    });
    assert.equal(interpretHook('PostToolUse', ending({ exitCode: 2 })).outcome, 'block');
    assert.equal(interpretHook('PreToolUse', ending({ exitCode: 1 })).outcome, 'failed');
    assert.equal(interpretHook('PreToolUse', ending({ exitCode: null, signal: 'SIGKILL' })).outcome, 'failed');
    assert.equal(interpretHook('PreToolUse', ending({ timedOut: true, exitCode: null })).outcome, 'failed');
    assert.equal(interpretHook('PreToolUse', ending({ startError: 'no sandbox' })).outcome, 'failed');
    assert.equal(interpretHook('PreToolUse', ending({ stdout: '{"hookSpecificOutput": ' })).outcome, 'failed');
    const allow = interpretHook(
      'PreToolUse',
      ending({ stdout: '{"hookSpecificOutput":{"permissionDecision":"allow","permissionDecisionReason":"ok"}}' }),
    );
    assert.deepEqual(allow, { outcome: 'allow', reason: 'ok', context: null });
    assert.equal(
      interpretHook('PreToolUse', ending({ stdout: '{"hookSpecificOutput":{"permissionDecision":"maybe"}}' })).outcome,
      'failed',
    );
    assert.equal(interpretHook('PreToolUse', ending({ stdout: '{"decision":"block","reason":"r"}' })).outcome, 'deny');
    assert.equal(interpretHook('UserPromptSubmit', ending({ stdout: '{"decision":"block","reason":"r"}' })).outcome, 'block');
    assert.equal(interpretHook('UserPromptSubmit', ending({ stdout: 'plain context\n' })).context, 'plain context');
  });

  test('deny rules win, a hook’s deny wins over allow, a hook’s allow answers only the policy’s ask', () => {
    const denied = gate('deny', 'config-deny');
    assert.equal(combineHookDecisions(denied, [ran('allow')]), denied);
    assert.equal(combineHookDecisions(gate('allow', 'config-allow'), [ran('allow'), ran('deny')]).decision, 'deny');
    assert.equal(combineHookDecisions(gate('allow', 'sandboxed'), [ran('failed')]).rule, 'hook-deny');
    assert.equal(combineHookDecisions(gate('allow', 'sandboxed'), [ran('ask')]).decision, 'ask');
    const allowed = combineHookDecisions(gate('ask', 'policy-untrusted'), [ran('allow')]);
    assert.equal(allowed.decision, 'allow');
    assert.deepEqual(allowed.execution, { sandboxed: true }, 'the call still runs as the gate decided');
    for (const rule of ['config-ask', 'escalation', 'secret-file', 'protected-path', 'sandbox-unavailable', 'path-outside-root'])
      assert.equal(combineHookDecisions(gate('ask', rule), [ran('allow')]).decision, 'ask', rule);
    assert.equal(combineHookDecisions(gate('ask', 'policy-untrusted'), [ran('continue')]).decision, 'ask');
  });

  test('matchers are whole-name regular expressions that know Claude Code’s tool names', () => {
    assert.ok(hookMatches(hook!, ['shell', ...claudeCodeToolNames('shell', 'exec')]));
    assert.ok(!hookMatches(hook!, ['write_file', ...claudeCodeToolNames('write_file', 'write')]));
    assert.deepEqual(claudeCodeToolNames('write_file', 'write').sort(), ['Edit', 'MultiEdit', 'Write']);
    assert.ok(claudeCodeToolNames('read_file', 'read').includes('Read'));
    const [partial] = parseHooksSection(
      { hooks: { PreToolUse: [{ matcher: 'Bas', hooks: [{ type: 'command', command: 'x' }] }] } },
      'c',
      'user',
    );
    assert.ok(!hookMatches(partial!, ['Bash']), 'a matcher names the whole tool');
  });

  test('malformed entries name the file and the entry', () => {
    const bad = (hooks: unknown, message: RegExp) => assert.throws(() => parseHooksSection({ hooks }, 'x.json', 'user'), message);
    bad({ PreToolUs: [] }, /x\.json: hooks\.PreToolUs is not a hook event/);
    bad({ PreToolUse: [{ matcher: '(', hooks: [] }] }, /hooks\.PreToolUse\[0\]\.matcher "\(" is not a regular expression/);
    bad({ PreToolUse: [{ hooks: [{ type: 'prompt', command: 'x' }] }] }, /hooks\.PreToolUse\[0\]\.hooks\[0\]\.type is "prompt"/);
    bad({ Stop: [{ hooks: [{ type: 'command', command: ' ' }] }] }, /hooks\.Stop\[0\]\.hooks\[0\]\.command must be a non-empty string/);
  });
});
