// The CLI processes themselves: `exec` with an MCP server and a trace endpoint exits cleanly with
// no server process left behind and its trace delivered; `mcp list`; `trace` of a recorded session.

import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startFakeProvider } from '../../src/testing/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { cliEnv, jsonLines, runCli, type CliResult } from '../helpers/run-cli.js';
import { startOtlpReceiver, spanTree } from '../helpers/otlp-receiver.js';
import { BROKEN_SERVER, isAlive, readPids } from '../mcp/mcp-harness.js';

// Own temp dirs, providers and receivers each: the tests run side by side.
describe('glassbox exec / mcp list / trace (processes)', { concurrency: true }, () => {
  test('exec with an MCP server and OTEL_EXPORTER_OTLP_ENDPOINT: the task uses the MCP tool, the process exits 0, no server is left, the trace arrives', async () => {
    const base = await makeTempDir();
    const root = join(base, 'project');
    const home = join(base, 'home');
    await mkdir(root, { recursive: true });
    await mkdir(home, { recursive: true });
    const pidFile = join(base, 'pids');
    // Stubborn (ignores EOF and SIGTERM) with a grandchild: the hardest server to clean up after.
    // A short grace to each stop step, so the test does not sit out the default (that the default
    // is waited: test/mcp/stdio-transport.test.ts).
    const server = {
      command: process.execPath,
      args: [BROKEN_SERVER],
      env: { BROKEN_PID_FILE: pidFile, BROKEN_MODE: 'stubborn', BROKEN_CHILD: '1' },
      stopGraceSec: 0.05,
    };
    await writeFile(join(home, 'config.json'), JSON.stringify({ mcpServers: { notes: { ...server, trustedTools: ['ok'] } } }));
    const provider = await startFakeProvider({
      script: [{ toolCalls: [{ name: 'mcp__notes__ok', arguments: { text: 'from the model' } }] }, { text: 'The server said ok.' }],
    });
    const receiver = await startOtlpReceiver();
    try {
      const result = await runCli(
        ['exec', '--json', '--base-url', provider.baseURL, '-m', 'gpt-5-mini', '-C', root, 'use', 'the', 'notes', 'server'],
        cliEnv({
          OPENAI_API_KEY: 'sk-test',
          GLASSBOX_HOME: home,
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_SERVICE_NAME: 'glassbox-cli-test',
        }),
      );
      assert.equal(result.code, 0, result.stderr);
      const events = jsonLines(result.stdout);
      const finished = events.find((event) => event.type === 'tool_finished');
      assert.equal(finished?.output, 'ok: from the model');
      assert.equal(events.find((event) => event.type === 'tool_permission_decided')?.rule, 'mcp-trusted');
      const pids = await readPids(pidFile);
      assert.equal(pids.length, 2);
      for (const pid of pids) assert.equal(isAlive(pid), false, `process ${pid} outlived glassbox`);
      const spans = await receiver.waitForSpans(6);
      assert.equal(spans[0]!.resource['service.name'], 'glassbox-cli-test');
      assert.deepEqual(spanTree(spans), [
        'invoke_agent glassbox',
        '  round 1',
        '    chat gpt-5-mini',
        '    execute_tool mcp__notes__ok',
        '      exec mcp__notes__ok',
        '  round 2',
        '    chat gpt-5-mini',
      ]);
      const tool = spans.find((span) => span.name === 'execute_tool mcp__notes__ok')!;
      assert.equal(tool.attributes['gen_ai.tool.type'], 'extension');

      // The recorded session, exported again after the fact (and once to nobody, at the same time).
      const later = await startOtlpReceiver();
      let unreachable: CliResult;
      try {
        let traced: CliResult;
        [traced, unreachable] = await Promise.all([
          runCli(['trace', 'last', '--otlp-endpoint', later.url, '--home', home], cliEnv({})),
          runCli(['trace', 'last', '--otlp-endpoint', 'http://127.0.0.1:9', '--home', home], cliEnv({})),
        ]);
        assert.equal(traced.code, 0, traced.stderr);
        assert.match(traced.stdout, /^Exported 7 spans of 1 turn of session \S+ to http:\/\/127\.0\.0\.1:\d+\/v1\/traces\n$/);
        assert.deepEqual(spanTree(await later.waitForSpans(7)), spanTree(spans));
      } finally {
        await later.close();
      }
      assert.equal(unreachable.code, 1);
      assert.match(unreachable.stderr, /the export to http:\/\/127\.0\.0\.1:9\/v1\/traces failed/);
    } finally {
      await provider.close();
      await receiver.close();
    }
  });

  test('mcp list: servers, state and tools, and a bad config is a usage error', async () => {
    const base = await makeTempDir();
    const home = join(base, 'home');
    await mkdir(home, { recursive: true });
    await writeFile(
      join(home, 'config.json'),
      JSON.stringify({
        mcpServers: {
          notes: { command: process.execPath, args: [BROKEN_SERVER], trustedTools: ['ok'] },
          dead: { command: process.execPath, args: [BROKEN_SERVER], env: { BROKEN_MODE: 'exit-on-start' } },
        },
      }),
    );
    const badHome = join(base, 'bad-home');
    await mkdir(badHome, { recursive: true });
    await writeFile(join(badHome, 'config.json'), JSON.stringify({ mcpServers: { notes: { comand: 'x' } } }));
    const emptyHome = join(base, 'empty-home');
    await mkdir(emptyHome, { recursive: true });
    const [result, bad, none] = await Promise.all([
      runCli(['mcp', 'list', '--home', home, '-C', base], cliEnv({})),
      runCli(['mcp', 'list', '--home', badHome], cliEnv({})),
      runCli(['mcp', 'list', '-C', base], cliEnv({ GLASSBOX_HOME: emptyHome })),
    ]);
    // The message names the files it read, GLASSBOX_HOME's included, not a default path.
    assert.equal(none.code, 0);
    assert.equal(
      none.stdout,
      `No MCP servers configured (mcpServers in ${join(emptyHome, 'config.json')} or ${join(base, '.glassbox', 'config.json')}).\n`,
    );
    assert.equal(result.code, 1, 'a server that fails to start fails the listing');
    assert.match(result.stdout, /^notes {2}\[ready\] {2}user config {2}stdio: /m);
    assert.match(result.stdout, /^ {2}mcp__notes__ok {2}\(trusted\)$/m);
    assert.match(result.stdout, /^dead {2}\[failed\]/m);
    assert.match(result.stdout, /could not start: .*exited with code 7/);

    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /mcpServers\.notes: needs either command/);
  });
});
