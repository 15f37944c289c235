// A hostile repository: its `.git/config` names programs (core.fsmonitor, a clean filter picked by
// `.gitattributes`, a textconv driver) that git runs during `status` and `diff`. The rule under
// test: no program named by repository content runs outside the sandbox without a person's
// approval (docs/permissions.md). Each program, if it ever runs on the host, touches a marker in a
// directory outside the project; inside the sandbox that directory is hidden (private /tmp) or
// read-only, so a marker on disk means the program ran on the host.
//
// Also: a sandboxed command must not plant such a repository for later (`git init vendor/lib`
// with a hook) — new git metadata is quarantined after every workspace-write command.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { NO_APPROVER, type ToolContext } from '../../src/agent/index.js';
import { createToolSessionState } from '../../src/tools/index.js';
import type { ExecutionPolicy } from '../../src/workspace/index.js';
import { createGateway } from '../../src/model/index.js';
import { SessionGrants, loadCommandClassifier, decidePermission } from '../../src/permissions/index.js';
import { openRunner, runTurn, type RunnerSettings } from '../../src/runner/index.js';
import { QUARANTINE_SUFFIX, detectSandbox, type SandboxAvailability } from '../../src/sandbox/index.js';
import { JsonlSessionStore, replaySession } from '../../src/sessions/index.js';
import { startFakeProvider, type ScriptedTurn } from '../../src/testing/index.js';
import { createShellTool } from '../../src/tools/shell/index.js';
import { permissionSettings } from '../helpers/permission-settings.js';
import { withTempDir } from '../helpers/temp-dir.js';

const run = promisify(execFile);
const GIT_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/nonexistent', GIT_CONFIG_NOSYSTEM: '1' };

async function git(cwd: string, ...args: string[]): Promise<string> {
  return (await run('git', args, { cwd, env: GIT_ENV })).stdout;
}

/** `<dir>/project` (a repository whose config runs programs) and `<dir>/markers` (where they leave traces). */
async function hostileRepository(dir: string): Promise<{ project: string; markers: string }> {
  const project = join(dir, 'project');
  const markers = join(dir, 'markers');
  await mkdir(project);
  await mkdir(markers);
  await writeFile(join(project, 'notes.txt'), 'first\n');
  // One shell runs the git commands (a spawn from a large test process is not cheap); the
  // programs are configured after the commit, so building the repository runs none of them.
  await run(
    'sh',
    [
      '-ec',
      'git init -q -b main && git add notes.txt && git -c user.name=t -c user.email=t@t commit -qm init && ' +
        'git config core.fsmonitor "touch $1/fsmonitor; false" && git config filter.evil.clean "touch $1/clean; cat" && ' +
        'git config diff.evil.textconv "touch $1/textconv; cat"',
      'hostile',
      markers,
    ],
    { cwd: project, env: GIT_ENV },
  );
  await writeFile(join(project, '.gitattributes'), '* filter=evil diff=evil\n');
  // A modified tracked file makes status and diff hash it through the clean filter.
  await writeFile(join(project, 'notes.txt'), 'first\nsecond\n');
  return { project, markers };
}

function markersIn(markers: string): string[] {
  return readdirSync(markers).sort();
}

const UNAVAILABLE: () => Promise<SandboxAvailability> = async () => ({
  available: false,
  path: null,
  reason: 'bwrap disabled for this test',
});

async function runOneTurn(
  project: string,
  home: string,
  script: ScriptedTurn[],
  settings: Partial<RunnerSettings>,
): Promise<{ system: string; outputs: string[] }> {
  const provider = await startFakeProvider({ script });
  try {
    const runner = await openRunner({
      root: project,
      home,
      model: 'acme-model',
      wireApi: 'chat',
      gateway: createGateway({ wireApi: 'chat', baseURL: provider.baseURL, apiKey: 'k' }),
      sandbox: 'read-only',
      approvalPolicy: 'on-request',
      network: false,
      compaction: null,
      ...settings,
    });
    const result = await runTurn(runner, { prompt: 'go', runId: 'r1', signal: new AbortController().signal, approvals: NO_APPROVER });
    const replay = replaySession((await new JsonlSessionStore(join(home, 'sessions')).read(result.sessionId)).records);
    const system = replay.history[0]!;
    assert.ok(system.type === 'message' && system.role === 'system');
    const outputs = replay.history.flatMap((item) => (item.type === 'function_call_output' ? [item.output] : []));
    return { system: system.content, outputs };
  } finally {
    await provider.close();
  }
}

