// Without a sandbox the environment block's branch is read from the files under `.git`, which the
// repository chose: a `HEAD` that is a FIFO must not hang the session's start (it is left out),
// and an ordinary one still names the branch.

import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { gitSnapshot, type SandboxAvailability } from '../../src/sandbox/index.js';
import { withTempDir } from '../helpers/temp-dir.js';

const NO_SANDBOX = async (): Promise<SandboxAvailability> => ({ available: false, path: null, reason: 'test: none' });

test('without a sandbox a HEAD that is a FIFO is not read; a regular HEAD names the branch', async () => {
  await withTempDir(async (dir) => {
    const planted = join(dir, 'planted');
    const plain = join(dir, 'plain');
    await mkdir(join(planted, '.git'), { recursive: true });
    await mkdir(join(plain, '.git'), { recursive: true });
    await writeFile(join(plain, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    const head = join(planted, '.git', 'HEAD');
    execFileSync('mkfifo', [head]);
    // Were HEAD opened blocking, this writer would answer it and the branch would read "from-fifo".
    const writer = spawn('sh', ['-c', 'printf %s "$1" > "$2"', 'writer', 'ref: refs/heads/from-fifo\n', head], { stdio: 'ignore' });
    try {
      const options = { glassboxHome: join(dir, 'home'), detectSandbox: NO_SANDBOX };
      const [fromFifo, fromFile] = await Promise.all([
        gitSnapshot({ ...options, root: planted }),
        gitSnapshot({ ...options, root: plain }),
      ]);
      assert.equal(fromFifo, 'git: not a git repository');
      assert.equal(fromFile, 'git branch: main\ngit status: not collected (git status runs only inside the sandbox, which is unavailable)');
    } finally {
      writer.kill('SIGKILL');
    }
  });
});

test('onGitStarted is called when the snapshot is known without running git', async () => {
  await withTempDir(async (dir) => {
    let calls = 0;
    const outside = await gitSnapshot({
      root: dir,
      glassboxHome: join(dir, 'home'),
      detectSandbox: NO_SANDBOX,
      onGitStarted: () => calls++,
    });
    assert.equal(outside, 'git: not a git repository');
    assert.equal(calls, 1);
  });
});
