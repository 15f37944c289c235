// The tools' session state (which files were read, so edit_file can check nothing changed since)
// lives as long as the runner, per session: a file read in one turn can be edited in the next,
// as an interactive session does turn after turn.

import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { type ApprovalBroker, NO_APPROVER } from '../../src/agent/index.js';
import { runTurn } from '../../src/runner/index.js';
import { startFakeProvider } from '../../src/testing/index.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { openTestRunner } from '../helpers/test-runner.js';

test('a file read in one turn can be edited in the next turn of the same session', async () => {
  await withTempDir(async (root) => {
    await writeFile(join(root, 'notes.md'), 'remember the milk\n');
    const provider = await startFakeProvider({
      script: [
        { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.md' } }] },
        { text: 'Read it.' },
        { toolCalls: [{ name: 'edit_file', arguments: { path: 'notes.md', old_string: 'milk', new_string: 'oat milk' } }] },
        { text: 'Edited.' },
      ],
    });
    try {
      const runner = await openTestRunner(root, provider.baseURL);
      const policy = { sandbox: 'workspace-write' as const, approvalPolicy: 'on-request' as const, network: false };
      const turn = (prompt: string, resume: string | null) =>
        runTurn(runner, { prompt, resume, policy, runId: prompt, signal: new AbortController().signal, approvals: NO_APPROVER });
      const first = await turn('read', null);
      assert.equal(first.terminal.type, 'run_succeeded', JSON.stringify(first.terminal));
      const second = await turn('edit', first.sessionId);
      assert.equal(second.terminal.type, 'run_succeeded', JSON.stringify(second.terminal));
      assert.equal(await readFile(join(root, 'notes.md'), 'utf8'), 'remember the oat milk\n');
      // The policy came with the turns: the runner itself was opened without one.
      await assert.rejects(
        runTurn(runner, { prompt: 'x', runId: 'x', signal: new AbortController().signal, approvals: NO_APPROVER }),
        /no tool policy/,
      );
    } finally {
      await provider.close();
    }
  });
});

test('an approve-for-session grant lasts the session: the next turn of the same session is not asked again', async () => {
  await withTempDir(async (root) => {
    const write = (text: string) => ({ toolCalls: [{ name: 'write_file', arguments: { path: 'notes.md', content: text } }] });
    const provider = await startFakeProvider({
      script: [write('one\n'), { text: 'Wrote.' }, write('two\n'), { text: 'Wrote again.' }, write('three\n'), { text: 'And again.' }],
    });
    try {
      const runner = await openTestRunner(root, provider.baseURL);
      const policy = { sandbox: 'workspace-write' as const, approvalPolicy: 'untrusted' as const, network: false };
      const asked: string[] = [];
      const approvals: ApprovalBroker = {
        async request(request) {
          asked.push(request.toolName);
          return { decision: 'approve_session', message: null, by: 'test' };
        },
      };
      const turn = (prompt: string, resume: string | null) =>
        runTurn(runner, { prompt, resume, policy, runId: prompt, signal: new AbortController().signal, approvals });
      const first = await turn('write one', null);
      assert.equal(first.terminal.type, 'run_succeeded', JSON.stringify(first.terminal));
      assert.deepEqual(asked, ['write_file']);
      const second = await turn('write two', first.sessionId);
      assert.equal(second.terminal.type, 'run_succeeded', JSON.stringify(second.terminal));
      assert.deepEqual(asked, ['write_file'], 'the grant of turn 1 covers turn 2 of the same session');
      assert.equal(await readFile(join(root, 'notes.md'), 'utf8'), 'two\n');
      // Another session starts without it.
      const other = await turn('write three', null);
      assert.equal(other.terminal.type, 'run_succeeded', JSON.stringify(other.terminal));
      assert.deepEqual(asked, ['write_file', 'write_file']);
    } finally {
      await provider.close();
    }
  });
});
