import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { withTempDir } from '../helpers/temp-dir.js';
import { createSandboxDetector, detectSandbox } from '../../src/sandbox/index.js';

test('a missing bwrap is reported as unavailable', async () => {
  await withTempDir(async (dir) => {
    const detect = createSandboxDetector({ bwrapPath: join(dir, 'bwrap') });
    const answer = await detect();
    assert.equal(answer.available, false);
    assert.equal(answer.path, null);
    assert.match(answer.reason, /bwrap \(bubblewrap\) was not found: the configured bwrap: .*bwrap does not exist/);
  });
});

test('a bwrap that cannot create namespaces is unavailable, with its error, and probed once', async () => {
  await withTempDir(async (dir) => {
    const fake = join(dir, 'bwrap');
    const counter = join(dir, 'runs');
    await writeFile(fake, `#!/bin/sh\necho run >> ${counter}\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n`);
    await chmod(fake, 0o755);
    const detect = createSandboxDetector({ bwrapPath: fake });
    const [first, second] = await Promise.all([detect(), detect()]);
    assert.equal(first.available, false);
    assert.equal(first.path, fake);
    assert.match(first.reason, /No permissions to create new namespace/);
    assert.equal(second, first);
    assert.equal(await readFile(counter, 'utf8'), 'run\n');
  });
});

test('the process-wide detector gives a consistent, memoized answer', async () => {
  const first = await detectSandbox();
  assert.equal(await detectSandbox(), first);
  assert.equal(typeof first.reason, 'string');
  if (first.available) assert.ok(first.path?.endsWith('bwrap'));
});
