// Git metadata a sandboxed workspace-write command plants for later, checked with real git as the
// oracle: after the command, `git rev-parse` run in any directory of the project must find no
// repository the command made. The layouts come from git's own rule (`is_git_directory`): a
// `HEAD` that is a file or a symlink into `refs/`, `objects` and `refs` that are symlinks or even
// executable files, a `commondir` file pointing elsewhere. Also: a repository inside a new `.git`,
// a frozen repository moved aside and replaced, and the walks that cannot finish (too many
// entries, a directory that cannot be read), which must fail closed.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { NO_APPROVER, type RunEvent, type ToolContext } from '../../src/agent/index.js';
import { runTurn } from '../../src/runner/index.js';
import {
  QUARANTINE_SUFFIX,
  describeUnverifiedTree,
  detectSandbox,
  markTreeUnverified,
  gitSnapshot,
  readUnverifiedTree,
  runCommand,
  unverifiedTreeMarker,
  type CommandResult,
} from '../../src/sandbox/index.js';
import { createToolSessionState } from '../../src/tools/index.js';
import { createShellTool } from '../../src/tools/shell/index.js';
import type { ExecutionPolicy } from '../../src/workspace/index.js';
import { startFakeProvider } from '../../src/testing/index.js';
import { openTestRunner } from '../helpers/test-runner.js';
import { withTempDir } from '../helpers/temp-dir.js';

const run = promisify(execFile);

function gitEnv(ceiling: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/nonexistent', GIT_CONFIG_NOSYSTEM: '1', GIT_CEILING_DIRECTORIES: ceiling };
}

/**
 * Every repository git finds from some directory under `tree` (itself included), as git names its
 * git directory, relative to `tree`: `vendor/lib/.git`, or `c` for a bare one.
 */
async function repositoriesGitFinds(tree: string): Promise<string[]> {
  const script =
    'find . -type d -print0 | while IFS= read -r -d "" d; do (cd "$d" && git rev-parse --absolute-git-dir 2>/dev/null); done; true';
  const { stdout } = await run('bash', ['-c', script], { cwd: tree, env: gitEnv(dirname(tree)), maxBuffer: 16 * 1024 * 1024 });
  const found = new Set(
    stdout
      .split('\n')
      .filter(Boolean)
      .map((gitDir) => relative(tree, gitDir)),
  );
  return [...found].sort();
}

// Each `v-<HEAD>-<objects>-<refs>` directory is one layout; `c-*` use a commondir.
const LAYOUTS = String.raw`
set -e
mkdir -p shared/objects shared/refs/heads
echo 'ref: refs/heads/main' > shared/HEAD-file
for head in file link-refs link-file; do
  for objects in dir link file none; do
    for refs in dir link file; do
      d="v-$head-$objects-$refs"; mkdir "$d"
      case $head in
        file) echo 'ref: refs/heads/main' > "$d/HEAD" ;;
        link-refs) ln -s refs/heads/main "$d/HEAD" ;;
        link-file) ln -s ../shared/HEAD-file "$d/HEAD" ;;
      esac
      case $objects in
        dir) mkdir "$d/objects" ;;
        link) ln -s ../shared/objects "$d/objects" ;;
        file) touch "$d/objects"; chmod +x "$d/objects" ;;
      esac
      case $refs in
        dir) mkdir "$d/refs" ;;
        link) ln -s ../shared/refs "$d/refs" ;;
        file) touch "$d/refs"; chmod +x "$d/refs" ;;
      esac
      printf '[core]\n\tbare = false\n\tfsmonitor = false\n' > "$d/config"
    done
  done
done
mkdir c-plain && echo 'ref: refs/heads/main' > c-plain/HEAD && echo ../shared > c-plain/commondir
mkdir c-links && ln -s refs/heads/main c-links/HEAD && echo ../v-file-link-link > c-links/commondir
mkdir -p deep/down/lib/refs && echo 'ref: refs/heads/main' > deep/down/lib/HEAD && ln -s "$PWD/shared/objects" deep/down/lib/objects
echo planted
`;

const WORKSPACE_WRITE: ExecutionPolicy = { mode: 'workspace-write', sandboxed: true, network: false, secretsApproved: false };

function shellContext(root: string): ToolContext {
  return { root, execution: WORKSPACE_WRITE, callId: 'call-1', signal: new AbortController().signal, state: createToolSessionState() };
}

