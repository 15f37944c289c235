import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ToolAccess } from '../../src/agent/index.js';
import type { SandboxMode } from '../../src/workspace/index.js';
import {
  APPROVAL_POLICIES,
  SANDBOX_UNAVAILABLE_HINT,
  SessionGrants,
  decidePermission,
  isToolVisible,
  type ApprovalPolicy,
  type CommandClassification,
  type PermissionDecision,
} from '../../src/permissions/index.js';
import { GLASSBOX_HOME, PROJECT_ROOT, permissionSettings } from '../helpers/permission-settings.js';

const root = PROJECT_ROOT;
const home = GLASSBOX_HOME;
const settings = permissionSettings;

const SAFE: CommandClassification = { safe: true, reason: 'known safe: ls', commands: ['ls'], unsafePrefixes: [] };
const UNSAFE: CommandClassification = {
  safe: false,
  reason: 'needs approval: npm is not on the allowlist of known-safe commands',
  commands: ['npm'],
  unsafePrefixes: ['npm test'],
};

type Escalation = 'none' | 'justified' | 'unjustified';

function exec(command: string, escalation: Escalation = 'none', workdir = root): ToolAccess {
  return {
    kind: 'exec',
    command,
    workdir,
    escalate: escalation !== 'none',
    justification: escalation === 'justified' ? 'needs the network to download packages' : escalation === 'unjustified' ? '  ' : null,
  };
}

/** `decision rule sandboxed|unsandboxed`, compact enough to lay the matrix out as a table. */
function cell(result: PermissionDecision): string {
  return `${result.decision} ${result.rule} ${result.execution.sandboxed ? 'sandboxed' : 'unsandboxed'}`;
}

const POLICIES: readonly ApprovalPolicy[] = ['untrusted', 'on-request', 'never'];

describe('decidePermission: reads', () => {
  // path → [untrusted, on-request, never]; the same in every sandbox mode.
  const table: Record<string, readonly [string, string, string]> = {
    [`${root}/src/index.ts`]: ['allow read-inside-root', 'allow read-inside-root', 'allow read-inside-root'],
    [root]: ['allow read-inside-root', 'allow read-inside-root', 'allow read-inside-root'],
    [`${root}/.git/config`]: ['allow read-inside-root', 'allow read-inside-root', 'allow read-inside-root'],
    [`${root}/.env`]: ['ask secret-file', 'ask secret-file', 'deny secret-file'],
    [`${root}/config/.env.production`]: ['ask secret-file', 'ask secret-file', 'deny secret-file'],
    [`${root}/deploy/server.pem`]: ['ask secret-file', 'ask secret-file', 'deny secret-file'],
    [`${root}/.npmrc`]: ['ask secret-file', 'ask secret-file', 'deny secret-file'],
    [`${root}/keys/id_ed25519`]: ['ask secret-file', 'ask secret-file', 'deny secret-file'],
    [`${root}/.aws/credentials`]: ['ask secret-file', 'ask secret-file', 'deny secret-file'],
    [`${root}/credentials-prod.json`]: ['ask secret-file', 'ask secret-file', 'deny secret-file'],
    '/etc/passwd': ['deny path-outside-root', 'deny path-outside-root', 'deny path-outside-root'],
    [`${root}-other/x`]: ['deny path-outside-root', 'deny path-outside-root', 'deny path-outside-root'],
    [`${home}/config.json`]: ['deny path-outside-root', 'deny path-outside-root', 'deny path-outside-root'],
  };
  for (const [path, expected] of Object.entries(table)) {
    for (const mode of ['read-only', 'workspace-write', 'danger-full-access'] as const) {
      it(`${path} under ${mode}`, () => {
        const got = POLICIES.map((approvalPolicy) => {
          const result = decidePermission(
            { toolName: 'read_file', access: { kind: 'read', paths: [path] }, commandSafety: null },
            settings({ approvalPolicy, sandbox: mode }),
          );
          return `${result.decision} ${result.rule}`;
        });
        assert.deepEqual(got, expected);
      });
    }
  }

  it('judges a multi-path read by its worst path', () => {
    const decide = (paths: string[]) =>
      decidePermission({ toolName: 'grep', access: { kind: 'read', paths }, commandSafety: null }, settings());
    assert.equal(decide([`${root}/a`, `${root}/.env`]).rule, 'secret-file');
    assert.equal(decide([`${root}/.env`, '/etc/x']).rule, 'path-outside-root');
  });

  it('tells the model what to do instead', () => {
    const outside = decidePermission(
      { toolName: 'read_file', access: { kind: 'read', paths: ['/etc/passwd'] }, commandSafety: null },
      settings(),
    );
    assert.match(outside.reason, /PATH_OUTSIDE_ROOT/);
    assert.match(outside.reason, /inside the root/);
    const secret = decidePermission(
      { toolName: 'read_file', access: { kind: 'read', paths: [`${root}/.env`] }, commandSafety: null },
      settings({ approvalPolicy: 'never' }),
    );
    assert.match(secret.reason, /Work without its contents/);
  });
});

