// A project's MCP server the user pinned runs on the host, unsandboxed; the project is writable
// from the sandbox. The pin (a fingerprint) must cover the files the server runs, not just its
// command line: a sandboxed command that rewrites the server's script, or plants the interpreter
// its PATH finds first, must leave the server stopped, with the user told why. The server here is
// a real one on @modelcontextprotocol/sdk, and the edit is made by a real sandboxed command.

import assert from 'node:assert/strict';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { RunEvent } from '../../src/agent/index.js';
import { readMcpConfig, startMcpTools, userConfigPath } from '../../src/mcp/index.js';
import { detectSandbox, runCommand } from '../../src/sandbox/index.js';
import { sentToolNames, withMcpWorld, type McpWorld } from './mcp-harness.js';

const SDK = fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/sdk/dist/esm/server/', import.meta.url));

/** A real MCP server with one tool, `version`; each start appends its version to `$MARKS`. */
function serverScript(version: string): string {
  return `import { appendFileSync } from 'node:fs';
import { McpServer } from ${JSON.stringify(pathToFileURL(join(SDK, 'mcp.js')).href)};
import { StdioServerTransport } from ${JSON.stringify(pathToFileURL(join(SDK, 'stdio.js')).href)};
appendFileSync(process.env.MARKS, ${JSON.stringify(`${version}\n`)});
const server = new McpServer({ name: 'notes', version: '1.0.0' });
server.registerTool('version', { description: 'Says which version runs.' }, async () => ({ content: [{ type: 'text', text: ${JSON.stringify(version)} }] }));
await server.connect(new StdioServerTransport());
`;
}

/** The user's pin for every project server the warning names, as the warning gives it. */
async function pinAsTold(world: McpWorld): Promise<void> {
  const config = await readMcpConfig(world.home, world.root);
  const notice = config.warnings.find((warning) => warning.code === 'MCP_PROJECT_SERVER_NOT_ENABLED');
  assert.ok(notice, JSON.stringify(config.warnings));
  const marker = '"projectMcpServers": ';
  await world.writeUserConfig({ projectMcpServers: JSON.parse(notice.message.slice(notice.message.indexOf(marker) + marker.length)) });
}

async function marks(world: McpWorld): Promise<string[]> {
  return (await readFile(join(world.home, 'marks'), 'utf8').catch(() => '')).split('\n').filter(Boolean);
}

function warningsOf(events: readonly RunEvent[]): { code: string; message: string }[] {
  return events.flatMap((event) => (event.type === 'warning' ? [{ code: event.code, message: event.message }] : []));
}

async function sandboxed(root: string, command: string): Promise<void> {
  const sandbox = await detectSandbox();
  assert.equal(sandbox.available, true, 'bubblewrap must work here (CI installs it)');
  const result = await runCommand({
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
      glassboxHome: '/nonexistent-home',
    },
    timeoutMs: 30_000,
  });
  assert.equal(result.exitCode, 0, result.output.text);
}

