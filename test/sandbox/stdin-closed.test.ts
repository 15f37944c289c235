// Debian's bash reads ~/.bashrc when it believes sshd started it: stdin a socket and SHLVL below 2.
// Node's 'pipe' stdin is a socketpair, so a command run with one would source the user's (or a
// hostile home's) rc file before it ran. Commands get /dev/null as stdin, and this keeps it so.

import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCommand } from '../../src/sandbox/index.js';
import { withTempDir } from '../helpers/temp-dir.js';

test("an unsandboxed command's stdin is /dev/null, and no rc file runs", async () => {
  await withTempDir(async (dir) => {
    const home = join(dir, 'home');
    mkdirSync(home);
    writeFileSync(join(home, '.bashrc'), 'echo RC-FILE-RAN\n');
    const result = await runCommand({
      command: 'readlink /proc/self/fd/0',
      root: dir,
      workdir: dir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, SHLVL: '0' },
      sandbox: null,
      timeoutMs: 10_000,
    });
    assert.equal(result.exitCode, 0);
    assert.equal(result.output.text.trim(), '/dev/null');
  });
});
