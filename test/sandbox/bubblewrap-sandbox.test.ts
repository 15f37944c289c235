// Runs real commands under the real bubblewrap. Skipped, with the reason, where bwrap cannot
// create a sandbox (not installed, or user namespaces disabled).

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { makeTempDir, withTempDir } from '../helpers/temp-dir.js';
import { detectSandbox, runCommand, type CommandResult, type SandboxSettings } from '../../src/sandbox/index.js';
import { processesWithMarker, settled } from './process-probe.js';

const availability = await detectSandbox();
const skip = availability.available ? false : `bubblewrap unavailable: ${availability.reason}`;

interface Project {
  dir: string;
  root: string;
  home: string;
}

/** A project root and a fake home inside one temp dir, so nothing real is touched. */
async function withProject<T>(fn: (project: Project) => Promise<T>): Promise<T> {
  return withTempDir(async (dir) => {
    const root = join(dir, 'project');
    const home = join(root, 'home');
    await mkdir(root);
    await mkdir(home);
    return fn({ dir, root, home });
  });
}

function sandboxed(
  project: Project,
  command: string,
  settings: Partial<SandboxSettings> = {},
  extra: { timeoutMs?: number; workdir?: string; path?: string } = {},
): Promise<CommandResult> {
  return runCommand({
    command,
    root: project.root,
    workdir: extra.workdir ?? project.root,
    env: { PATH: extra.path ?? process.env.PATH, HOME: project.home, OPENAI_API_KEY: 'sk-sandbox-leak-check' },
    sandbox: {
      bwrapPath: availability.path ?? 'bwrap',
      mode: 'workspace-write',
      network: false,
      secretsApproved: false,
      homeDir: project.home,
      glassboxHome: join(project.home, '.glassbox'),
      ...settings,
    },
    timeoutMs: extra.timeoutMs ?? 10_000,
    killGraceMs: 300,
  });
}

function unique(prefix: string): string {
  return `${prefix}-${randomBytes(6).toString('hex')}`;
}