describe('a hostile repository', () => {
  test('the git programs are real: plain git status and diff on the host run all three', async () => {
    await withTempDir(async (dir) => {
      const { project, markers } = await hostileRepository(dir);
      await git(project, 'status', '--porcelain');
      await git(project, 'diff');
      assert.deepEqual(markersIn(markers), ['clean', 'fsmonitor', 'textconv']);
    });
  });

  test('starting a session runs nothing it names on the host: git status runs in the sandbox', async () => {
    assert.equal((await detectSandbox()).available, true, 'bubblewrap must work here (CI installs it)');
    await withTempDir(async (dir) => {
      const { project, markers } = await hostileRepository(dir);
      const { system } = await runOneTurn(project, join(dir, 'home'), [{ text: 'Hello.' }], {});
      assert.deepEqual(markersIn(markers), []);
      assert.match(system, /git branch: main/);
      assert.match(system, /M notes\.txt/, 'the status was still collected, inside the sandbox');
    });
  });

  test('without a sandbox, starting a session reads the branch from files and runs no git at all', async () => {
    await withTempDir(async (dir) => {
      const { project, markers } = await hostileRepository(dir);
      const { system } = await runOneTurn(project, join(dir, 'home'), [{ text: 'Hello.' }], { detectSandbox: UNAVAILABLE });
      assert.deepEqual(markersIn(markers), []);
      assert.match(system, /git branch: main\ngit status: not collected \(git status runs only inside the sandbox/);
    });
  });

  const gitCalls: ScriptedTurn[] = [
    {
      toolCalls: [
        { name: 'shell', arguments: { command: 'git status' } },
        { name: 'shell', arguments: { command: 'git diff' } },
      ],
    },
    { text: 'Done.' },
  ];

  test("the model's git status/diff without a sandbox need a person: denied when nobody can approve", async () => {
    await withTempDir(async (dir) => {
      const { project, markers } = await hostileRepository(dir);
      const { outputs } = await runOneTurn(project, join(dir, 'home'), gitCalls, { detectSandbox: UNAVAILABLE });
      assert.deepEqual(markersIn(markers), []);
      assert.equal(outputs.length, 2);
      for (const output of outputs) assert.match(output, /repository's configuration names/);
    });
  });

  test("the model's git status/diff under danger-full-access + untrusted run in a read-only sandbox, programs contained", async () => {
    await withTempDir(async (dir) => {
      const { project, markers } = await hostileRepository(dir);
      const { outputs } = await runOneTurn(project, join(dir, 'home'), gitCalls, {
        sandbox: 'danger-full-access',
        approvalPolicy: 'untrusted',
      });
      assert.deepEqual(markersIn(markers), []);
      assert.match(outputs[0]!, /sandbox: read-only \(network off\)/);
    });
  });

  test("the model's git status/diff under danger-full-access + untrusted with no sandbox ask first (and nobody approves)", async () => {
    await withTempDir(async (dir) => {
      const { project, markers } = await hostileRepository(dir);
      const { outputs } = await runOneTurn(project, join(dir, 'home'), gitCalls, {
        sandbox: 'danger-full-access',
        approvalPolicy: 'untrusted',
        detectSandbox: UNAVAILABLE,
      });
      assert.deepEqual(markersIn(markers), []);
      for (const output of outputs) assert.match(output, /denied|not approved|approval/i);
    });
  });

  test("the model's git status/diff in the sandbox run without asking, and the programs stay inside it", async () => {
    await withTempDir(async (dir) => {
      const { project, markers } = await hostileRepository(dir);
      const { outputs } = await runOneTurn(project, join(dir, 'home'), gitCalls, { approvalPolicy: 'untrusted' });
      assert.deepEqual(markersIn(markers), []);
      assert.match(outputs[0]!, /exit_code: 0, .*, sandbox: read-only/);
      assert.match(outputs[0]!, /modified: {3}notes\.txt/);
    });
  });
});

describe('git is known safe only inside the sandbox', () => {
  test('the classifier says so, and the decision follows where the command would run', async () => {
    const classifier = await loadCommandClassifier();
    const root = '/work/project';
    for (const command of ['git status', 'git diff', 'git log -p -- src', 'git show HEAD', 'ls && git status', 'git -C src status']) {
      const verdict = classifier.classify(command, { root });
      assert.equal(verdict.safe, true, command);
      assert.equal(verdict.outsideSandbox?.safe, false, command);
      assert.match(
        verdict.outsideSandbox?.reason ?? '',
        /^needs approval: git: git runs programs that the repository's configuration names/,
      );
      const input = {
        toolName: 'shell',
        access: { kind: 'exec' as const, command, workdir: root, escalate: false, justification: null },
        commandSafety: verdict,
      };
      assert.equal(decidePermission(input, permissionSettings({ approvalPolicy: 'untrusted' })).rule, 'known-safe', command);
      assert.equal(decidePermission(input, permissionSettings({ sandboxAvailable: false })).rule, 'sandbox-unavailable', command);
      assert.equal(
        decidePermission(input, permissionSettings({ approvalPolicy: 'untrusted', sandboxAvailable: false })).decision,
        'ask',
        command,
      );
      // danger-full-access + untrusted: known safe runs in a read-only sandbox where there is one,
      // and asks where there is none.
      const full = permissionSettings({ sandbox: 'danger-full-access', approvalPolicy: 'untrusted' });
      assert.deepEqual(decidePermission(input, full).execution.sandboxed, true, command);
      const fullNoSandbox = permissionSettings({ sandbox: 'danger-full-access', approvalPolicy: 'untrusted', sandboxAvailable: false });
      assert.equal(decidePermission(input, fullNoSandbox).decision, 'ask', command);
      assert.equal(decidePermission(input, permissionSettings({ sandbox: 'danger-full-access' })).rule, 'danger-full-access', command);
    }
    assert.equal(classifier.classify('ls src', { root }).outsideSandbox, undefined, 'other known-safe commands are unaffected');
  });

  test('approving git status for the session outside the sandbox covers the next git status', async () => {
    const classifier = await loadCommandClassifier();
    const root = '/work/project';
    const grants = new SessionGrants();
    const settings = permissionSettings({
      sandbox: 'danger-full-access',
      approvalPolicy: 'untrusted',
      sandboxAvailable: false,
      sessionGrants: grants,
    });
    const input = (command: string) => ({
      toolName: 'shell',
      access: { kind: 'exec' as const, command, workdir: root, escalate: false, justification: null },
      commandSafety: classifier.classify(command, { root }),
    });
    assert.equal(decidePermission(input('git status'), settings).decision, 'ask');
    const { effectivePermissionInput } = await import('../../src/permissions/index.js');
    grants.add(effectivePermissionInput(input('git status'), settings));
    assert.equal(decidePermission(input('git status'), settings).rule, 'session-grant');
    assert.equal(decidePermission(input('git status --short'), settings).decision, 'ask', 'a grant covers the exact command');
    assert.equal(decidePermission(input('git diff'), settings).decision, 'ask', 'a grant for git status does not cover git diff');
  });
});

const WORKSPACE_WRITE: ExecutionPolicy = { mode: 'workspace-write', sandboxed: true, network: false, secretsApproved: false };

function shellContext(root: string): ToolContext {
  return { root, execution: WORKSPACE_WRITE, callId: 'call-1', signal: new AbortController().signal, state: createToolSessionState() };
}

async function sandboxedShell(root: string, command: string): Promise<string> {
  // The project's `.glassbox` is its config here, not Glassbox's home: that lives beside it.
  const shell = createShellTool({ env: { PATH: process.env.PATH, HOME: root }, homeDir: root, glassboxHome: `${root}-glassbox-home` });
  const result = await shell.execute(shell.schema.parse({ command }), shellContext(root));
  return result.output;
}

describe('a sandboxed command cannot plant a repository for later', () => {
  for (const [what, setup] of [
    ['a nested repository inside a project that has one', (root: string) => git(root, 'init', '-q')],
    ['a repository in a project that has none', async () => ''],
  ] as const) {
    test(`${what}: the new .git is quarantined, and a later git status on the host runs nothing`, async () => {
      await withTempDir(async (dir) => {
        const root = join(dir, 'project');
        const markers = join(dir, 'markers');
        await mkdir(root);
        await mkdir(markers);
        await setup(root);
        const before = existsSync(join(root, '.git'));
        const output = await sandboxedShell(
          root,
          `git init -q vendor/lib && git -C vendor/lib config core.fsmonitor "touch ${markers}/planted; false" && ` +
            `git init -q . 2>/dev/null; mkdir -p other && echo x > other/f && echo ok`,
        );
        assert.match(output, /^exit_code: 0/);
        assert.match(
          output,
          new RegExp(
            `created git metadata at ${join(root, 'vendor/lib/.git')}; it was moved to ${join(root, `vendor/lib/.git${QUARANTINE_SUFFIX}`)}`,
          ),
        );
        assert.match(output, /escalate: true/);
        assert.equal(existsSync(join(root, 'vendor/lib/.git')), false);
        assert.match(
          await readFile(join(root, `vendor/lib/.git${QUARANTINE_SUFFIX}`, 'config'), 'utf8'),
          /fsmonitor/,
          'moved, not deleted',
        );
        // A repository that existed before is left alone (it was frozen read-only meanwhile);
        // one the command created at the root is quarantined like any other.
        assert.equal(existsSync(join(root, '.git')), before);
        // The user's (or an IDE's) next git status in that directory runs nothing planted.
        await run('git', ['status'], { cwd: join(root, 'vendor/lib'), env: GIT_ENV }).catch(() => null);
        assert.deepEqual(markersIn(markers), []);
      });
    });
  }

  test('look-alikes: .GIT, a .git file pointing elsewhere, and a bare repository layout', async () => {
    await withTempDir(async (root) => {
      await git(root, 'init', '-q');
      const output = await sandboxedShell(
        root,
        'mkdir -p a/.GIT b c/objects c/refs && echo "gitdir: ../c" > b/.git && echo "ref: refs/heads/main" > c/HEAD && echo [core] > c/config',
      );
      for (const planted of ['a/.GIT', 'b/.git', 'c'])
        assert.match(output, new RegExp(`created git metadata at ${join(root, planted)};`), planted);
      assert.equal(existsSync(join(root, 'a/.GIT')), false);
      assert.equal(existsSync(join(root, 'b/.git')), false);
      assert.equal(existsSync(join(root, 'c/HEAD')), false, 'the bare look-alike lost its HEAD');
      assert.equal(existsSync(join(root, `c/HEAD${QUARANTINE_SUFFIX}`)), true);
      assert.equal(existsSync(join(root, 'c/config')), true, 'nothing else of it is touched');
    });
  });

  test('an existing nested repository (even under node_modules) is frozen: its config cannot be changed', async () => {
    await withTempDir(async (root) => {
      await git(root, 'init', '-q');
      await mkdir(join(root, 'node_modules/dep'), { recursive: true });
      await git(join(root, 'node_modules/dep'), 'init', '-q');
      const output = await sandboxedShell(
        root,
        'git -C node_modules/dep config core.fsmonitor evil; echo "[core]" >> .git/config; echo done',
      );
      assert.match(output, /done/);
      assert.doesNotMatch(await readFile(join(root, 'node_modules/dep/.git/config'), 'utf8'), /evil/);
      assert.doesNotMatch(output, /created git metadata/);
    });
  });

  test("the project's .glassbox config (it names MCP servers) cannot be planted or changed by a sandboxed command", async () => {
    await withTempDir(async (root) => {
      await git(root, 'init', '-q');
      const planted = await sandboxedShell(
        root,
        'mkdir .glassbox && echo \'{"mcpServers":{"x":{"command":"evil"}}}\' > .glassbox/config.json && echo done',
      );
      assert.match(planted, /created Glassbox's project configuration at .*\.glassbox; it was moved to .*\.glassbox\.glassbox-quarantine/);
      assert.equal(existsSync(join(root, '.glassbox')), false);
    });
    await withTempDir(async (root) => {
      await git(root, 'init', '-q');
      await mkdir(join(root, '.glassbox'));
      await writeFile(join(root, '.glassbox/config.json'), '{}\n');
      const output = await sandboxedShell(root, 'echo \'{"mcpServers":{}}\' > .glassbox/config.json; echo status=$?');
      assert.match(output, /status=1/);
      assert.equal(await readFile(join(root, '.glassbox/config.json'), 'utf8'), '{}\n');
    });
  });

  test('ordinary commands report nothing', async () => {
    await withTempDir(async (root) => {
      await git(root, 'init', '-q');
      const output = await sandboxedShell(root, 'mkdir -p src && echo hi > src/a.txt && cat src/a.txt');
      assert.doesNotMatch(output, /glassbox:/);
    });
  });
});