describe('decidePermission: writes', () => {
  // mode → [untrusted, on-request, never] for an ordinary file inside the root.
  const ordinary: Record<SandboxMode, readonly [string, string, string]> = {
    'read-only': ['ask sandbox-read-only', 'ask sandbox-read-only', 'deny sandbox-read-only'],
    'workspace-write': ['ask policy-untrusted', 'allow workspace-write', 'allow workspace-write'],
    'danger-full-access': ['ask policy-untrusted', 'allow danger-full-access', 'allow danger-full-access'],
  };
  for (const [mode, expected] of Object.entries(ordinary) as [SandboxMode, readonly [string, string, string]][]) {
    it(`an ordinary file under ${mode}`, () => {
      const got = POLICIES.map((approvalPolicy) => {
        const result = decidePermission(
          { toolName: 'write_file', access: { kind: 'write', paths: [`${root}/src/a.ts`] }, commandSafety: null },
          settings({ approvalPolicy, sandbox: mode }),
        );
        return `${result.decision} ${result.rule}`;
      });
      assert.deepEqual(got, expected);
    });
  }

  const protectedPaths = [
    `${root}/.git/config`,
    `${root}/.git/hooks/pre-commit`,
    `${root}/.git`,
    `${root}/vendor/lib/.git/config`,
    // Spellings a case-folding (macOS, Windows) or HFS+/NTFS file system resolves to `.git`.
    `${root}/vendor/.GIT/config`,
    `${root}/.Git/hooks/pre-commit`,
    `${root}/lib/.git./config`,
    `${root}/lib/.git /config`,
    `${root}/GIT~1/config`,
    `${root}/x/.g\u200cit/config`,
    // The project's own Glassbox config names MCP servers (programs Glassbox starts).
    `${root}/.glassbox/config.json`,
    `${root}/.Glassbox/config.json`,
    `${root}/.glassbox`,
    `${root}/.env`,
    `${root}/packages/api/.env.local`,
    `${root}/.envrc`,
  ];
  for (const path of protectedPaths) {
    for (const mode of ['read-only', 'workspace-write', 'danger-full-access'] as const) {
      it(`protected ${path.slice(root.length)} under ${mode}`, () => {
        const got = POLICIES.map((approvalPolicy) => {
          const result = decidePermission(
            { toolName: 'edit_file', access: { kind: 'write', paths: [path] }, commandSafety: null },
            settings({ approvalPolicy, sandbox: mode }),
          );
          return `${result.decision} ${result.rule}`;
        });
        assert.deepEqual(got, ['ask protected-path', 'ask protected-path', 'deny protected-path']);
      });
    }
  }

  it('protects the Glassbox home when it lies inside the root', () => {
    const inside = settings({ glassboxHome: `${root}/.glassbox` });
    const result = decidePermission(
      { toolName: 'write_file', access: { kind: 'write', paths: [`${root}/.glassbox/config.json`] }, commandSafety: null },
      inside,
    );
    assert.equal(cell(result), 'ask protected-path unsandboxed');
    assert.match(result.reason, /Glassbox's own home/);
  });

  it('denies writes outside the root in every mode and policy, before any other rule', () => {
    for (const approvalPolicy of POLICIES) {
      for (const sandbox of ['read-only', 'workspace-write', 'danger-full-access'] as const) {
        for (const path of ['/tmp/x', `${home}/config.json`, `${root}-other/.env`]) {
          const result = decidePermission(
            { toolName: 'write_file', access: { kind: 'write', paths: [path] }, commandSafety: null },
            settings({ approvalPolicy, sandbox }),
          );
          assert.equal(`${result.decision} ${result.rule}`, 'deny path-outside-root', `${path} ${approvalPolicy} ${sandbox}`);
        }
      }
    }
  });

  it('asks for a multi-path write when any path is protected', () => {
    const result = decidePermission(
      { toolName: 'apply_patch', access: { kind: 'write', paths: [`${root}/a.ts`, `${root}/.git/HEAD`] }, commandSafety: null },
      settings({ sandbox: 'danger-full-access' }),
    );
    assert.equal(result.rule, 'protected-path');
  });

  it('gives the model an actionable reason when a write is denied', () => {
    const result = decidePermission(
      { toolName: 'write_file', access: { kind: 'write', paths: [`${root}/a.ts`] }, commandSafety: null },
      settings({ approvalPolicy: 'never', sandbox: 'read-only' }),
    );
    assert.match(result.reason, /read-only/);
    assert.match(result.reason, /Describe the change/);
  });
});

describe('decidePermission: commands', () => {
  // `${safety}|${escalation}` → [untrusted, on-request, never], for read-only and workspace-write.
  const withSandbox: Record<string, readonly [string, string, string]> = {
    'safe|none': ['allow known-safe sandboxed', 'allow known-safe sandboxed', 'allow known-safe sandboxed'],
    'safe|justified': ['ask escalation unsandboxed', 'ask escalation unsandboxed', 'deny escalation-denied unsandboxed'],
    'safe|unjustified': [
      'deny escalation-needs-justification unsandboxed',
      'deny escalation-needs-justification unsandboxed',
      'deny escalation-needs-justification unsandboxed',
    ],
    'unsafe|none': ['ask policy-untrusted sandboxed', 'allow sandboxed sandboxed', 'allow sandboxed sandboxed'],
    'unsafe|justified': ['ask escalation unsandboxed', 'ask escalation unsandboxed', 'deny escalation-denied unsandboxed'],
    'unsafe|unjustified': [
      'deny escalation-needs-justification unsandboxed',
      'deny escalation-needs-justification unsandboxed',
      'deny escalation-needs-justification unsandboxed',
    ],
    'unclassified|none': ['ask policy-untrusted sandboxed', 'allow sandboxed sandboxed', 'allow sandboxed sandboxed'],
  };
  const withoutSandbox: Record<string, readonly [string, string, string]> = {
    'safe|none': ['allow known-safe unsandboxed', 'allow known-safe unsandboxed', 'allow known-safe unsandboxed'],
    'safe|justified': ['allow known-safe unsandboxed', 'allow known-safe unsandboxed', 'allow known-safe unsandboxed'],
    'safe|unjustified': ['allow known-safe unsandboxed', 'allow known-safe unsandboxed', 'allow known-safe unsandboxed'],
    'unsafe|none': ['ask sandbox-unavailable unsandboxed', 'deny sandbox-unavailable unsandboxed', 'deny sandbox-unavailable unsandboxed'],
    'unsafe|justified': ['ask sandbox-unavailable unsandboxed', 'ask escalation unsandboxed', 'deny sandbox-unavailable unsandboxed'],
    'unsafe|unjustified': [
      'ask sandbox-unavailable unsandboxed',
      'deny escalation-needs-justification unsandboxed',
      'deny sandbox-unavailable unsandboxed',
    ],
    'unclassified|none': [
      'ask sandbox-unavailable unsandboxed',
      'deny sandbox-unavailable unsandboxed',
      'deny sandbox-unavailable unsandboxed',
    ],
  };
  // danger-full-access: escalation plays no part; the sandbox only where 'untrusted' would ask,
  // since known safe skips the approval, never the sandbox.
  const danger: Record<string, readonly [string, string, string]> = {
    safe: ['allow known-safe unsandboxed', 'allow known-safe unsandboxed', 'allow known-safe unsandboxed'],
    'safe-with-sandbox': ['allow known-safe sandboxed', 'allow known-safe unsandboxed', 'allow known-safe unsandboxed'],
    unsafe: ['ask policy-untrusted unsandboxed', 'allow danger-full-access unsandboxed', 'allow danger-full-access unsandboxed'],
    unclassified: ['ask policy-untrusted unsandboxed', 'allow danger-full-access unsandboxed', 'allow danger-full-access unsandboxed'],
  };
  const safety = { safe: SAFE, unsafe: UNSAFE, unclassified: null } as const;

  function row(mode: SandboxMode, sandboxAvailable: boolean, kind: keyof typeof safety, escalation: Escalation): string[] {
    return POLICIES.map((approvalPolicy) =>
      cell(
        decidePermission(
          { toolName: 'shell', access: exec('some command', escalation), commandSafety: safety[kind] },
          settings({ approvalPolicy, sandbox: mode, sandboxAvailable }),
        ),
      ),
    );
  }

  for (const mode of ['read-only', 'workspace-write'] as const) {
    for (const [available, table] of [
      [true, withSandbox],
      [false, withoutSandbox],
    ] as const) {
      for (const [key, expected] of Object.entries(table)) {
        const [kind, escalation] = key.split('|') as [keyof typeof safety, Escalation];
        it(`${mode}, sandbox ${available ? 'available' : 'unavailable'}: ${key}`, () => {
          assert.deepEqual(row(mode, available, kind, escalation), expected);
        });
      }
    }
  }
  for (const available of [true, false]) {
    for (const [kind, expected] of Object.entries(danger)) {
      if (kind === (available ? 'safe' : 'safe-with-sandbox')) continue;
      const safetyKind = (kind === 'safe-with-sandbox' ? 'safe' : kind) as keyof typeof safety;
      for (const escalation of ['none', 'justified', 'unjustified'] as const) {
        it(`danger-full-access, sandbox ${available ? 'available' : 'unavailable'}: ${safetyKind}|${escalation}`, () => {
          assert.deepEqual(row('danger-full-access', available, safetyKind, escalation), expected);
        });
      }
    }
  }

  it('runs a known-safe command under danger-full-access + untrusted in a read-only, offline sandbox', () => {
    const result = decidePermission(
      { toolName: 'shell', access: exec('ls'), commandSafety: SAFE },
      settings({ approvalPolicy: 'untrusted', sandbox: 'danger-full-access', sandboxAvailable: true, network: true }),
    );
    assert.deepEqual(result.execution, { mode: 'read-only', sandboxed: true, network: false, secretsApproved: false });
  });

  it('runs sandboxed commands in the configured mode and network setting; unsandboxed ones are unrestricted', () => {
    for (const sandbox of ['read-only', 'workspace-write'] as const) {
      for (const network of [false, true]) {
        const result = decidePermission(
          { toolName: 'shell', access: exec('npm test'), commandSafety: UNSAFE },
          settings({ sandbox, network }),
        );
        assert.deepEqual(result.execution, { mode: sandbox, sandboxed: true, network, secretsApproved: false });
      }
    }
    const escalated = decidePermission({ toolName: 'shell', access: exec('npm i', 'justified'), commandSafety: UNSAFE }, settings());
    assert.deepEqual(escalated.execution, { mode: 'workspace-write', sandboxed: false, network: true, secretsApproved: false });
  });

  it('never marks secrets approved without an approval', () => {
    for (const approvalPolicy of APPROVAL_POLICIES) {
      for (const access of [exec('npm test'), exec('npm i', 'justified'), { kind: 'read', paths: [`${root}/.env`] } as ToolAccess]) {
        const result = decidePermission({ toolName: 't', access, commandSafety: UNSAFE }, settings({ approvalPolicy }));
        assert.equal(result.execution.secretsApproved, false);
      }
    }
  });

  it('denies a working directory outside the root', () => {
    const result = decidePermission(
      { toolName: 'shell', access: exec('ls', 'none', '/tmp'), commandSafety: SAFE },
      settings({ sandbox: 'danger-full-access' }),
    );
    assert.equal(cell(result), 'deny path-outside-root unsandboxed');
  });

  it('explains how to get a sandbox when none is available', () => {
    const result = decidePermission(
      { toolName: 'shell', access: exec('npm test'), commandSafety: UNSAFE },
      settings({ sandboxAvailable: false }),
    );
    assert.ok(result.reason.includes(SANDBOX_UNAVAILABLE_HINT));
    assert.match(SANDBOX_UNAVAILABLE_HINT, /apt-get install bubblewrap/);
    assert.match(SANDBOX_UNAVAILABLE_HINT, /--sandbox danger-full-access/);
    assert.match(result.reason, /npm is not on the allowlist/);
  });

  it('tells the model how to proceed when an escalation is refused', () => {
    const never = decidePermission(
      { toolName: 'shell', access: exec('npm i', 'justified'), commandSafety: UNSAFE },
      settings({ approvalPolicy: 'never' }),
    );
    assert.match(never.reason, /without escalate/);
    const unjustified = decidePermission({ toolName: 'shell', access: exec('npm i', 'unjustified'), commandSafety: UNSAFE }, settings());
    assert.match(unjustified.reason, /justification/);
  });

  it('allows tools that touch nothing', () => {
    for (const approvalPolicy of APPROVAL_POLICIES) {
      const result = decidePermission({ toolName: 'todo', access: { kind: 'none' }, commandSafety: null }, settings({ approvalPolicy }));
      assert.equal(`${result.decision} ${result.rule}`, 'allow no-access');
    }
  });

  it('rejects relative paths from a tool with a clear error', () => {
    assert.throws(
      () => decidePermission({ toolName: 'read_file', access: { kind: 'read', paths: ['src/a.ts'] }, commandSafety: null }, settings()),
      /read path must be an absolute path/,
    );
    assert.throws(
      () => decidePermission({ toolName: 'shell', access: exec('ls', 'none', 'src'), commandSafety: SAFE }, settings()),
      /exec workdir must be an absolute path/,
    );
    assert.throws(
      () => decidePermission({ toolName: 'todo', access: { kind: 'none' }, commandSafety: null }, settings({ root: '.' })),
      /settings.root must be an absolute path/,
    );
  });
});

describe('isToolVisible', () => {
  const writer = { name: 'write_file', readOnly: false };
  const reader = { name: 'read_file', readOnly: true };
  const shellByName = { name: 'shell', readOnly: false };
  const shellByFlag = { name: 'run', readOnly: false, runsCommands: true };
  for (const approvalPolicy of APPROVAL_POLICIES) {
    for (const sandbox of ['read-only', 'workspace-write', 'danger-full-access'] as const) {
      it(`${approvalPolicy} / ${sandbox}`, () => {
        const hidden = approvalPolicy === 'never' && sandbox === 'read-only';
        assert.equal(isToolVisible(writer, { approvalPolicy, sandbox }), !hidden);
        assert.equal(isToolVisible(reader, { approvalPolicy, sandbox }), true);
        assert.equal(isToolVisible(shellByName, { approvalPolicy, sandbox }), true);
        assert.equal(isToolVisible(shellByFlag, { approvalPolicy, sandbox }), true);
      });
    }
  }

  it('agrees with decidePermission: a hidden tool is one whose every write is denied', () => {
    const hiddenSettings = settings({ approvalPolicy: 'never', sandbox: 'read-only' });
    const result = decidePermission(
      { toolName: 'write_file', access: { kind: 'write', paths: [`${root}/a.ts`] }, commandSafety: null },
      hiddenSettings,
    );
    assert.equal(result.decision, 'deny');
    assert.equal(isToolVisible(writer, hiddenSettings), false);
  });
});

describe('decidePermission: commands that read a secret file by name', () => {
  it('ask in every mode (never: deny), and a grant covers only that exact command', async () => {
    const { loadCommandClassifier } = await import('../../src/permissions/index.js');
    const classifier = await loadCommandClassifier();
    for (const command of ['git show HEAD:.env', 'git log -p -- .env', 'git diff HEAD~1 -- deploy/server.key']) {
      const verdict = classifier.classify(command, { root });
      assert.ok((verdict.secretReads ?? []).length > 0, command);
      for (const sandbox of ['read-only', 'workspace-write', 'danger-full-access'] as const) {
        const got = POLICIES.map((approvalPolicy) =>
          cell(
            decidePermission({ toolName: 'shell', access: exec(command), commandSafety: verdict }, settings({ approvalPolicy, sandbox })),
          )
            .split(' ')
            .slice(0, 2)
            .join(' '),
        );
        // 'untrusted' asks before any command that is not known safe anyway.
        assert.deepEqual(got.slice(1), ['ask secret-file', 'deny secret-file'], `${command} ${sandbox}`);
        assert.match(got[0]!, /^ask /, `${command} ${sandbox}`);
      }
    }
    const grants = new SessionGrants();
    const input = (command: string) => ({
      toolName: 'shell',
      access: exec(command),
      commandSafety: classifier.classify(command, { root }),
    });
    grants.add(input('git show HEAD:.env'));
    const granted = settings({ sessionGrants: grants });
    assert.equal(decidePermission(input('git show HEAD:.env'), granted).rule, 'session-grant');
    assert.equal(decidePermission(input('git show HEAD:secrets/.env.production'), granted).rule, 'secret-file');
    assert.equal(classifier.classify('git show HEAD:src/a.ts', { root }).secretReads, undefined);
  });

  it('a secret file in the work tree asks only where the sandbox does not mask it', async () => {
    const { loadCommandClassifier } = await import('../../src/permissions/index.js');
    const classifier = await loadCommandClassifier();
    const input = { toolName: 'shell', access: exec('cat .env'), commandSafety: classifier.classify('cat .env', { root }) };
    assert.deepEqual(input.commandSafety.secretReads, [{ path: '.env', from: 'file' }]);
    assert.equal(cell(decidePermission(input, settings({ sandbox: 'workspace-write' }))), 'allow sandboxed sandboxed');
    assert.equal(decidePermission(input, settings({ sandbox: 'danger-full-access' })).rule, 'secret-file');
  });
});

describe('decidePermission: a project not fully checked for planted git metadata', () => {
  it('asks before git (or a command whose programs cannot be read off it) runs outside the sandbox', async () => {
    const { loadCommandClassifier } = await import('../../src/permissions/index.js');
    const classifier = await loadCommandClassifier();
    const decide = (command: string, overrides: Parameters<typeof settings>[0]) =>
      decidePermission(
        { toolName: 'shell', access: exec(command), commandSafety: classifier.classify(command, { root }) },
        settings({ projectUnverified: true, ...overrides }),
      );
    const full = { sandbox: 'danger-full-access' } as const;
    assert.equal(decide('git status', full).rule, 'project-unverified');
    assert.equal(decide('npm test && git commit -m x', full).rule, 'project-unverified');
    assert.equal(decide('$(echo git) status', full).rule, 'project-unverified');
    assert.equal(decide('git status', { ...full, approvalPolicy: 'never' }).decision, 'deny');
    assert.equal(decide('npm test', full).rule, 'danger-full-access', 'a literal command without git is unaffected');
    assert.equal(decide('git status', {}).rule, 'known-safe', 'inside the sandbox git is contained');
    assert.equal(decide('git status', { ...full, projectUnverified: false }).rule, 'danger-full-access');
  });
});

describe('decidePermission: the everyday commands of a coding session', () => {
  it('run without asking in workspace-write (on-request), in the sandbox', async () => {
    const { loadCommandClassifier } = await import('../../src/permissions/index.js');
    const classifier = await loadCommandClassifier();
    for (const command of [
      'ls',
      'ls -la src',
      'cat README.md',
      'rg -n "TODO" src',
      'git status',
      'git diff',
      'git log --oneline -10',
      'npm test',
      'npm run build && npm test',
      'grep -rn foo src | head -20',
    ]) {
      const result = decidePermission(
        { toolName: 'shell', access: exec(command), commandSafety: classifier.classify(command, { root }) },
        settings({ sandbox: 'workspace-write', approvalPolicy: 'on-request' }),
      );
      assert.equal(result.decision, 'allow', command);
      assert.equal(result.execution.sandboxed, true, command);
    }
  });
});
