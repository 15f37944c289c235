// A run's project (issue 29): a directory inside the server's project roots, or a repository from
// its allowlist checked out at a ref in a worktree of the run's own, where no program the
// repository's config or attributes name (hooks, filter drivers) runs on the host.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, chmod, mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { mirrorPath, prepareRunProject, RunProjectError } from '../../src/server/run-project.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { eventsOf, readFrames, startHarness } from './server-harness.js';

const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
};

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' });
}

/** A repository with `hello.txt` at tag v1 and a `.gitattributes` that gives it the filter `x`. */
async function sourceRepository(): Promise<{ base: string; source: string }> {
  const base = await makeTempDir();
  const source = join(base, 'source');
  await mkdir(source);
  git(source, 'init', '-q', '-b', 'main');
  await writeFile(join(source, 'hello.txt'), 'hello from v1\n');
  await writeFile(join(source, '.gitattributes'), '*.txt filter=x\n');
  git(source, 'add', 'hello.txt', '.gitattributes');
  git(source, 'commit', '-q', '-m', 'v1');
  git(source, 'tag', 'v1');
  await writeFile(join(source, 'hello.txt'), 'hello from v2\n');
  git(source, 'commit', '-q', '-am', 'v2');
  return { base, source };
}

const readHello = [{ text: 'Reading.', toolCalls: [{ name: 'read_file', arguments: { path: 'hello.txt' } }] }, { text: 'Done.' }];

describe('run projects', () => {
  test('a repository run reads the ref’s files; hooks and filter drivers in the mirror never run; the worktree is removed', async () => {
    const { base, source } = await sourceRepository();
    const marker = join(base, 'MARKER');
    const h = await startHarness({ script: readHello, settings: { repositories: [source] } });
    try {
      // The mirror exists already and names programs: a filter driver for `x` and a post-checkout hook.
      const mirror = mirrorPath(`${h.home}-work`, source);
      await mkdir(join(`${h.home}-work`, 'mirrors'), { recursive: true });
      git(base, 'clone', '-q', '--bare', source, mirror);
      await appendFile(
        join(mirror, 'config'),
        `[filter "x"]\n\tsmudge = "touch ${marker}; cat"\n\tclean = "touch ${marker}; cat"\n\trequired = true\n[core]\n\tfsmonitor = "touch ${marker}; true"\n`,
      );
      await mkdir(join(mirror, 'hooks'), { recursive: true });
      for (const hook of ['post-checkout', 'reference-transaction', 'post-index-change']) {
        await writeFile(join(mirror, 'hooks', hook), `#!/bin/sh\ntouch ${marker}\n`);
        await chmod(join(mirror, 'hooks', hook), 0o755);
      }

      const response = await h.post('/api/runs', { prompt: 'Read it.', project: { repository: source, ref: 'v1' } });
      assert.equal(response.status, 200, response.status === 200 ? '' : await response.clone().text());
      const events = eventsOf(await readFrames(response));
      assert.equal(events.at(-1)!.type, 'run_succeeded', JSON.stringify(events.at(-1)));
      const finished = events.find((e) => e.type === 'tool_finished')!;
      assert.equal(finished.event.isError, false);
      assert.match(String(finished.event.output), /hello from v1/);
      assert.equal(existsSync(marker), false, 'a program the repository named ran on the host');
      const runId = response.headers.get('x-run-id')!;
      assert.equal(existsSync(join(`${h.home}-work`, 'worktrees', runId)), false, 'the worktree outlived the run');
      assert.deepEqual(await readdir(join(mirror, 'worktrees')).catch(() => []), []);
    } finally {
      await h.close();
      await rm(base, { recursive: true, force: true });
    }
  });

  test('an unknown ref fails the run with a message naming it', async () => {
    const { base, source } = await sourceRepository();
    const h = await startHarness({ script: readHello, settings: { repositories: [source] } });
    try {
      const response = await h.post('/api/runs', { prompt: 'Read it.', project: { repository: source, ref: 'no-such-ref' } });
      assert.equal(response.status, 200, response.status === 200 ? '' : await response.clone().text());
      const events = eventsOf(await readFrames(response));
      const last = events.at(-1)!;
      assert.equal(last.type, 'run_failed');
      assert.match(String((last.event.error as { message: string }).message), /no-such-ref/);
      assert.equal(existsSync(join(`${h.home}-work`, 'worktrees', response.headers.get('x-run-id')!)), false);
    } finally {
      await h.close();
      await rm(base, { recursive: true, force: true });
    }
  });

  test('a repository outside the allowlist, a directory outside the project roots, and a bad ref are refused with 400', async () => {
    const { base, source } = await sourceRepository();
    const allowed = join(base, 'projects');
    await mkdir(join(allowed, 'inner'), { recursive: true });
    await symlink(base, join(allowed, 'escape'));
    const h = await startHarness({ script: readHello, settings: { repositories: [`${source}/`], projectRoots: [allowed] } });
    try {
      const repository = await h.post('/api/runs', { prompt: 'x', project: { repository: source, ref: 'v1' } });
      assert.equal(repository.status, 400);
      assert.match(await repository.text(), /--repository/);
      for (const directory of [base, '/', join(allowed, 'escape'), join(allowed, 'inner', '..', '..')]) {
        const response = await h.post('/api/runs', { prompt: 'x', project: directory });
        assert.equal(response.status, 400, directory);
        assert.match(await response.text(), /--project-root/);
      }
      const badRef = await h.post('/api/runs', { prompt: 'x', project: { repository: `${source}/`, ref: '--upload-pack=touch' } });
      assert.equal(badRef.status, 400);
      const inside = await h.post('/api/runs', { prompt: 'Read it.', project: join(allowed, 'inner') });
      assert.equal(inside.status, 200, inside.status === 200 ? '' : await inside.clone().text());
      await readFrames(inside);
    } finally {
      await h.close();
      await rm(base, { recursive: true, force: true });
    }
  });
});

