// Glassbox's own helpers (bwrap, git, rg, bash) never come from a PATH directory inside the project
// (an activated virtualenv's bin, node_modules/.bin), which a sandboxed command can write. Each
// planted stand-in is a real executable script that leaves a marker outside the project (or, where
// it can only run inside the read-only sandbox, forges its answer), so a marker or a forged answer
// means it ran.

import assert from 'node:assert/strict';
import { chmod, copyFile, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  checkConfiguredProgram,
  createSandboxDetector,
  detectSandbox,
  findTrustedProgram,
  gitSnapshot,
  isSystemOwned,
  runCommand,
} from '../../src/sandbox/index.js';
import { findRipgrep } from '../../src/tools/grep/index.js';
import { isInside } from '../../src/workspace/index.js';
import { withTempDir } from '../helpers/temp-dir.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

interface Planted {
  root: string;
  markers: string;
  /** PATH with the project's own bin directories first, as an activated virtualenv leaves it. */
  path: string;
}

/** A project whose `.venv/bin` and `node_modules/.bin` hold a stand-in for each helper. */
async function plantedProject(dir: string): Promise<Planted> {
  const root = join(dir, 'project');
  const markers = join(dir, 'markers');
  await mkdir(markers);
  const bins = [join(root, '.venv/bin'), join(root, 'node_modules/.bin')];
  for (const bin of bins) {
    await mkdir(bin, { recursive: true });
    for (const name of ['bwrap', 'git', 'rg', 'bash', 'xdg-open']) {
      const script = join(bin, name);
      // Outside the sandbox it leaves a marker; inside it (read-only) it can only answer falsely.
      await writeFile(script, `#!/bin/sh\ntouch '${markers}/${name}' 2>/dev/null\necho '## forged-by-planted-${name}'\nexit 0\n`);
      await chmod(script, 0o755);
    }
  }
  await writeFile(join(root, 'README.md'), '# project\n');
  return { root, markers, path: `${bins.join(':')}:${process.env.PATH ?? '/usr/bin:/bin'}` };
}

