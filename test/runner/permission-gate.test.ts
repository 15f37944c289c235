import assert from 'node:assert/strict';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { createPermissionGate } from '../../src/runner/index.js';
import { createReadFileTool, createWriteFileTool } from '../../src/tools/index.js';
import { withTempDir } from '../helpers/temp-dir.js';

function gateFor(root: string, sandbox: 'read-only' | 'workspace-write' = 'workspace-write') {
  return createPermissionGate({
    root,
    home: join(root, '..', 'home'),
    approvalPolicy: 'on-request',
    sandbox,
    network: false,
    detectSandbox: async () => true,
  });
}

test('a symlink to .env is a secret read: asked, not allowed', async () => {
  await withTempDir(async (root) => {
    await writeFile(join(root, '.env'), 'SECRET=1\n');
    await symlink('.env', join(root, 'notes.txt'));
    await writeFile(join(root, 'plain.txt'), 'hello\n');
    const gate = gateFor(root);
    const tool = createReadFileTool();
    const viaLink = await gate.decide({ tool, args: { path: 'notes.txt' }, access: tool.access({ path: 'notes.txt' }, { root }) });
    assert.equal(viaLink.decision, 'ask', viaLink.reason);
    const plain = await gate.decide({ tool, args: { path: 'plain.txt' }, access: tool.access({ path: 'plain.txt' }, { root }) });
    assert.equal(plain.decision, 'allow');
  });
});

test('a symlinked directory into .git makes a write protected', async () => {
  await withTempDir(async (root) => {
    await mkdir(join(root, '.git', 'hooks'), { recursive: true });
    await symlink(join(root, '.git', 'hooks'), join(root, 'h'));
    const gate = gateFor(root);
    const tool = createWriteFileTool();
    const args = { path: 'h/pre-commit', content: '#!/bin/sh\n' };
    const decision = await gate.decide({ tool, args, access: tool.access(args, { root }) });
    assert.equal(decision.decision, 'ask', decision.reason);
    const normal = { path: 'src/new.ts', content: 'x' };
    assert.equal((await gate.decide({ tool, args: normal, access: tool.access(normal, { root }) })).decision, 'allow');
  });
});