describe('prepareRunProject', () => {
  test("a ref is a branch, a tag or a commit id, never git's guess; planted refs and symlinks in the mirror are not used; the work directory is checked", async () => {
    const { base, source } = await sourceRepository();
    const home = join(base, 'home');
    const settings = { root: join(base, 'project'), home, repositories: [source] };
    await mkdir(settings.root);
    try {
      // A tag with the branch's name, on another commit: git would check the tag out for "main".
      git(source, 'tag', 'main', 'v1');
      await assert.rejects(
        prepareRunProject({ repository: source, ref: 'main' }, settings, 'run-1'),
        (error: Error) => error instanceof RunProjectError && /both a branch and a tag/.test(error.message),
      );
      const branch = await prepareRunProject({ repository: source, ref: 'refs/heads/main' }, settings, 'run-2');
      assert.equal(await readFile(join(branch.root, 'hello.txt'), 'utf8'), 'hello from v2\n');
      await branch.cleanup();
      git(source, 'tag', '-d', 'main');

      // What a command with full access could plant: a ref git would look up first, a symlinked config.
      const mirror = mirrorPath(`${home}-work`, source);
      git(mirror, 'update-ref', 'refs/main', git(source, 'rev-parse', 'v1').trim());
      const victim = join(base, 'victim');
      await writeFile(victim, 'precious\n');
      await rm(join(mirror, 'config'));
      await symlink(victim, join(mirror, 'config'));
      const planted = await prepareRunProject({ repository: source, ref: 'main' }, settings, 'run-3');
      assert.equal(await readFile(join(planted.root, 'hello.txt'), 'utf8'), 'hello from v2\n', 'refs/main was used');
      assert.equal(await readFile(victim, 'utf8'), 'precious\n', 'the config was written through a symlink');
      await planted.cleanup();

      await assert.rejects(
        prepareRunProject({ repository: source, ref: 'main' }, { ...settings, workDir: join(settings.root, 'work') }, 'run-4'),
        (error: Error) => error instanceof RunProjectError && /overlaps the project directory/.test(error.message),
      );
      const shared = join(base, 'shared');
      await mkdir(shared);
      await chmod(shared, 0o777);
      await assert.rejects(
        prepareRunProject({ repository: source, ref: 'main' }, { ...settings, workDir: shared }, 'run-5'),
        (error: Error) => error instanceof RunProjectError && /no one else can write/.test(error.message),
      );
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });

  test("what a worktree command writes into the mirror's config is not used by the next run; replace refs are ignored; diffs stay text", async () => {
    const { base, source } = await sourceRepository();
    const home = join(base, 'home');
    const marker = join(base, 'MARKER');
    const settings = { root: join(base, 'project'), home, repositories: [source] };
    await mkdir(settings.root);
    try {
      const first = await prepareRunProject({ repository: source, ref: 'main' }, settings, 'run-1');
      // What an agent's command allowed to run unsandboxed could do from its worktree.
      const evil = join(base, 'evil.sh');
      await writeFile(evil, `#!/bin/sh\ntouch ${marker}\nexec git-upload-pack "$@"\n`);
      await chmod(evil, 0o755);
      const elsewhere = join(base, 'elsewhere');
      git(base, 'init', '-q', '--bare', elsewhere);
      git(first.root, 'config', 'remote.origin.uploadpack', evil);
      git(first.root, 'config', 'remote.origin.url', elsewhere);
      git(first.root, 'config', `url.${elsewhere}.insteadOf`, source);
      // And the repository itself: a replace ref that would swap v2's commit for another.
      await writeFile(join(source, 'hello.txt'), 'EVIL\n');
      const other = git(source, 'commit-tree', git(source, 'write-tree').trim(), '-m', 'evil').trim();
      git(source, 'checkout', '-q', '--', 'hello.txt');
      git(source, 'replace', git(source, 'rev-parse', 'main').trim(), other);
      await writeFile(join(first.root, 'hello.txt'), 'changed\n');
      const diff = git(first.root, 'diff');
      assert.match(diff, /^-hello from v2$/m, 'git diff in a worktree shows text');
      await first.cleanup();

      const second = await prepareRunProject({ repository: source, ref: 'main' }, settings, 'run-2');
      assert.equal(existsSync(marker), false, 'a program written into the mirror config ran');
      assert.equal(await readFile(join(second.root, 'hello.txt'), 'utf8'), 'hello from v2\n');
      await second.cleanup();
      await assert.rejects(
        prepareRunProject({ repository: source, ref: 'main' }, { ...settings, workDir: join(home, 'work') }, 'run-3'),
        (error: Error) => error instanceof RunProjectError && /--work-dir/.test(error.message),
      );
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });

  test('a takeover (the same run id) reuses the worktree with its changes; cleanup removes it; a project the settings no longer allow fails', async () => {
    const { base, source } = await sourceRepository();
    const home = join(base, 'home');
    const settings = { root: join(base, 'project'), home, repositories: [source] };
    await mkdir(settings.root);
    try {
      const first = await prepareRunProject({ repository: source, ref: 'main' }, settings, 'run-1');
      // Beside the home, not in it: the home is protected from the agent and hidden from its sandbox.
      assert.equal(first.root, join(`${home}-work`, 'worktrees', 'run-1'));
      assert.equal(await readFile(join(first.root, 'hello.txt'), 'utf8'), 'hello from v2\n');
      await writeFile(join(first.root, 'work.txt'), 'in progress\n');
      const second = await prepareRunProject({ repository: source, ref: 'main' }, settings, 'run-1');
      assert.equal(second.root, first.root);
      assert.equal(await readFile(join(second.root, 'work.txt'), 'utf8'), 'in progress\n');
      await second.cleanup();
      assert.equal(existsSync(first.root), false);
      await assert.rejects(
        prepareRunProject({ repository: source, ref: 'main' }, { ...settings, repositories: [] }, 'run-2'),
        (error: Error) => error instanceof RunProjectError && /--repository/.test(error.message),
      );
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });
});
