import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { McpConfigError } from '../../src/mcp/index.js';
import {
  BROKEN_SERVER,
  EVERYTHING_SERVER,
  FILESYSTEM_SERVER,
  decisions,
  isAlive,
  outputs,
  readPids,
  sentToolNames,
  withMcpWorld,
} from './mcp-harness.js';

const call = (name: string, args: Record<string, unknown> = {}) => ({ name, arguments: args });

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address ? address.port : 0;
}

// Each test has its own temp dirs, provider and servers, so they run side by side. The one
// process-wide change, OPENAI_API_KEY in the first test, is what its server must not see; no
// other test reads it (their gateways get their key passed in).
describe('MCP servers as tools', { concurrency: true }, () => {
  test('stdio (server-everything): tools are offered as mcp__<server>__<tool> and run under our permissions; approvals name server, tool and arguments', async () => {
    const secret = 'sk-test-secret-never-passed-on-0123456789';
    const saved = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = secret;
    try {
      await withMcpWorld(
        [
          {
            toolCalls: [
              call('mcp__everything__echo', { message: 'hello' }),
              call('mcp__everything__get-env'),
              call('mcp__everything__get-structured-content', { location: 'New York' }),
            ],
          },
          { toolCalls: [call('mcp__everything__toggle-simulated-logging')] },
          { text: 'Done.' },
        ],
        async (world) => {
          await world.writeUserConfig({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'] } } });
          const { result, events, records } = await world.turn();
          assert.equal(result.terminal.type, 'run_succeeded');
          const sent = sentToolNames(world.provider);
          assert.ok(sent.includes('mcp__everything__echo'));
          assert.ok(sent.includes('mcp__everything__get-sum'));
          const byName = outputs(records);
          assert.equal(byName.get('mcp__everything__echo')?.output, 'Echo: hello');
          const env = byName.get('mcp__everything__get-env')!.output;
          assert.match(env, /"PATH"/);
          assert.doesNotMatch(env, new RegExp(secret), 'API keys never reach an MCP server');
          assert.match(byName.get('mcp__everything__get-structured-content')!.output, /temperature/);
          // Read-only tools run freely under on-request; the others ask, with what the call does.
          assert.deepEqual(decisions(events), {
            mcp__everything__echo: 'allow mcp-read-only',
            'mcp__everything__get-env': 'allow mcp-read-only',
            'mcp__everything__get-structured-content': 'allow mcp-read-only',
            'mcp__everything__toggle-simulated-logging': 'ask mcp-tool',
          });
          assert.equal(world.approvals.length, 1);
          assert.equal(
            world.approvals[0]!.summary,
            'mcp__everything__toggle-simulated-logging: MCP server "everything", tool "toggle-simulated-logging", arguments {}',
          );
          assert.equal(byName.get('mcp__everything__toggle-simulated-logging')?.isError, false);
          // Recorded like any tool call: audit records of the decision and the approval.
          assert.ok(
            records.some(
              (record) =>
                record.type === 'audit' &&
                record.event.type === 'approval_resolved' &&
                record.event.name === 'mcp__everything__toggle-simulated-logging',
            ),
          );
        },
      );
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
    }
  });

  test('stdio (server-filesystem): read-only tools are allowed, writes are hidden under the never policy', async () => {
    await withMcpWorld([{ toolCalls: [call('mcp__fs__read_text_file', { path: 'README.md' })] }, { text: 'Read it.' }], async (world) => {
      // The project is named by the variable: a user's server does not run in the project directory.
      await world.writeUserConfig({
        mcpServers: { fs: { command: process.execPath, args: [FILESYSTEM_SERVER, '${GLASSBOX_PROJECT_ROOT}'] } },
      });
      const { result, events, records } = await world.turn({ settings: { approvalPolicy: 'never' } });
      assert.equal(result.terminal.type, 'run_succeeded');
      const sent = sentToolNames(world.provider);
      assert.ok(sent.includes('mcp__fs__read_text_file'));
      assert.ok(!sent.includes('mcp__fs__write_file'), 'every write would be denied, so it is not offered');
      assert.deepEqual(decisions(events), { mcp__fs__read_text_file: 'allow mcp-read-only' });
      assert.equal(outputs(records).get('mcp__fs__read_text_file')?.output, '# project\n');
    });
  });

  test('Streamable HTTP (server-everything): a trusted server runs without asking', async () => {
    const port = await freePort();
    const server = spawn(process.execPath, [EVERYTHING_SERVER, 'streamableHttp'], {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        let text = '';
        server.stderr!.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          if (text.includes('listening')) resolve();
        });
        server.once('exit', () => reject(new Error(`server-everything exited: ${text}`)));
      });
      await withMcpWorld(
        [
          { toolCalls: [call('mcp__remote__toggle-simulated-logging'), call('mcp__remote__get-sum', { a: 2, b: 3 })] },
          { text: 'Sum done.' },
        ],
        async (world) => {
          await world.writeUserConfig({ mcpServers: { remote: { url: `http://127.0.0.1:${port}/mcp`, trust: true } } });
          const { result, events, records } = await world.turn();
          assert.equal(result.terminal.type, 'run_succeeded');
          assert.deepEqual(decisions(events), {
            'mcp__remote__toggle-simulated-logging': 'allow mcp-trusted',
            'mcp__remote__get-sum': 'allow mcp-trusted',
          });
          assert.match(outputs(records).get('mcp__remote__get-sum')!.output, /5/);
          assert.equal(world.approvals.length, 0);
        },
      );
    } finally {
      server.kill('SIGKILL');
    }
  });

  test('a broken server: malformed results, a hang, a crash and a server that will not start are errors the model reads; the run goes on and nothing is left running', async () => {
    await withMcpWorld(
      [
        { toolCalls: [call('mcp__broken__malformed'), call('mcp__broken__noisy')] },
        { toolCalls: [call('mcp__broken__hang')] },
        { toolCalls: [call('mcp__broken__crash')] },
        { toolCalls: [call('mcp__broken__ok', { text: 'again' }), call('mcp__stubborn__ok', { text: 'still here' })] },
        { text: 'Coped.' },
      ],
      async (world) => {
        const pidFile = join(world.home, 'pids');
        const broken = {
          command: process.execPath,
          args: [BROKEN_SERVER],
          env: { BROKEN_PID_FILE: pidFile },
          toolTimeoutSec: 1,
          trust: true,
        };
        await world.writeUserConfig({
          mcpServers: {
            broken,
            // A short grace to each stop step (the default's waits: stdio-transport.test.ts).
            // Its call must answer: only `broken`'s hang needs the short timeout (a loaded machine
            // can take more than 1 s to answer).
            stubborn: {
              ...broken,
              env: { BROKEN_PID_FILE: pidFile, BROKEN_MODE: 'stubborn', BROKEN_CHILD: '1' },
              stopGraceSec: 0.05,
              toolTimeoutSec: 30,
            },
            dead: { ...broken, env: { BROKEN_MODE: 'exit-on-start' } },
            missing: { command: 'glassbox-no-such-mcp-server' },
          },
        });
        const { result, events, records } = await world.turn();
        assert.equal(result.terminal.type, 'run_succeeded');
        const warnings = events.filter((event) => event.type === 'warning').map((event) => (event.type === 'warning' ? event.message : ''));
        assert.ok(
          warnings.some((message) => /"dead" could not start: .*exited with code 7.*refusing to start/.test(message)),
          warnings.join('\n'),
        );
        assert.ok(
          warnings.some((message) => /"missing" could not start: command not found: glassbox-no-such-mcp-server/.test(message)),
          warnings.join('\n'),
        );
        assert.ok(
          events.findIndex((event) => event.type === 'warning') > events.findIndex((event) => event.type === 'run_started'),
          'warnings follow run_started',
        );
        const byName = outputs(records);
        assert.match(byName.get('mcp__broken__malformed')!.output, /^Error \[MCP_BAD_RESULT\]: .*content/);
        assert.equal(byName.get('mcp__broken__noisy')!.output, 'answered after the noise');
        assert.match(
          byName.get('mcp__broken__hang')!.output,
          /^Error \[MCP_TIMEOUT\]: MCP server "broken" did not answer the hang call within 1 s/,
        );
        assert.match(byName.get('mcp__broken__crash')!.output, /^Error \[MCP_SERVER_CRASHED\]: .*exited with code 3.*crashing on purpose/);
        assert.match(byName.get('mcp__broken__ok')!.output, /^Error \[MCP_SERVER_UNAVAILABLE\]/);
        assert.equal(byName.get('mcp__stubborn__ok')!.output, 'ok: still here');
        // The stubborn server ignores EOF and SIGTERM, and its child `sleep` would outlive it.
        const pids = await readPids(pidFile);
        assert.equal(pids.length, 3, 'broken, stubborn and its child wrote their pids');
        for (const pid of pids) assert.equal(isAlive(pid), false, `process ${pid} was left running`);
      },
    );
  });

  test("a tool whose schema is huge (6.3 MB) or nests 100,000 deep is not offered, with a warning; the server's other tools are", async () => {
    await withMcpWorld([{ toolCalls: [call('mcp__big__ok', { text: 'small' })] }, { text: 'Done.' }], async (world) => {
      await world.writeUserConfig({
        mcpServers: {
          big: {
            command: process.execPath,
            args: [BROKEN_SERVER],
            env: { BROKEN_SCHEMA_CHARS: '6300000', BROKEN_SCHEMA_DEPTH: '100000' },
            trust: true,
          },
        },
      });
      const { result, events, records } = await world.turn();
      assert.equal(result.terminal.type, 'run_succeeded', JSON.stringify(result.terminal));
      const offered = sentToolNames(world.provider);
      assert.ok(offered.includes('mcp__big__ok'), offered.join(', '));
      assert.ok(!offered.includes('mcp__big__huge') && !offered.includes('mcp__big__deep'), offered.join(', '));
      // Every request carries the tools: none carried the huge schema.
      for (const request of world.provider.requests) assert.ok(request.rawBody.length < 64 * 1024, `${request.rawBody.length} bytes sent`);
      const warnings = events.flatMap((event) => (event.type === 'warning' ? [`${event.code}: ${event.message}`] : []));
      assert.ok(
        warnings.some((w) =>
          /^MCP_SCHEMA_TOO_LARGE: MCP tool "huge" of server "big" is not offered: its input schema is [\d,]+ characters \(at most 32,768\)/.test(
            w,
          ),
        ),
        warnings.join('\n'),
      );
      assert.ok(
        warnings.some((w) => /^MCP_SCHEMA_TOO_LARGE: MCP tool "deep" of server "big" is not offered/.test(w)),
        warnings.join('\n'),
      );
      assert.equal(outputs(records).get('mcp__big__ok')?.output, 'ok: small');
    });
  });

  test('the schemas of all offered MCP tools together are capped too', async () => {
    await withMcpWorld([{ text: 'Done.' }], async (world) => {
      // Each `huge` schema fits the per-tool cap; together the ten pass the total.
      await world.writeUserConfig({
        mcpServers: {
          many: { command: process.execPath, args: [BROKEN_SERVER], env: { BROKEN_SCHEMA_CHARS: '25000', BROKEN_SCHEMA_TOOLS: '10' } },
        },
      });
      const { events } = await world.turn();
      const offered = sentToolNames(world.provider).filter((name) => name.startsWith('mcp__many__huge'));
      assert.ok(offered.length >= 1 && offered.length < 10, offered.join(', '));
      assert.ok(world.provider.requests[0]!.rawBody.length < 300 * 1024);
      assert.ok(
        events.some(
          (event) =>
            event.type === 'warning' && event.code === 'MCP_SCHEMAS_CAPPED' && /at most 262,144 characters in all/.test(event.message),
        ),
      );
    });
  });

  test('a stdio server answering with one line over 16 MiB is stopped, and the call says why', async () => {
    await withMcpWorld([{ toolCalls: [call('mcp__flood__flood')] }, { text: 'Coped.' }], async (world) => {
      await world.writeUserConfig({
        mcpServers: {
          flood: { command: process.execPath, args: [BROKEN_SERVER], env: { BROKEN_FLOOD_BYTES: String(40 * 1024 * 1024) }, trust: true },
        },
      });
      const { result, records } = await world.turn();
      assert.equal(result.terminal.type, 'run_succeeded');
      assert.match(
        outputs(records).get('mcp__flood__flood')!.output,
        /^Error \[MCP_SERVER_CRASHED\]: MCP server "flood" stopped during the flood call \(the server stopped: .*it sent a message larger than 16 MiB/,
      );
    });
  });

  test('cancelling the run during an MCP call ends it promptly and stops the server', async () => {
    await withMcpWorld([{ toolCalls: [call('mcp__broken__hang')] }], async (world) => {
      const pidFile = join(world.home, 'pids');
      await world.writeUserConfig({
        mcpServers: { broken: { command: process.execPath, args: [BROKEN_SERVER], env: { BROKEN_PID_FILE: pidFile }, trust: true } },
      });
      const controller = new AbortController();
      // Cancelled once the server has the call (it notes that in its pid file), not on a timer.
      const watcher = setInterval(() => {
        if (existsSync(pidFile) && readFileSync(pidFile, 'utf8').includes('hanging')) {
          clearInterval(watcher);
          controller.abort('stop');
        }
      }, 5);
      const { result, records } = await world.turn({ signal: controller.signal }).finally(() => clearInterval(watcher));
      assert.equal(result.terminal.type, 'run_cancelled');
      assert.match(outputs(records).get('mcp__broken__hang')!.output, /CANCELLED|cancelled/);
      for (const pid of await readPids(pidFile)) assert.equal(isAlive(pid), false);
    });
  });

  test("a project's servers start only when the user's config enables them, and are never trusted", async () => {
    await withMcpWorld([{ text: 'done' }, { toolCalls: [call('mcp__proj__ok', { text: 'hi' })] }, { text: 'done' }], async (world) => {
      await world.writeProjectConfig({ mcpServers: { proj: { command: process.execPath, args: [BROKEN_SERVER], trust: true } } });
      const first = await world.turn();
      assert.ok(!sentToolNames(world.provider).some((name) => name.startsWith('mcp__')));
      const notice = first.events.find((event) => event.type === 'warning' && event.code === 'MCP_PROJECT_SERVER_NOT_ENABLED');
      assert.ok(notice && notice.type === 'warning' && notice.message.includes('"projectMcpServers": {'), JSON.stringify(notice));
      // The entry the warning offers, pinned to this project and this command.
      const entry: unknown = JSON.parse(notice.message.slice(notice.message.indexOf('"projectMcpServers": ') + 21));
      await world.writeUserConfig({ projectMcpServers: entry });
      const second = await world.turn();
      assert.ok(second.events.some((event) => event.type === 'warning' && event.code === 'MCP_PROJECT_TRUST_IGNORED'));
      assert.deepEqual(decisions(second.events), { mcp__proj__ok: 'ask mcp-tool' });
      assert.equal(outputs(second.records).get('mcp__proj__ok')?.output, 'ok: hi');
    });
  });

  test("a project's config that cannot be read is ignored with a warning: the turn runs, with the user's own servers", async () => {
    await withMcpWorld([{ toolCalls: [call('mcp__everything__echo', { message: 'still here' })] }, { text: 'Done.' }], async (world) => {
      await world.writeUserConfig({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'] } } });
      // A FIFO no one writes to: before, every run in this checkout ended as a usage error (exit 2).
      const projectFile = join(world.root, '.glassbox', 'config.json');
      execFileSync('mkfifo', [projectFile]);
      const { result, events, records } = await world.turn();
      assert.equal(result.terminal.type, 'run_succeeded', JSON.stringify(result.terminal));
      assert.equal(outputs(records).get('mcp__everything__echo')?.output, 'Echo: still here');
      const warning = events.find((event) => event.type === 'warning' && event.code === 'PROJECT_CONFIG_IGNORED');
      assert.ok(warning?.type === 'warning', JSON.stringify(events.filter((event) => event.type === 'warning')));
      assert.equal(
        warning.message,
        `${projectFile} is not a regular file (a FIFO), so it is not read. The project's config is ignored for this run; your own settings in ${join(world.home, 'config.json')} still apply.`,
      );
      // Recorded in the session too.
      assert.ok(records.some((record) => record.type === 'warning' && record.code === 'PROJECT_CONFIG_IGNORED'));
    });
  });

  test('a bad mcpServers entry is a usage error naming the file and key, before any session starts', async () => {
    await withMcpWorld([], async (world) => {
      await world.writeUserConfig({ mcpServers: { docs: { command: 'x', arg: ['y'] } } });
      await assert.rejects(world.turn(), (error: unknown) => {
        assert.ok(error instanceof McpConfigError);
        assert.equal(error.exitCode, 2);
        assert.equal(error.message, `${join(world.home, 'config.json')}: mcpServers.docs.arg: unknown setting`);
        return true;
      });
      assert.equal(world.provider.requests.length, 0);
    });
  });
});
