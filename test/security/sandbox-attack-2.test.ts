// A second adversarial review of the OS sandbox (after the fixes of sandbox-attack.test.ts), with
// real bubblewrap as the oracle. Each test is one end-to-end bypass through runCommand (and, for
// the prompt, buildSystemPrompt): it first proves the precondition (the secret is masked at
// first), then asserts the safe outcome, so it fails until the hole is closed.

import assert from 'node:assert/strict';
import { existsSync, lstatSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { buildSystemPrompt } from '../../src/runner/system-prompt.js';
import { detectSandbox, runCommand, type CommandResult, type SandboxSettings } from '../../src/sandbox/index.js';
import { withTempDir } from '../helpers/temp-dir.js';

const availability = await detectSandbox();
const skip = availability.available ? false : `bubblewrap unavailable: ${availability.reason}`;
const CANARY = `sk-live-attack2-${process.pid}-9b2e7c41d0a6`;
const canary = new RegExp(CANARY);

interface Project {
  base: string;
  root: string;
  home: string;
}

async function withProject<T>(fn: (project: Project) => Promise<T>, options: { rootIsHome?: boolean } = {}): Promise<T> {
  return withTempDir(async (base) => {
    const root = join(base, 'project');
    const home = options.rootIsHome ? root : join(base, 'home');
    await mkdir(root, { recursive: true });
    await mkdir(home, { recursive: true });
    return fn({ base, root, home });
  });
}

function sandboxed(
  project: Project,
  command: string,
  settings: Partial<SandboxSettings> = {},
  extra: Partial<Parameters<typeof runCommand>[0]> = {},
): Promise<CommandResult> {
  return runCommand({
    command,
    root: project.root,
    workdir: project.root,
    env: { PATH: process.env.PATH, HOME: project.home, OPENAI_API_KEY: CANARY },
    sandbox: {
      bwrapPath: availability.path ?? 'bwrap',
      mode: 'workspace-write',
      network: false,
      secretsApproved: false,
      homeDir: project.home,
      glassboxHome: join(project.home, '.glassbox'),
      ...settings,
    },
    timeoutMs: 30_000,
    killGraceMs: 300,
    ...extra,
  });
}

describe('sandbox attacks, second review', { skip }, () => {
  // ---------------------------------------------------------------------------------------------
  // Secret files are masked by name, and some names need their directory: `**/.aws/credentials`,
  // `**/.aws/config`, `**/.docker/config.json`, `**/.kube/config`. The mask is a mount on the
  // file, which cannot be renamed, but the directory above it can: `mv .aws awsx` works (the mount
  // moves with it), and the next command's scan finds `awsx/credentials`, which is no secret by
  // name. Only home credential stores are anchored; the project's own secret files are not.
  // ---------------------------------------------------------------------------------------------
  test('a secret file whose name needs its directory stays masked after that directory is renamed', async () => {
    await withProject(async (project) => {
      const stores = [
        ['.aws', 'credentials'],
        ['.docker', 'config.json'],
        ['.kube', 'config'],
      ] as const;
      for (const [dir, file] of stores) {
        await mkdir(join(project.root, dir));
        await writeFile(join(project.root, dir, file), `token=${CANARY}${dir}\n`);
      }
      const first = await sandboxed(project, stores.map(([dir, file]) => `cat ${dir}/${file}; mv ${dir} moved${dir}`).join('; '));
      assert.doesNotMatch(first.output.text, canary, 'precondition: the secret files are masked');
      // The fix freezes each such directory where it is: the rename fails, which ends the attack.
      for (const [dir] of stores) assert.ok(existsSync(join(project.root, dir)), `${dir} stays where its mask is`);
      const second = await sandboxed(project, stores.map(([dir, file]) => `cat moved${dir}/${file}`).join('; '));
      assert.doesNotMatch(second.output.text, canary, 'a secret file was read unmasked after its directory was renamed');
    });
  });

  // The same rename puts the secret into the next session's prompt through AGENTS.md: the guarded
  // reader checks the real path's name with isSecretPath, and `moved.aws/credentials` passes.
  test('AGENTS.md linked to a renamed .aws/credentials does not put it into the prompt', async () => {
    await withProject(async (project) => {
      await mkdir(join(project.root, '.aws'));
      await writeFile(join(project.root, '.aws', 'credentials'), `aws_secret_access_key=${CANARY}\n`);
      const result = await sandboxed(project, 'cat .aws/credentials; mv .aws awsx && ln -s awsx/credentials AGENTS.md');
      assert.doesNotMatch(result.output.text, canary, 'precondition: the sandbox masks .aws/credentials');
      const prompt = await buildSystemPrompt({ root: project.root, now: new Date(0) });
      assert.doesNotMatch(prompt.text, canary, 'the credentials the sandbox masks went into the system prompt');
    });
  });

  // ---------------------------------------------------------------------------------------------
  // The secret scan does not look inside a directory named `.git` (SKIPPED_DIRECTORIES), trusting
  // that every such directory is the project's frozen repository or is renamed by the quarantine
  // after the command. But a rename can fail: `<dir>/.git` a few characters under PATH_MAX has no
  // room for `.glassbox-quarantine` (ENAMETOOLONG, for root too), and as an unprivileged user a
  // `chmod 555` of its parent does the same. The tree is only marked unverified, which stops no
  // sandboxed command, and the next scan skips the planted `.git` with the secret moved into it.
  // ---------------------------------------------------------------------------------------------
  test('a secret moved into a planted .git whose quarantine fails stays masked', async () => {
    await withProject(async (project) => {
      await mkdir(join(project.root, 'backend'));
      await writeFile(join(project.root, 'backend', '.env'), `API_KEY=${CANARY}\n`);
      // <root>/<deep>/.git is 4,085 characters: listable, but its quarantine name is over PATH_MAX.
      const wanted = 4_085 - project.root.length - '/'.length - '/.git'.length;
      const segments: string[] = [];
      let length = -1;
      while (length < wanted) {
        const segment = 'd'.repeat(Math.min(200, wanted - length - 1));
        segments.push(segment);
        length += segment.length + 1;
      }
      const deep = segments.join('/');
      assert.equal(join(project.root, deep, '.git').length, 4_085);
      const first = await sandboxed(project, `cat backend/.env; mkdir -p ${deep} && mv backend ${deep}/.git`);
      assert.doesNotMatch(first.output.text, canary, 'precondition: the sandbox masks backend/.env');
      assert.ok(existsSync(join(project.root, deep, '.git', '.env')), 'precondition: the secret was moved into the planted .git');
      const second = await sandboxed(project, `cat ${deep}/.git/.env`);
      assert.doesNotMatch(second.output.text, canary, 'a secret inside a planted .git was read unmasked');
    });
  });

  // ---------------------------------------------------------------------------------------------
  // A project that is the home directory (the case the masks of HOME_SECRET_PATHS are for). The
  // guarded reader refuses AGENTS.md only when its real path is a secret *file name*
  // (isSecretPath), not when it lies in a masked credential store, so a sandboxed command links
  // AGENTS.md to `~/.config/gh/hosts.yml` (gh's OAuth token) or `~/.bash_history` and the next
  // session sends the file to the model.
  // ---------------------------------------------------------------------------------------------
  test('a project that is the home directory: AGENTS.md linked into a credential store does not put it into the prompt', async () => {
    for (const [store, content] of [
      ['.config/gh/hosts.yml', `github.com:\n  oauth_token: ${CANARY}\n`],
      ['.bash_history', `export GITHUB_TOKEN=${CANARY}\n`],
      ['.codex/auth.json', `{"OPENAI_API_KEY":"${CANARY}"}\n`],
    ] as const) {
      await withProject(
        async (project) => {
          await mkdir(join(project.root, store, '..'), { recursive: true });
          await writeFile(join(project.root, store), content);
          const result = await sandboxed(project, `cat ${store}; ln -s ${store} AGENTS.md`);
          assert.doesNotMatch(result.output.text, canary, `precondition: the sandbox masks ~/${store}`);
          // The project is the home directory here: the prompt is built as it would be for it.
          const prompt = await buildSystemPrompt({ root: project.root, now: new Date(0), homeDir: project.home });
          assert.doesNotMatch(prompt.text, canary, `~/${store}, masked by the sandbox, went into the system prompt`);
        },
        { rootIsHome: true },
      );
    }
  });

  // ---------------------------------------------------------------------------------------------
  // Anchoring freezes the project entry above the *real path* of a credential store. A store that
  // is a symlink (dotfile managers: `~/.config/gh -> ../dotfiles/gh`) is masked at its target, and
  // the link itself is neither masked nor frozen: one command removes it, the next command's scan
  // no longer finds `.config/gh`, and `dotfiles/gh/hosts.yml` is no secret by name.
  // ---------------------------------------------------------------------------------------------
  test('a project that is the home directory keeps a symlinked credential store masked after the link is removed', async () => {
    await withProject(
      async (project) => {
        await mkdir(join(project.root, 'dotfiles', 'gh'), { recursive: true });
        await mkdir(join(project.root, '.config'));
        await writeFile(join(project.root, 'dotfiles', 'gh', 'hosts.yml'), `oauth_token: ${CANARY}\n`);
        await symlink('../dotfiles/gh', join(project.root, '.config', 'gh'));
        const first = await sandboxed(project, 'cat .config/gh/hosts.yml dotfiles/gh/hosts.yml; rm .config/gh');
        assert.doesNotMatch(first.output.text, canary, 'precondition: the credential store is masked');
        // The fix freezes `.config` (the entry holding the store's name): the link stays.
        assert.ok(lstatSync(join(project.root, '.config', 'gh')).isSymbolicLink(), 'the link to the store stays where its mask is');
        const second = await sandboxed(project, 'cat dotfiles/gh/hosts.yml');
        assert.doesNotMatch(second.output.text, canary, 'the credential store was read unmasked once its link was gone');
      },
      { rootIsHome: true },
    );
  });

  // Not a case here: memory in shared mappings (a shared anonymous mmap, a memfd, SysV shm) is
  // not counted by RLIMIT_DATA, so one process can hold more than the limit; a residual limit in
  // docs/permissions.md (bounding it needs a memory cgroup, RLIMIT_AS breaks V8 and Go).
});