describe('bubblewrap sandbox', { skip }, () => {
  test("the sandbox's shell is the system's, not a bash a project directory on PATH holds", async () => {
    await withProject(async (project) => {
      const bin = join(project.root, '.venv', 'bin');
      await mkdir(bin, { recursive: true });
      await writeFile(join(bin, 'bash'), `#!/bin/sh\necho PLANTED-BASH-RAN\nexec /bin/bash "$@"\n`, { mode: 0o755 });
      const result = await sandboxed(project, 'echo ok', {}, { path: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}` });
      assert.equal(result.exitCode, 0, result.output.text);
      assert.equal(result.output.text.trim(), 'ok');
    });
  });

  test('runs the command in the workdir with the sandbox environment', async () => {
    await withProject(async (project) => {
      await mkdir(join(project.root, 'sub'));
      const result = await sandboxed(
        project,
        'pwd; echo "sandbox=$GLASSBOX_SANDBOX key=${OPENAI_API_KEY:-unset}"; exit 4',
        {},
        {
          workdir: join(project.root, 'sub'),
        },
      );
      assert.equal(result.exitCode, 4);
      assert.equal(result.output.text, `${join(project.root, 'sub')}\nsandbox=1 key=unset\n`);
      assert.deepEqual(result.sandbox, { mode: 'workspace-write', network: false });
    });
  });

  test('workspace-write: writes inside the root work, writes outside fail', async () => {
    await withProject(async (project) => {
      const other = await makeTempDir();
      const systemProbe = join('/usr', unique('glassbox-probe'));
      try {
        const result = await sandboxed(
          project,
          [
            'echo inside > inside.txt && echo inside-ok',
            `echo outside > ${other}/outside.txt || echo other-tempdir-blocked`,
            // Under the private /tmp this lands in the sandbox's own tmpfs, never on the host.
            `echo parent > ${project.dir}/parent.txt`,
            // Running as root must not help: capabilities are dropped, so no remount either.
            `mount -o remount,bind,rw / 2>/dev/null; touch ${systemProbe} || echo system-blocked`,
          ].join('\n'),
        );
        assert.match(result.output.text, /inside-ok/);
        assert.match(result.output.text, /other-tempdir-blocked/);
        assert.match(result.output.text, /system-blocked/);
        assert.equal(await readFile(join(project.root, 'inside.txt'), 'utf8'), 'inside\n');
        assert.equal(existsSync(join(other, 'outside.txt')), false);
        assert.equal(existsSync(join(project.dir, 'parent.txt')), false);
        assert.equal(existsSync(systemProbe), false);
      } finally {
        await rm(other, { recursive: true, force: true });
        await rm(systemProbe, { force: true });
      }
    });
  });

  test('read-only: writes inside the root fail too, reads work', async () => {
    await withProject(async (project) => {
      await writeFile(join(project.root, 'readme.txt'), 'hello');
      const result = await sandboxed(
        project,
        'cat readme.txt; echo; echo x > new.txt || echo write-blocked; echo y >> readme.txt || echo append-blocked',
        { mode: 'read-only' },
      );
      assert.match(result.output.text, /^hello\n/);
      assert.match(result.output.text, /write-blocked/);
      assert.match(result.output.text, /append-blocked/);
      assert.equal(existsSync(join(project.root, 'new.txt')), false);
      assert.equal(await readFile(join(project.root, 'readme.txt'), 'utf8'), 'hello');
    });
  });

  test('/tmp is private: writable inside, invisible on the host', async () => {
    await withProject(async (project) => {
      const name = unique('glassbox-private-tmp');
      const hostFile = join(project.dir, 'host-only.txt');
      await writeFile(hostFile, 'host');
      const result = await sandboxed(
        project,
        `echo secret > /tmp/${name} && cat /tmp/${name} && (test -e ${hostFile} || echo host-tmp-hidden)`,
        { mode: 'read-only' },
      );
      assert.equal(result.exitCode, 0, result.output.text);
      assert.equal(result.output.text, 'secret\nhost-tmp-hidden\n');
      assert.equal(existsSync(join('/tmp', name)), false);
    });
  });

  test('network is cut unless allowed', async () => {
    const server: Server = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const address = server.address();
      assert.ok(address !== null && typeof address === 'object');
      const command = `exec 3<>/dev/tcp/127.0.0.1/${address.port} && echo connected`;
      await withProject(async (project) => {
        const cut = await sandboxed(project, command);
        assert.notEqual(cut.exitCode, 0);
        assert.doesNotMatch(cut.output.text, /connected/);
        const allowed = await sandboxed(project, command, { network: true });
        assert.equal(allowed.exitCode, 0, allowed.output.text);
        assert.match(allowed.output.text, /connected/);
      });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  test('.env files are masked unless approved, and never writable', async () => {
    await withProject(async (project) => {
      await mkdir(join(project.root, 'api'));
      await writeFile(join(project.root, '.env'), 'API_KEY=top-level-secret\n');
      await writeFile(join(project.root, 'api', '.env.local'), 'DB_PASSWORD=nested-secret\n');
      await writeFile(join(project.root, 'notes.txt'), 'plain-notes\n');
      const command = 'cat .env api/.env.local notes.txt; echo changed > .env || echo env-write-blocked';

      const masked = await sandboxed(project, command);
      assert.doesNotMatch(masked.output.text, /top-level-secret|nested-secret/);
      assert.match(masked.output.text, /plain-notes\n/);
      assert.match(masked.output.text, /env-write-blocked/);

      const approved = await sandboxed(project, command, { secretsApproved: true });
      assert.match(approved.output.text, /top-level-secret/);
      assert.match(approved.output.text, /nested-secret/);
      assert.match(approved.output.text, /env-write-blocked/);
      assert.equal(await readFile(join(project.root, '.env'), 'utf8'), 'API_KEY=top-level-secret\n');
    });
  });

  test('.git is read-only in workspace-write', async () => {
    await withProject(async (project) => {
      await mkdir(join(project.root, '.git', 'hooks'), { recursive: true });
      await writeFile(join(project.root, '.git', 'HEAD'), 'ref: refs/heads/main\n');
      const result = await sandboxed(
        project,
        'cat .git/HEAD; echo evil > .git/hooks/pre-commit || echo hook-blocked; echo ok > tracked.txt && echo tree-ok',
      );
      assert.match(result.output.text, /ref: refs\/heads\/main/);
      assert.match(result.output.text, /hook-blocked/);
      assert.match(result.output.text, /tree-ok/);
      assert.equal(existsSync(join(project.root, '.git', 'hooks', 'pre-commit')), false);
    });
  });

  test('credentials under home and the Glassbox home are hidden', async () => {
    await withProject(async (project) => {
      await mkdir(join(project.home, '.ssh'));
      await writeFile(join(project.home, '.ssh', 'id_ed25519'), 'PRIVATE-KEY-MATERIAL');
      await writeFile(join(project.home, '.netrc'), 'machine example.com password netrc-secret');
      await mkdir(join(project.home, '.glassbox'));
      await writeFile(join(project.home, '.glassbox', 'config.json'), '{"apiKey":"glassbox-secret"}');
      const result = await sandboxed(
        project,
        'ls -A ~/.ssh; cat ~/.ssh/id_ed25519 ~/.netrc ~/.glassbox/config.json; touch ~/.ssh/planted || echo plant-blocked',
        { secretsApproved: true },
      );
      assert.doesNotMatch(result.output.text, /PRIVATE-KEY-MATERIAL|netrc-secret|glassbox-secret/);
      assert.match(result.output.text, /plant-blocked/);
      assert.equal(existsSync(join(project.home, '.ssh', 'planted')), false);
    });
  });

  test('credentials outside /tmp and outside the root are hidden too', async (t) => {
    let base: string;
    try {
      base = await mkdtemp('/var/tmp/glassbox-test-');
    } catch {
      t.skip('/var/tmp is not writable here');
      return;
    }
    try {
      await mkdir(join(base, 'home', '.aws'), { recursive: true });
      await writeFile(join(base, 'home', '.aws', 'credentials'), 'aws_secret_access_key=aws-secret');
      await withProject(async (project) => {
        const result = await sandboxed(project, `cat ${base}/home/.aws/credentials; echo done`, {
          homeDir: join(base, 'home'),
        });
        assert.match(result.output.text, /done/);
        assert.doesNotMatch(result.output.text, /aws-secret/);
      });
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });

  test('npm test runs in the sandbox, with the home directory hidden and read-only', async () => {
    await withProject(async (project) => {
      await writeFile(
        join(project.root, 'package.json'),
        JSON.stringify({ name: 'p', version: '1.0.0', scripts: { test: 'node --test' } }),
      );
      await writeFile(join(project.root, 'sum.test.js'), "require('node:test')('sums', () => require('node:assert').equal(1 + 1, 2));\n");
      await withTempDir(async (home) => {
        await writeFile(join(home, 'notes.txt'), 'host-only');
        const result = await runCommand({
          command: 'npm test 2>&1; echo "npm=$?"; ls -A "$HOME"; touch "$HOME/x" 2>/dev/null || echo home-read-only',
          root: project.root,
          workdir: project.root,
          env: { PATH: process.env.PATH, HOME: home },
          sandbox: {
            bwrapPath: availability.path ?? 'bwrap',
            mode: 'workspace-write',
            network: false,
            secretsApproved: false,
            homeDir: home,
            glassboxHome: join(home, '.glassbox'),
          },
          timeoutMs: 60_000,
        });
        // `node --test` reports with TAP when not on a terminal up to Node 22, with its spec reporter from 23 on.
        assert.match(result.output.text, /(# |ℹ )pass 1\n/, result.output.text);
        assert.match(result.output.text, /npm=0\n/);
        assert.doesNotMatch(result.output.text, /notes\.txt/, 'the rest of the home directory is not shown');
        assert.match(result.output.text, /home-read-only/);
      });
    });
  });

  test('a root inside a larger repository: the repository is shown read-only, its secrets masked, git works', async () => {
    await withTempDir(async (dir) => {
      const repo = join(dir, 'repo');
      const pkg = join(repo, 'packages', 'app');
      await mkdir(pkg, { recursive: true });
      execFileSync('git', ['init', '-q', repo]);
      await writeFile(join(repo, 'README.md'), 'monorepo-readme\n');
      await writeFile(join(repo, '.env'), 'TOP_SECRET=monorepo-secret\n');
      await writeFile(join(pkg, 'index.js'), 'module.exports = 1;\n');
      const result = await runCommand({
        command:
          'cat ../../README.md ../../.env; git status --porcelain 2>&1 | sort; echo x > ../../new.txt 2>/dev/null || echo repo-read-only',
        root: pkg,
        workdir: pkg,
        env: { PATH: process.env.PATH, HOME: join(dir, 'home') },
        sandbox: {
          bwrapPath: availability.path ?? 'bwrap',
          mode: 'workspace-write',
          network: false,
          secretsApproved: false,
          homeDir: join(dir, 'home'),
          glassboxHome: join(dir, 'home', '.glassbox'),
        },
        timeoutMs: 30_000,
      });
      assert.match(result.output.text, /monorepo-readme/);
      assert.doesNotMatch(result.output.text, /monorepo-secret/);
      assert.match(result.output.text, /\?\? README\.md/, `git sees the whole work tree:\n${result.output.text}`);
      assert.match(result.output.text, /repo-read-only/);
      assert.equal(existsSync(join(repo, 'new.txt')), false);
    });
  });

  test('a timed-out run leaves no process behind', async () => {
    await withProject(async (project) => {
      // A distinctive sleep argument identifies the sandboxed processes in the host's /proc.
      const marker = `99${randomBytes(3).readUIntBE(0, 3)}.5`;
      const result = await sandboxed(
        project,
        `sleep ${marker} & sleep ${marker} & sleep ${marker}; wait`,
        {},
        {
          timeoutMs: 500,
        },
      );
      assert.equal(result.timedOut, true);
      assert.deepEqual(await settled(() => processesWithMarker(`sleep ${marker}`)), []);
    });
  });

  test('background jobs die with the sandbox when the command finishes', async () => {
    await withProject(async (project) => {
      const marker = `98${randomBytes(3).readUIntBE(0, 3)}.5`;
      const result = await sandboxed(project, `(setsid sleep ${marker} &) ; echo started`);
      assert.equal(result.exitCode, 0);
      assert.equal(result.output.text, 'started\n');
      assert.deepEqual(await settled(() => processesWithMarker(`sleep ${marker}`)), []);
    });
  });
});
