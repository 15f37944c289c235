import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exitCodeFor } from '../../src/cli/exec-command.js';

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