/** The shell tool's output for one sandboxed workspace-write command (Glassbox home: `<root>/../home`). */
async function sandboxedShell(root: string, command: string, gitScanMaxEntries?: number): Promise<string> {
  const shell = createShellTool({
    env: { PATH: process.env.PATH, HOME: root },
    homeDir: root,
    glassboxHome: join(dirname(root), 'home'),
    gitScanMaxEntries,
  });
  const result = await shell.execute(shell.schema.parse({ command }), shellContext(root));
  return result.output;
}

/** One sandboxed workspace-write command through `runCommand`, the path the shell tool takes, with a small walk budget. */
async function sandboxedCommand(root: string, command: string, gitScanMaxEntries: number): Promise<CommandResult> {
  const sandbox = await detectSandbox();
  return runCommand({
    command,
    root,
    workdir: root,
    env: { PATH: process.env.PATH, HOME: root },
    sandbox: {
      bwrapPath: sandbox.path!,
      mode: 'workspace-write',
      network: false,
      secretsApproved: false,
      homeDir: root,
      glassboxHome: join(dirname(root), 'home'),
    },
    timeoutMs: 60_000,
    gitScanMaxEntries,
  });
}

async function project(dir: string): Promise<string> {
  const root = join(dir, 'project');
  await mkdir(root);
  await writeFile(join(root, 'README.md'), '# project\n');
  return root;
}

describe('a sandboxed command cannot plant a repository that git finds', { concurrency: true }, () => {
  test('bare-repository layouts with symlinked HEAD, objects or refs, executable files, a commondir: git finds none afterwards', async () => {
    assert.equal((await detectSandbox()).available, true, 'bubblewrap must work here (CI installs it)');
    await withTempDir(async (dir) => {
      // The oracle first: planted on the host, outside any check, which of these are repositories to git?
      const scratch = join(dir, 'scratch');
      await mkdir(scratch);
      await run('bash', ['-c', LAYOUTS], { cwd: scratch });
      const accepted = await repositoriesGitFinds(scratch);
      for (const layout of [
        'v-file-link-dir',
        'v-file-dir-link',
        'v-link-refs-dir-dir',
        'v-file-file-file',
        'c-plain',
        'c-links',
        'deep/down/lib',
      ])
        assert.ok(accepted.includes(layout), `git takes ${layout} for a repository (found: ${accepted.join(' ')})`);
      // And some it does not (a symlinked HEAD must point into refs/; objects must exist): the check may be wider than git, never narrower.
      for (const layout of ['v-link-file-dir-dir', 'v-file-none-dir']) assert.ok(!accepted.includes(layout), layout);

      const root = await project(dir);
      const output = await sandboxedShell(root, LAYOUTS);
      assert.match(output, /^exit_code: 0/, output);
      assert.deepEqual(await repositoriesGitFinds(root), [], 'no directory of the project is a repository to git');
      // Each layout git accepted is reported, and only its HEAD was renamed: nothing is deleted.
      for (const layout of accepted) assert.ok(output.includes(`created git metadata at ${join(root, layout)};`), `${layout}\n${output}`);
      assert.equal(existsSync(join(root, `v-file-link-dir/HEAD${QUARANTINE_SUFFIX}`)), true);
      assert.equal(await readFile(join(root, 'v-file-link-dir/config'), 'utf8'), '[core]\n\tbare = false\n\tfsmonitor = false\n');
      assert.doesNotMatch(output, /could not be fully checked/);
    });
  });

  test('a repository inside a new .git is found too, and the renamed .git is no repository either', async () => {
    await withTempDir(async (dir) => {
      const root = await project(dir);
      const output = await sandboxedShell(root, 'git init -q x && git init -q x/.git/inner && git init -q y && mv y x/.git/sub && echo ok');
      assert.match(output, /^exit_code: 0/, output);
      assert.deepEqual(await repositoriesGitFinds(root), [], output);
      assert.match(
        output,
        new RegExp(`created git metadata at ${join(root, 'x/.git')}; it was moved to ${join(root, `x/.git${QUARANTINE_SUFFIX}`)}`),
      );
      assert.equal(existsSync(join(root, `x/.git${QUARANTINE_SUFFIX}/HEAD${QUARANTINE_SUFFIX}`)), true, 'the renamed .git lost its HEAD');
    });
  });

  test('a frozen repository moved aside and replaced: the replacement is new, the moved one is left alone', async () => {
    await withTempDir(async (dir) => {
      const root = await project(dir);
      await mkdir(join(root, 'vendor/lib'), { recursive: true });
      await run('git', ['init', '-q'], { cwd: join(root, 'vendor/lib'), env: gitEnv(dir) });
      const output = await sandboxedShell(
        root,
        'mv vendor/lib vendor/old && git init -q vendor/lib && git -C vendor/lib config core.fsmonitor "touch planted; false" && echo ok',
      );
      assert.match(output, /^exit_code: 0/, output);
      assert.match(output, new RegExp(`created git metadata at ${join(root, 'vendor/lib/.git')};`));
      assert.doesNotMatch(output, /vendor\/old/, 'the moved repository is the frozen original');
      assert.deepEqual(await repositoriesGitFinds(root), ['vendor/old/.git']);
      assert.doesNotMatch(await readFile(join(root, 'vendor/old/.git/config'), 'utf8'), /fsmonitor/);
    });
  });
});