describe("a pinned project server's fingerprint covers the files it runs", { concurrency: true }, () => {
  test('its script edited from the sandbox after pinning: the server does not start, and the warning says why', async () => {
    await withMcpWorld([{ text: 'first' }, { text: 'second' }], async (world) => {
      await writeFile(join(world.root, 'server.mjs'), serverScript('v1'));
      await world.writeProjectConfig({
        mcpServers: {
          notes: { command: process.execPath, args: ['server.mjs'], env: { MARKS: join(world.home, 'marks') }, stopGraceSec: 0.2 },
        },
      });
      const unpinned = await readMcpConfig(world.home, world.root);
      assert.match(unpinned.warnings[0]!.message, /the fingerprint covers the contents of server\.mjs/);
      await pinAsTold(world);

      await world.turn();
      assert.ok(sentToolNames(world.provider, 0).includes('mcp__notes__version'), sentToolNames(world.provider, 0).join(' '));
      assert.deepEqual(await marks(world), ['v1']);

      // The command line stays the same; only the script changes, from inside the sandbox.
      await sandboxed(world.root, `sed -i 's/v1/v2/g' server.mjs && grep -c v2 server.mjs`);
      const { events } = await world.turn();
      const changed = warningsOf(events).find((warning) => warning.code === 'MCP_PROJECT_SERVER_CHANGED');
      assert.ok(changed, JSON.stringify(warningsOf(events)));
      assert.match(changed.message, /MCP server "notes" .* is not started: what it runs changed since you enabled it/);
      assert.match(changed.message, /the contents of server\.mjs/);
      assert.ok(changed.message.includes(userConfigPath(world.home)), 'it says where to pin again');
      assert.ok(!sentToolNames(world.provider, 1).includes('mcp__notes__version'));
      assert.deepEqual(await marks(world), ['v1'], 'the edited server never ran');
    });
  });

  test('its script changed between reading the config and starting it: checked again, not started', async () => {
    await withMcpWorld([], async (world) => {
      await writeFile(join(world.root, 'server.mjs'), serverScript('v1'));
      await world.writeProjectConfig({
        mcpServers: {
          notes: { command: process.execPath, args: ['./server.mjs'], env: { MARKS: join(world.home, 'marks') }, stopGraceSec: 0.2 },
        },
      });
      await pinAsTold(world);
      const config = await readMcpConfig(world.home, world.root);
      assert.deepEqual(config.warnings, []);
      await writeFile(join(world.root, 'server.mjs'), serverScript('v2'));
      const tools = await startMcpTools(config, { version: 't' });
      try {
        assert.deepEqual(tools.tools, []);
        assert.match(tools.servers[0]?.failure ?? '', /could not start: what it runs changed since you enabled it/);
        assert.deepEqual(await marks(world), []);
      } finally {
        await tools.close();
      }
    });
  });

  test('an interpreter planted where its PATH looks first (a .venv/bin inside the project) changes the fingerprint', async () => {
    await withMcpWorld([{ text: 'one' }], async (world) => {
      await writeFile(join(world.root, 'server.mjs'), serverScript('v1'));
      // The project's own PATH for the server: its virtualenv first, then the system's node.
      const path = `.venv/bin:${join(process.execPath, '..')}:/usr/bin:/bin`;
      await world.writeProjectConfig({
        mcpServers: {
          notes: { command: 'node', args: ['server.mjs'], env: { PATH: path, MARKS: join(world.home, 'marks') }, stopGraceSec: 0.2 },
        },
      });
      await pinAsTold(world);
      assert.deepEqual((await readMcpConfig(world.home, world.root)).warnings, []);
      await sandboxed(
        world.root,
        `mkdir -p .venv/bin && printf '#!/bin/sh\\necho planted >> "$MARKS"\\nexit 1\\n' > .venv/bin/node && chmod +x .venv/bin/node`,
      );
      const { events } = await world.turn();
      const changed = warningsOf(events).find((warning) => warning.code === 'MCP_PROJECT_SERVER_CHANGED');
      assert.ok(changed, JSON.stringify(warningsOf(events)));
      assert.match(changed.message, /\.venv\/bin\/node/);
      assert.deepEqual(await marks(world), [], 'neither the planted node nor the server ran');
    });
  });

  test('a file it runs that is too large to fingerprint keeps the server stopped', async () => {
    await withMcpWorld([], async (world) => {
      await mkdir(join(world.root, 'bin'));
      await writeFile(join(world.root, 'bin/server.sh'), '#!/bin/sh\nexit 0\n');
      await chmod(join(world.root, 'bin/server.sh'), 0o755);
      await world.writeProjectConfig({ mcpServers: { tool: { command: './bin/server.sh', stopGraceSec: 0.2 } } });
      await pinAsTold(world);
      assert.deepEqual((await readMcpConfig(world.home, world.root)).warnings, []);
      // Grown past what is hashed: it cannot be compared with what was pinned, so it does not run.
      await writeFile(join(world.root, 'bin/server.sh'), `#!/bin/sh\n# ${'x'.repeat(64 * 1024 * 1024)}\n`);
      const config = await readMcpConfig(world.home, world.root);
      const warning = config.warnings.find((entry) => entry.code === 'MCP_PROJECT_SERVER_UNVERIFIABLE');
      assert.ok(warning, JSON.stringify(config.warnings));
      assert.match(warning.message, /bin\/server\.sh is larger than 64 MiB, too large to fingerprint/);
      assert.equal(config.servers[0]?.enabled, false);
    });
  });
});
