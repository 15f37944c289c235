// `glassbox mcp list`: the configured MCP servers, whether they start, and the tools each offers
// (under which name the model sees them, read-only, trusted, offered or left out). Starts every
// enabled server as a run would, then stops them.

import { type Command, Option } from 'commander';
import { join, resolve } from 'node:path';
import { resolveHome } from './glassbox-home.js';
import { escapeControls } from '../terminal-text/index.js';

interface McpListOptions {
  home?: string;
  cd?: string;
  json?: boolean;
}

export function registerMcpCommand(program: Command, version: string): void {
  const mcp = program.command('mcp').description('Model Context Protocol servers');
  mcp
    .command('list')
    .description('start the configured MCP servers, list their state and tools, and stop them')
    .option('-C, --cd <dir>', 'project root, for its .glassbox/config.json (default: cwd)')
    .addOption(new Option('--home <dir>', 'Glassbox home (default ~/.glassbox)').env('GLASSBOX_HOME'))
    .option('--json', 'print the list as JSON')
    .action(async (options: McpListOptions) => {
      process.exitCode = await mcpList(options, version);
    });
}

async function mcpList(options: McpListOptions, version: string): Promise<number> {
  const { readMcpConfig, startMcpTools } = await import('../mcp/index.js');
  const root = resolve(options.cd ?? process.cwd());
  const home = resolveHome(options.home);
  const config = await readMcpConfig(home, root);
  const set = await startMcpTools(config, { version });
  try {
    if (options.json) {
      process.stdout.write(
        `${JSON.stringify({ servers: set.servers.map(({ pid: _pid, ...server }) => server), warnings: set.warnings }, null, 2)}\n`,
      );
      return set.servers.some((server) => server.state === 'failed') ? 1 : 0;
    }
    if (set.servers.length === 0) {
      // The files actually read: with --home or GLASSBOX_HOME the user's file is not ~/.glassbox's.
      const files = [join(home, 'config.json'), join(root, '.glassbox', 'config.json')].map((file) => escapeControls(file));
      process.stdout.write(`No MCP servers configured (mcpServers in ${files[0]} or ${files[1]}).\n`);
    }
    for (const server of set.servers) {
      process.stdout.write(`${server.name}  [${server.state}]  ${server.source} config  ${escapeControls(server.transport)}\n`);
      if (server.failure) process.stdout.write(`  ${escapeControls(server.failure)}\n`);
      for (const tool of server.tools) {
        const flags = [tool.readOnly ? 'read-only' : null, tool.trusted ? 'trusted' : null, tool.offered ? null : 'not offered']
          .filter(Boolean)
          .join(', ');
        process.stdout.write(`  ${escapeControls(tool.exposedAs)}${flags ? `  (${flags})` : ''}\n`);
      }
    }
    for (const warning of set.warnings) process.stderr.write(`glassbox: warning [${warning.code}]: ${escapeControls(warning.message)}\n`);
    return set.servers.some((server) => server.state === 'failed') ? 1 : 0;
  } finally {
    await set.close();
  }
}
