// `glassbox acp` with an editor that holds the files: the built CLI as a child process, driven by
// the official SDK's client, which implements fs/read_text_file and fs/write_text_file over its
// own "buffers". read_file sees the unsaved buffer, write_file writes into the client and not the
// disk, a path outside the project (directly or through a symlink) is refused before the client
// is asked; update_plan becomes `plan` updates; prompt commands and /plan are offered in
// available_commands_update and run.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { PROTOCOL_VERSION, client, methods, ndJsonStream, type SessionNotification, type SessionUpdate } from '@agentclientprotocol/sdk';
import { startFakeProvider, type CapturedRequest } from '../../src/testing/index.js';
import { buildReady } from '../helpers/build-ready.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { cliEnv } from '../helpers/run-cli.js';

const ENTRY = fileURLToPath(new URL('../../bin/glassbox.js', import.meta.url));

const lastMessage = (request: CapturedRequest) => JSON.stringify((request.body.messages as unknown[]).at(-1));
const toolNames = (request: CapturedRequest) =>
  (request.body.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name);

describe('glassbox acp with the editor’s files', () => {
  test('reads the unsaved buffer, writes to the client, refuses outside paths first; plan updates; prompt commands and /plan', async (t) => {
    await buildReady();
    const base = await makeTempDir();
    const root = join(base, 'project');
    const home = join(base, 'home');
    await mkdir(join(root, '.glassbox', 'commands'), { recursive: true });
    await writeFile(join(root, 'a.txt'), 'disk text\n');
    await writeFile(join(base, 'outside.txt'), 'outside secret\n');
    await symlink(join(base, 'outside.txt'), join(root, 'link.txt'));
    await writeFile(
      join(root, '.glassbox', 'commands', 'review.md'),
      '---\ndescription: Review a path\n---\nReview $ARGUMENTS carefully.\n',
    );

    const plan = [
      { step: 'Read a.txt', status: 'completed' },
      { step: 'Write b.txt', status: 'in_progress' },
    ];
    const provider = await startFakeProvider({
      script: [
        { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
        { toolCalls: [{ name: 'write_file', arguments: { path: 'b.txt', content: 'new file\n' } }] },
        { toolCalls: [{ name: 'read_file', arguments: { path: 'link.txt' } }] },
        { toolCalls: [{ name: 'read_file', arguments: { path: join(base, 'outside.txt') } }] },
        { toolCalls: [{ name: 'update_plan', arguments: { plan } }] },
        { text: 'Done.' },
        { text: 'Reviewed.' },
        { toolCalls: [{ name: 'update_plan', arguments: { plan: [{ step: 'Tidy up', status: 'pending' }] } }] },
        { text: 'Plan: tidy up.' },
      ],
    });
    t.after(() => provider.close());
    const child = spawn(
      process.execPath,
      [
        ENTRY,
        'acp',
        '--wire-api',
        'chat',
        '--base-url',
        provider.baseURL,
        '-m',
        'test-model',
        '--sandbox',
        'workspace-write',
        '--approval-policy',
        'never',
      ],
      { env: cliEnv({ OPENAI_API_KEY: 'sk-test', GLASSBOX_HOME: home }), stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise((resolve) => child.on('close', resolve));
    t.after(async () => {
      child.stdin!.end();
      await exited;
    });

    const buffers = new Map<string, string>([[join(root, 'a.txt'), 'unsaved buffer text\n']]);
    const reads: string[] = [];
    const writes: Array<{ path: string; content: string }> = [];
    const updates: SessionNotification[] = [];
    const app = client({ name: 'acp-editor-test' })
      .onNotification(methods.client.session.update, ({ params }) => {
        updates.push(params);
      })
      .onRequest(methods.client.fs.readTextFile, async ({ params }) => {
        reads.push(params.path);
        return { content: buffers.get(params.path) ?? readFileSync(params.path, 'utf8') };
      })
      .onRequest(methods.client.fs.writeTextFile, async ({ params }) => {
        writes.push({ path: params.path, content: params.content });
        buffers.set(params.path, params.content);
        return {};
      });
    const connection = app.connect(
      ndJsonStream(
        Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
        Readable.toWeb(child.stdout!) as unknown as ReadableStream<Uint8Array>,
      ),
    );
    const init = await connection.agent.request(methods.agent.initialize, {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
    });
    assert.equal((init.agentCapabilities?._meta as { glassbox: { editorFileSystem: boolean } }).glassbox.editorFileSystem, true);
    const { sessionId } = await connection.agent.request(methods.agent.session.new, { cwd: root, mcpServers: [] });
    const of = (kind: SessionUpdate['sessionUpdate']) =>
      updates.filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === kind).map((n) => n.update);

    const first = await connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'go' }] });
    assert.equal(first.stopReason, 'end_turn', stderr);
    // The model read the editor's buffer, not the disk.
    assert.match(lastMessage(provider.requests[1]!), /unsaved buffer text/);
    assert.doesNotMatch(lastMessage(provider.requests[1]!), /disk text/);
    // The write went to the client, and the disk has no b.txt.
    assert.deepEqual(writes, [{ path: join(root, 'b.txt'), content: 'new file\n' }]);
    assert.equal(existsSync(join(root, 'b.txt')), false);
    // Outside the project, directly or through a symlink: refused, and the client was never asked.
    assert.match(lastMessage(provider.requests[3]!), /Error \[/);
    assert.match(lastMessage(provider.requests[4]!), /Error \[/);
    assert.doesNotMatch(JSON.stringify(provider.requests.slice(0, 5).map((r) => r.body)), /outside secret/);
    assert.deepEqual(reads, [join(root, 'a.txt')]);
    // The plan, as ACP's plan update.
    const plans = of('plan');
    assert.deepEqual(plans.at(-1), {
      sessionUpdate: 'plan',
      entries: [
        { content: 'Read a.txt', priority: 'medium', status: 'completed' },
        { content: 'Write b.txt', priority: 'medium', status: 'in_progress' },
      ],
    });

    // Commands: the built-ins and the project's prompt command.
    const commands = of('available_commands_update').at(-1);
    assert.ok(commands?.sessionUpdate === 'available_commands_update');
    assert.deepEqual(
      commands.availableCommands.map((c) => c.name),
      ['compact', 'plan', 'review'],
    );
    await connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: '/review src/app.ts' }] });
    assert.match(lastMessage(provider.requests[6]!), /Review src\/app\.ts carefully\./);

    const planned = await connection.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: '/plan tidy the repo' }],
    });
    assert.equal(planned.stopReason, 'end_turn');
    assert.match(lastMessage(provider.requests[7]!), /tidy the repo\\n\\n<plan_mode>/);
    assert.ok(!toolNames(provider.requests[7]!).includes('write_file'));
    assert.deepEqual(of('plan').at(-1), {
      sessionUpdate: 'plan',
      entries: [{ content: 'Tidy up', priority: 'medium', status: 'pending' }],
    });
  });
});
