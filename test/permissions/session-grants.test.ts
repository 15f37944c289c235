import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ToolAccess } from '../../src/agent/index.js';
import {
  SessionGrants,
  decidePermission,
  loadCommandClassifier,
  type PermissionInput,
  type PermissionSettings,
} from '../../src/permissions/index.js';
import { PROJECT_ROOT, permissionSettings } from '../helpers/permission-settings.js';

const root = PROJECT_ROOT;

function settings(grants: SessionGrants, overrides: Partial<PermissionSettings> = {}): PermissionSettings {
  return permissionSettings({ approvalPolicy: 'untrusted', sessionGrants: grants, ...overrides });
}

async function shellInput(command: string, escalate = false): Promise<PermissionInput> {
  const classifier = await loadCommandClassifier();
  const access: ToolAccess = {
    kind: 'exec',
    command,
    workdir: root,
    escalate,
    justification: escalate ? 'needs to install packages' : null,
  };
  return { toolName: 'shell', access, commandSafety: classifier.classify(command, { root }) };
}

function fileInput(kind: 'read' | 'write', path: string, toolName = kind === 'read' ? 'read_file' : 'write_file'): PermissionInput {
  return { toolName, access: { kind, paths: [path] }, commandSafety: null };
}

describe('SessionGrants', () => {
  it('turns a later ask for the same parsed command into an allow, and only that command', async () => {
    const grants = new SessionGrants();
    const first = await shellInput('npm test');
    assert.equal(decidePermission(first, settings(grants)).decision, 'ask');
    assert.deepEqual(grants.add(first), ['shell: npm test']);
    const later = decidePermission(await shellInput("'npm'   test 2>/dev/null"), settings(grants));
    assert.equal(`${later.decision} ${later.rule}`, 'allow session-grant');
    assert.equal(later.execution.sandboxed, true);
    assert.equal(later.execution.secretsApproved, true);
    // Other words can change what a program does (`--script-shell=`): not covered.
    assert.equal(decidePermission(await shellInput('npm test -- --watch=false'), settings(grants)).decision, 'ask');
    assert.equal(decidePermission(await shellInput('npm test --script-shell=/tmp/x'), settings(grants)).decision, 'ask');
    assert.equal(decidePermission(await shellInput('npm run build'), settings(grants)).decision, 'ask');
  });

  it('requires every unsafe program in the string to be granted', async () => {
    const grants = new SessionGrants();
    grants.add(await shellInput('npm test'));
    assert.equal(decidePermission(await shellInput('npm test && rm -rf build'), settings(grants)).decision, 'ask');
    assert.equal(decidePermission(await shellInput('npm test | grep FAIL'), settings(grants)).decision, 'allow');
    grants.add(await shellInput('rm -rf build'));
    assert.equal(decidePermission(await shellInput('npm test && rm -rf build'), settings(grants)).decision, 'allow');
  });

  it('does not cover strings made unsafe by something other than the programs', async () => {
    const grants = new SessionGrants();
    grants.add(await shellInput('npm test'));
    for (const command of ['npm test > /tmp/out', 'CI=1 npm test', 'npm test & sleep 1', 'xargs npm test']) {
      assert.equal(decidePermission(await shellInput(command), settings(grants)).decision, 'ask', command);
    }
  });

  it('grants a structurally unsafe string only for that exact string', async () => {
    const grants = new SessionGrants();
    const approved = await shellInput('npm test > out.txt');
    grants.add(approved);
    assert.equal(decidePermission(approved, settings(grants)).rule, 'session-grant');
    assert.equal(decidePermission(await shellInput('npm test > other.txt'), settings(grants)).decision, 'ask');
  });

  it('falls back to the exact command when no classification was passed', async () => {
    const grants = new SessionGrants();
    const unclassified = { ...(await shellInput('make deploy')), commandSafety: null };
    grants.add(unclassified);
    assert.equal(decidePermission(unclassified, settings(grants)).rule, 'session-grant');
    assert.equal(
      decidePermission({ ...unclassified, access: { ...unclassified.access, command: 'make clean' } as ToolAccess }, settings(grants))
        .decision,
      'ask',
    );
  });

  it('keeps sandboxed and unsandboxed approvals apart', async () => {
    const onRequest = (grants: SessionGrants) => settings(grants, { approvalPolicy: 'on-request' });
    const sandboxedGrant = new SessionGrants();
    sandboxedGrant.add(await shellInput('npm install'));
    const escalated = await shellInput('npm install', true);
    assert.equal(decidePermission(escalated, onRequest(sandboxedGrant)).decision, 'ask');

    const escalatedGrant = new SessionGrants();
    escalatedGrant.add(escalated);
    const again = decidePermission(await shellInput('npm install', true), onRequest(escalatedGrant));
    assert.equal(`${again.decision} ${again.rule}`, 'allow session-grant');
    assert.equal(again.execution.sandboxed, false);
    // An approval to run outside the sandbox covers running the same thing inside it.
    assert.equal(decidePermission(await shellInput('npm install'), settings(escalatedGrant)).rule, 'session-grant');
  });

  it('never overrides a denial', async () => {
    const grants = new SessionGrants();
    const input = await shellInput('npm install', true);
    grants.add(input);
    assert.equal(decidePermission(input, settings(grants, { approvalPolicy: 'never' })).decision, 'deny');
    const unsandboxed = await shellInput('npm test');
    grants.add(unsandboxed);
    assert.equal(
      decidePermission(unsandboxed, settings(grants, { approvalPolicy: 'on-request', sandboxAvailable: false })).decision,
      'deny',
    );
    const secret = fileInput('read', `${root}/.env`);
    grants.add(secret);
    assert.equal(decidePermission(secret, settings(grants, { approvalPolicy: 'never' })).decision, 'deny');
  });

  it('grants files per tool, access kind and exact path', () => {
    const grants = new SessionGrants();
    const secret = fileInput('read', `${root}/.env`);
    grants.add(secret);
    const allowed = decidePermission(secret, settings(grants));
    assert.equal(`${allowed.decision} ${allowed.rule}`, 'allow session-grant');
    assert.equal(allowed.execution.secretsApproved, true);
    assert.equal(decidePermission(fileInput('read', `${root}/.env.local`), settings(grants)).decision, 'ask');
    assert.equal(decidePermission(fileInput('read', `${root}/.env`, 'grep'), settings(grants)).decision, 'ask');
    assert.equal(decidePermission(fileInput('write', `${root}/.env`), settings(grants)).decision, 'ask');

    const hook = fileInput('write', `${root}/.git/hooks/pre-commit`, 'edit_file');
    grants.add(hook);
    assert.equal(decidePermission(hook, settings(grants, { sandbox: 'danger-full-access' })).rule, 'session-grant');
  });

  it('describes what a grant would cover without recording it', async () => {
    const grants = new SessionGrants();
    assert.deepEqual(grants.describe(await shellInput('npm install', true)), ['shell: npm install (outside the sandbox)']);
    assert.deepEqual(grants.describe(await shellInput('echo hi > f')), [`shell: exactly \`echo hi > f\` in ${root}`]);
    assert.deepEqual(grants.describe({ toolName: 'todo', access: { kind: 'none' }, commandSafety: null }), []);
    assert.equal(grants.size, 0);
    assert.equal(grants.matches({ toolName: 'todo', access: { kind: 'none' }, commandSafety: null }), false);
  });
});