describe('helpers come from system directories or a configured path, never from the project', { concurrency: true }, () => {
  test('a bwrap planted in a PATH directory inside the project is never run, not even probed', async () => {
    assert.equal((await detectSandbox()).available, true, 'bubblewrap must work here (CI installs it)');
    await withTempDir(async (dir) => {
      const { root, markers, path } = await plantedProject(dir);
      const answer = await createSandboxDetector({ searchPath: path, env: {} })();
      assert.equal(answer.available, true, answer.reason);
      assert.ok(answer.path !== null && !isInside(root, answer.path), answer.path ?? '');
      assert.ok(await isSystemOwned(answer.path));
      // A command through it runs in the real sandbox. (The command's own PATH is the system's
      // here: inside the sandbox, bwrap looks `bash` up on the command's PATH.)
      const result = await runCommand({
        command: 'echo "$GLASSBOX_SANDBOX" > inside.txt && cat inside.txt',
        root,
        workdir: root,
        env: { PATH: process.env.PATH, HOME: root },
        sandbox: {
          bwrapPath: answer.path,
          mode: 'workspace-write',
          network: false,
          secretsApproved: false,
          homeDir: root,
          glassboxHome: join(dir, 'home'),
        },
        timeoutMs: 30_000,
      });
      assert.equal(result.output.text.trim(), '1');
      assert.deepEqual(await readdir(markers), []);
    });
  });

  test("a command that runs outside the sandbox is started by the system's bash, not the project's", async () => {
    await withTempDir(async (dir) => {
      const { root, markers, path } = await plantedProject(dir);
      const result = await runCommand({
        command: 'echo "real bash $BASH_VERSION"',
        root,
        workdir: root,
        env: { PATH: path, HOME: root },
        sandbox: null,
        timeoutMs: 30_000,
      });
      assert.match(result.output.text, /^real bash \d/);
      assert.deepEqual(await readdir(markers), []);
    });
  });

  test("the environment block's git status is real git's, not a planted git's forged answer", async () => {
    await withTempDir(async (dir) => {
      const { root, markers, path } = await plantedProject(dir);
      await mkdir(join(root, '.git'));
      await writeFile(join(root, '.git/HEAD'), 'ref: refs/heads/main\n');
      await mkdir(join(root, '.git/objects'));
      await mkdir(join(root, '.git/refs'));
      const snapshot = await gitSnapshot({ root, glassboxHome: join(dir, 'home'), detectSandbox, env: { PATH: path }, homeDir: root });
      assert.doesNotMatch(snapshot, /forged/);
      assert.match(snapshot, /^git branch: No commits yet on main/);
      assert.deepEqual(await readdir(markers), []);
    });
  });

  test('ripgrep: the copy installed with Glassbox is used only outside the project, and never one from PATH', async () => {
    await withTempDir(async (dir) => {
      const { root, markers, path } = await plantedProject(dir);
      const bundled = await findRipgrep();
      assert.ok(bundled.path !== null, bundled.reason);
      const planted = await findTrustedProgram('rg', { env: {}, root, searchPath: path, bundled: [join(root, '.venv/bin/rg')] });
      assert.ok(planted.path === null || !isInside(root, planted.path), planted.path ?? '');
      if (planted.path === null) assert.match(planted.reason, /\.venv\/bin\/rg \(inside the project, which sandboxed commands can write\)/);
      // Glassbox working on its own checkout: its node_modules is inside the project.
      const own = await findRipgrep(REPO);
      assert.ok(own.path === null || !isInside(REPO, own.path), `${own.path}: ${own.reason}`);
      if (own.path === null) assert.match(own.reason, /inside the project/);
      assert.deepEqual(await readdir(markers), []);
    });
  });

  test('a configured path is used as given: absolute, an executable file, outside the project', async () => {
    await withTempDir(async (dir) => {
      const { root } = await plantedProject(dir);
      const outside = join(dir, 'tools');
      await mkdir(outside);
      await copyFile('/bin/sh', join(outside, 'git'));
      await chmod(join(outside, 'git'), 0o755);
      const configured = (value: string) => findTrustedProgram('git', { env: { GLASSBOX_GIT: value }, root });
      assert.equal((await configured(join(outside, 'git'))).path, join(outside, 'git'));
      assert.match((await configured('tools/git')).reason, /GLASSBOX_GIT must be an absolute path, got "tools\/git"/);
      assert.match((await configured(join(outside, 'nope'))).reason, /GLASSBOX_GIT: .*nope does not exist/);
      assert.match((await configured(join(root, '.venv/bin/git'))).reason, /inside the project, which sandboxed commands can write/);
      // A configured path that is wrong is an error, not a silent switch to another git.
      assert.equal((await configured('tools/git')).path, null);
      assert.equal((await checkConfiguredProgram(join(root, 'README.md'), 'x')).path, null);
    });
  });

  test('a system directory counts only when root owns it and nobody else may write it', async () => {
    await withTempDir(async (dir) => {
      const bin = join(dir, 'bin');
      await mkdir(bin);
      await copyFile('/bin/sh', join(bin, 'git'));
      await chmod(join(bin, 'git'), 0o755);
      await chmod(bin, 0o777);
      const lookup = await findTrustedProgram('git', { env: {}, systemDirectories: [bin], searchPath: '' });
      assert.equal(lookup.path, null);
      assert.match(lookup.reason, /not owned by root, or writable by others/);
      assert.equal(await isSystemOwned('/usr/bin/git'), true);
      // Root-owned and closed to others: counts when root owns the temporary directory, i.e. when the test runs as root.
      await chmod(bin, 0o755);
      const closed = await findTrustedProgram('git', { env: {}, systemDirectories: [bin], searchPath: '' });
      assert.equal(closed.path === join(bin, 'git'), process.getuid?.() === 0, closed.reason);
    });
  });
});
