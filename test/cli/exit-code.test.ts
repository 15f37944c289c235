import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exitCodeFor } from '../../src/cli/exec-command.js';
import { reportError } from '../../src/cli/main.js';

const failed = (code: string) => ({
  type: 'run_failed' as const,
  error: { code, message: 'x' },
  usage: { total: null, byStage: {}, calls: 0 },
  rounds: 1,
});

test('provider errors a user fixes in their configuration exit 2; others exit 1', () => {
  for (const code of ['AUTH_FAILED', 'NOT_FOUND', 'QUOTA_EXCEEDED', 'PROVIDER_MISCONFIGURED'])
    assert.equal(exitCodeFor(failed(code) as never), 2, code);
  for (const code of ['RATE_LIMITED', 'SERVER_ERROR', 'CONTEXT_OVERFLOW', 'BAD_REQUEST'])
    assert.equal(exitCodeFor(failed(code) as never), 1, code);
});

test("a command's error message is printed with its control sequences shown, not obeyed", () => {
  let printed = '';
  const code = reportError(new Error('provider said: \x1b]52;c;ZXZpbA==\x07\x1b]0;title\x07\x9b2J done'), (text) => (printed += text));
  assert.equal(code, 1);
  assert.equal(printed, 'glassbox: provider said: \\e]52;c;ZXZpbA==\\u0007\\e]0;title\\u0007\\u009b2J done\n');
});
