// `--stop-grace <seconds>` (serve and worker with a database): how long a stopping team worker lets
// its runs go on before it hands them over. What it does is tested with real processes in
// test/team/approval-takeover.test.ts; here, what it accepts.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseStopGrace } from '../../src/cli/run-config.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';
import { makeTempDir } from '../helpers/temp-dir.js';

test('--stop-grace takes seconds from 0 to an hour', () => {
  assert.equal(parseStopGrace(undefined), undefined);
  assert.equal(parseStopGrace('0'), 0);
  assert.equal(parseStopGrace('2.5'), 2500);
  assert.equal(parseStopGrace(' 30 '), 30_000);
  assert.equal(parseStopGrace('3600'), 3_600_000);
  for (const bad of ['', '-1', '1s', 'ten', '3601', 'NaN', '1e3']) {
    assert.throws(
      () => parseStopGrace(bad),
      (error: unknown) => error instanceof UsageError && /--stop-grace expects/.test(error.message),
      bad,
    );
  }
});

test('a bad --stop-grace stops glassbox worker with exit 2 before it connects', async () => {
  const home = await makeTempDir();
  // Port 1 refuses at once: were the value not checked first, the error would be the database's.
  const result = await runCli(
    ['worker', '--database-url', 'postgres://glassbox@127.0.0.1:1/none', '--stop-grace', 'soon'],
    cliEnv({ GLASSBOX_HOME: home }),
  );
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, /--stop-grace expects a number of seconds from 0 to 3600, got "soon"/);
});