describe('a check that cannot finish fails closed', { concurrency: true }, () => {
  test('a command that adds more entries than the walk may read: the project is marked unverified, and Glassbox runs no git there', async () => {
    await withTempDir(async (dir) => {
      const root = await project(dir);
      const home = join(dir, 'home');
      await run('git', ['init', '-q'], { cwd: root, env: gitEnv(dir) });
      // 400 empty files at the root use up a budget of 300, so nothing below is read: the nested
      // repository is not found, and the check must not pass for complete.
      const result = await sandboxedCommand(root, 'touch f{1..400} && mkdir -p a/b && git init -q a/b/c && echo ok', 300);
      assert.equal(result.exitCode, 0, result.output.text);
      assert.equal(existsSync(join(root, 'a/b/c/.git')), true, 'out of reach, so not quarantined');
      assert.ok(result.unverifiedTree, JSON.stringify(result));
      assert.match(result.unverifiedTree.reason, /the command added more than 300 entries/);
      const marked = await readUnverifiedTree(home, root);
      assert.equal(marked?.marker, unverifiedTreeMarker(home, root));
      assert.match(marked?.reason ?? '', /more than 300 entries/);

      // The environment block's git status is not collected while the mark is there...
      const detect = detectSandbox;
      const refused = await gitSnapshot({ root, glassboxHome: home, detectSandbox: detect, env: { PATH: process.env.PATH } });
      assert.match(refused, /git status: not collected \(.*could not be fully checked/);
      // ...and is again once a person removed it.
      await rm(marked!.marker);
      assert.match(await gitSnapshot({ root, glassboxHome: home, detectSandbox: detect, env: { PATH: process.env.PATH } }), /git status:/);
      assert.doesNotMatch(
        await gitSnapshot({ root, glassboxHome: home, detectSandbox: detect, env: { PATH: process.env.PATH } }),
        /not collected/,
      );
    });
  });

  test('the shell tool tells the model (and the user) plainly, with what to do', async () => {
    await withTempDir(async (dir) => {
      const root = await project(dir);
      const output = await sandboxedShell(root, 'touch f{1..50} && mkdir -p a && git init -q a/b && echo ok', 20);
      assert.match(output, /^exit_code: 0/, output);
      const notice = output.split('\n').find((line) => line.includes('could not be fully checked')) ?? '';
      assert.ok(
        notice.startsWith(`glassbox: ${root} could not be fully checked for git metadata a sandboxed command may have planted`),
        output,
      );
      assert.match(notice, /the command added more than 20 entries/);
      assert.match(notice, /Treat it as planted/);
      assert.match(notice, /Glassbox runs no git of its own there until you confirm/);
      assert.ok(notice.includes(`delete ${unverifiedTreeMarker(join(dir, 'home'), root)} to confirm`), notice);
    });
  });

  test('a directory the walk cannot read fails the check, unless the command could not have entered it either', async () => {
    await withTempDir(async (dir) => {
      const tree = join(dir, 'tree');
      const tmp = join(dir, 'tmp');
      await mkdir(join(tree, 'theirs'), { recursive: true, mode: 0o700 });
      await mkdir(tmp);
      // Root reads every directory, so the walk runs as another user when the test runs as root.
      const asRoot = process.getuid?.() === 0;
      if (asRoot) await run('chown', ['-R', '65534:65534', tree, tmp]);
      if (asRoot) await chmod(dir, 0o755);
      // Someone else's directory we cannot enter (root's, as the walk is not root; else none).
      if (asRoot) await run('chown', ['0:0', join(tree, 'theirs')]);
      const script = `
        const { scanGitMetadata } = await import(${JSON.stringify(new URL('../../src/sandbox/git-metadata.ts', import.meta.url).href)});
        const { execFileSync } = await import('node:child_process');
        const { chmodSync, mkdirSync } = await import('node:fs');
        const tree = ${JSON.stringify(tree)};
        const before = await scanGitMetadata(tree);
        mkdirSync(tree + '/hidden');
        execFileSync('git', ['init', '-q', tree + '/hidden/repo']);
        chmodSync(tree + '/hidden', 0);
        const after = await scanGitMetadata(tree, { before });
        chmodSync(tree + '/hidden', 0o755);
        console.log(JSON.stringify({ before: before.incomplete, after: after.incomplete, found: [...after.dotGit.keys()] }));
      `;
      const [file, args] = asRoot
        ? ['setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath]]
        : [process.execPath, []];
      const { stdout } = await run(file, [...args, '--import', 'tsx', '--input-type=module', '-e', script], {
        cwd: fileURLToPath(new URL('../../', import.meta.url)),
        env: { PATH: process.env.PATH, HOME: '/nonexistent', TMPDIR: tmp, GIT_CONFIG_NOSYSTEM: '1' },
      });
      const seen = JSON.parse(stdout.trim().split('\n').at(-1)!) as { before: string | null; after: string | null; found: string[] };
      assert.equal(seen.before, null, 'a directory the walk can neither enter nor change is no gap');
      assert.equal(seen.after, `${join(tree, 'hidden')} could not be read (EACCES)`);
      assert.deepEqual(seen.found, []);
    });
  });

  test('a project larger than the walk may read is marked too, whatever the command did', async () => {
    await withTempDir(async (dir) => {
      const root = await project(dir);
      await run('bash', ['-c', 'mkdir -p big/sub && touch big/f{1..400}'], { cwd: root });
      const result = await sandboxedCommand(root, 'echo hi', 300);
      assert.equal(result.exitCode, 0);
      assert.match(result.unverifiedTree?.reason ?? '', /the project holds more than 300 entries/);
    });
  });

  test('every turn in a marked project starts with a warning, and its system prompt carries no git status', async () => {
    await withTempDir(async (root) => {
      await run('git', ['init', '-q'], { cwd: root, env: gitEnv(dirname(root)) });
      const mark = await markTreeUnverified(join(root, '.home'), root, 'the command added more than 5 entries');
      const provider = await startFakeProvider({ script: [{ text: 'done' }] });
      try {
        const runner = await openTestRunner(root, provider.baseURL);
        const events: RunEvent[] = [];
        await runTurn(runner, {
          prompt: 'hi',
          runId: 'r1',
          signal: new AbortController().signal,
          approvals: NO_APPROVER,
          policy: { sandbox: 'workspace-write', approvalPolicy: 'on-request', network: false },
          onEvent: (event) => events.push(event),
        });
        const warning = events.find((event) => event.type === 'warning');
        assert.ok(warning?.type === 'warning', JSON.stringify(events.map((event) => event.type)));
        assert.equal(warning.code, 'PROJECT_UNVERIFIED');
        assert.equal(warning.message, describeUnverifiedTree(mark));
        assert.equal(
          events.findIndex((event) => event.type === 'warning'),
          1,
          'right after run_started',
        );
        const system = JSON.parse(provider.requests[0]!.rawBody).messages[0].content as string;
        assert.match(system, /git status: not collected \(.*could not be fully checked/);
      } finally {
        await provider.close();
      }
    });
  });

  test('an ordinary command in an ordinary project marks nothing', async () => {
    await withTempDir(async (dir) => {
      const root = await project(dir);
      const result = await sandboxedCommand(root, 'mkdir -p src && echo hi > src/a.txt', 300);
      assert.equal(result.unverifiedTree, null);
      assert.deepEqual(result.gitMetadataProblems, []);
      assert.equal(await readUnverifiedTree(join(dir, 'home'), root), null);
    });
  });
});
