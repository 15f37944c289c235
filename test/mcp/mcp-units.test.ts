import assert from 'node:assert/strict';
import { mkdir, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { ToolAccess } from '../../src/agent/index.js';
import { summarizeAccess } from '../../src/agent/index.js';
import {
  McpConfigError,
  createMcpTool,
  formatMcpResult,
  mcpParameters,
  mcpServerFingerprint,
  mcpToolName,
  parseMcpServers,
  readMcpConfig,
  shortDescription,
} from '../../src/mcp/index.js';
import {
  SessionGrants,
  decidePermission,
  isToolVisible,
  type ApprovalPolicy,
  type PermissionSettings,
} from '../../src/permissions/index.js';
import { prepareRunExtensions } from '../../src/runner/run-extensions.js';
import { withTempDir } from '../helpers/temp-dir.js';

const ROOT = '/work/project';

function settings(approvalPolicy: ApprovalPolicy, sessionGrants = new SessionGrants()): PermissionSettings {
  return {
    root: ROOT,
    approvalPolicy,
    sandbox: 'workspace-write',
    sandboxAvailable: true,
    network: false,
    glassboxHome: '/home/me/.glassbox',
    sessionGrants,
  };
}

const mcp = (readOnly: boolean, trusted: boolean, tool = 'search'): ToolAccess => ({
  kind: 'mcp',
  server: 'docs',
  tool,
  readOnly,
  trusted,
});

describe('MCP permissions (docs/permissions.md, `mcp` rows)', () => {
  const cases: [string, ToolAccess, Record<ApprovalPolicy, string>][] = [
    ['trusted', mcp(false, true), { untrusted: 'allow mcp-trusted', 'on-request': 'allow mcp-trusted', never: 'allow mcp-trusted' }],
    [
      'read-only, not trusted',
      mcp(true, false),
      { untrusted: 'ask policy-untrusted', 'on-request': 'allow mcp-read-only', never: 'allow mcp-read-only' },
    ],
    ['neither', mcp(false, false), { untrusted: 'ask policy-untrusted', 'on-request': 'ask mcp-tool', never: 'deny mcp-tool' }],
  ];
  for (const [label, access, expected] of cases) {
    for (const policy of ['untrusted', 'on-request', 'never'] as const) {
      test(`${label} × ${policy}`, () => {
        for (const sandbox of ['read-only', 'workspace-write', 'danger-full-access'] as const) {
          const result = decidePermission({ toolName: 'mcp__docs__search', access, commandSafety: null }, { ...settings(policy), sandbox });
          assert.equal(`${result.decision} ${result.rule}`, expected[policy], sandbox);
          assert.equal(result.execution.sandboxed, false);
        }
      });
    }
  }

  test('approve for session covers that tool of that server, with any arguments, and never a deny', () => {
    const grants = new SessionGrants();
    const input = { toolName: 'mcp__docs__search', access: mcp(false, false), commandSafety: null };
    assert.deepEqual(grants.add(input), ['mcp__docs__search: any call']);
    assert.equal(decidePermission(input, settings('on-request', grants)).rule, 'session-grant');
    assert.equal(
      decidePermission({ ...input, toolName: 'mcp__docs__other', access: mcp(false, false, 'other') }, settings('on-request', grants))
        .decision,
      'ask',
    );
    assert.equal(decidePermission(input, settings('never', grants)).decision, 'deny');
  });

  test('visibility: an MCP tool every call to which is denied is not offered', () => {
    const tool = (access: ToolAccess) => ({
      name: 'mcp__docs__search',
      readOnly: access.kind === 'mcp' && access.readOnly,
      fixedAccess: access,
    });
    assert.equal(isToolVisible(tool(mcp(false, false)), { sandbox: 'workspace-write', approvalPolicy: 'never' }), false);
    assert.equal(isToolVisible(tool(mcp(false, true)), { sandbox: 'read-only', approvalPolicy: 'never' }), true);
    assert.equal(isToolVisible(tool(mcp(true, false)), { sandbox: 'read-only', approvalPolicy: 'never' }), true);
    assert.equal(isToolVisible(tool(mcp(false, false)), { sandbox: 'read-only', approvalPolicy: 'on-request' }), true);
  });

  test('the approval summary names server, tool and (clipped) arguments', () => {
    assert.equal(
      summarizeAccess('mcp__docs__search', mcp(false, false), '{"q":"x"}'),
      'mcp__docs__search: MCP server "docs", tool "search", arguments {"q":"x"}',
    );
    assert.match(
      summarizeAccess('mcp__docs__search', mcp(false, false), JSON.stringify({ q: 'x'.repeat(1000) })),
      /\.\.\. \(1008 characters\)$/,
    );
  });
});

describe('MCP config', () => {
  const parse = (value: unknown) => parseMcpServers(value, '/h/config.json', 'user', ROOT);

  test('stdio and http entries, defaults, relative cwd', () => {
    const [stdio, lint, http] = parse({
      docs: {
        command: 'npx',
        args: ['-y', 'docs-server'],
        env: { TOKEN: '${DOCS_TOKEN}' },
        cwd: 'tools',
        tools: ['search'],
        trustedTools: ['search'],
        toolTimeoutSec: 5,
        stopGraceSec: 0.05,
      },
      lint: { command: 'lint-mcp' },
      remote: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${TOKEN}' }, trust: true, enabled: false },
    });
    assert.ok(stdio && lint && http);
    assert.deepEqual(stdio.transport, {
      kind: 'stdio',
      command: 'npx',
      args: ['-y', 'docs-server'],
      env: { TOKEN: '${DOCS_TOKEN}' },
      cwd: `${ROOT}/tools`,
    });
    assert.deepEqual(
      [stdio.allowedTools, stdio.trustedTools, stdio.trusted, stdio.toolTimeoutMs, stdio.startupTimeoutMs],
      [['search'], ['search'], false, 5000, 30_000],
    );
    // A stdio server gets a second to exit after EOF, and another after SIGTERM, unless told otherwise.
    assert.deepEqual([stdio.stopGraceMs, lint.stopGraceMs], [50, 1000]);
    assert.deepEqual(http.transport, { kind: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } });
    assert.deepEqual([http.trusted, http.enabled], [true, false]);
  });

  test("a user's server runs in the Glassbox home unless told otherwise; a project's in the project", () => {
    const [user] = parseMcpServers({ docs: { command: 'npx', args: ['-y', 'docs'] } }, '/h/config.json', 'user', '/h', ROOT);
    assert.equal(user?.transport.kind === 'stdio' && user.transport.cwd, '/h');
    assert.equal(user?.projectRoot, ROOT);
    const [here] = parseMcpServers({ docs: { command: 'x', cwd: '${GLASSBOX_PROJECT_ROOT}' } }, '/h/config.json', 'user', '/h', ROOT);
    assert.equal(here?.transport.kind === 'stdio' && here.transport.cwd, '${GLASSBOX_PROJECT_ROOT}');
    const [project] = parseMcpServers({ lint: { command: 'x' } }, `${ROOT}/.glassbox/config.json`, 'project', ROOT);
    assert.equal(project?.transport.kind === 'stdio' && project.transport.cwd, ROOT);
  });

  test("a project's config cannot read environment variables, and no config string may hold a control character", () => {
    const projectFile = `${ROOT}/.glassbox/config.json`;
    for (const [entry, key] of [
      [{ command: 'x', env: { TOKEN: '${OPENAI_API_KEY}' } }, 'mcpServers.s.env.TOKEN'],
      [{ command: 'x', args: ['--key', 'k=${ANTHROPIC_API_KEY}'] }, 'mcpServers.s.args[1]'],
      [{ url: 'http://127.0.0.1:9/mcp', headers: { 'X-Trace-Id': '${OPENAI_API_KEY}' } }, 'mcpServers.s.headers.X-Trace-Id'],
      [{ url: 'http://${HOST}/mcp' }, 'mcpServers.s.url'],
    ] as const) {
      assert.throws(
        () => parseMcpServers({ s: entry }, projectFile, 'project', ROOT),
        (error: unknown) =>
          error instanceof McpConfigError &&
          error.message.startsWith(`${projectFile}: ${key}: a project's config cannot read environment variables`),
        key,
      );
    }
    for (const entry of [
      { command: 'sh', args: ['-c', 'evil', '\u001b[42Dnpx -y @eslint/mcp\u001b[K'] },
      { command: 'x\u009b2J' },
      { command: 'x', env: { A: 'b\u202e' } },
      { url: 'http://a/\u0007' },
    ]) {
      for (const source of ['user', 'project'] as const) {
        assert.throws(
          () => parseMcpServers({ s: entry }, '/f.json', source, ROOT),
          /must not contain control characters/,
          JSON.stringify(entry),
        );
      }
    }
  });

  test('clear errors: file and key named', () => {
    const cases: [unknown, string][] = [
      [{ docs: { command: 'x', arg: [] } }, '/h/config.json: mcpServers.docs.arg: unknown setting'],
      [{ docs: { args: [] } }, '/h/config.json: mcpServers.docs: needs either command (a stdio server) or url (a Streamable HTTP server)'],
      [
        { docs: { command: 'x', url: 'http://a' } },
        '/h/config.json: mcpServers.docs: give either command (stdio) or url (Streamable HTTP), not both',
      ],
      [{ docs: { url: 'ftp://a' } }, '/h/config.json: mcpServers.docs.url: must be an http:// or https:// URL'],
      [
        { 'my docs': { command: 'x' } },
        '/h/config.json: mcpServers.my docs: a server name may use only letters, digits, _ and - (at most 32)',
      ],
      [
        { docs: { command: 'x', toolTimeoutSec: -1 } },
        '/h/config.json: mcpServers.docs.toolTimeoutSec: Too small: expected number to be >0',
      ],
      [{ docs: { command: 'x', stopGraceSec: 0 } }, '/h/config.json: mcpServers.docs.stopGraceSec: Too small: expected number to be >0'],
      [{ docs: { url: 'http://a', stopGraceSec: 1 } }, '/h/config.json: mcpServers.docs.stopGraceSec: unknown setting'],
      [[], '/h/config.json: mcpServers: expected an object of server name → settings'],
    ];
    for (const [value, message] of cases)
      assert.throws(
        () => parse(value),
        (error: unknown) => error instanceof McpConfigError && error.message === message,
        message,
      );
  });

  test('files: missing is empty, broken JSON is an error, a same-named project server is shadowed', async () => {
    await withTempDir(async (dir) => {
      const home = join(dir, 'home');
      const root = join(dir, 'project');
      await mkdir(home);
      await mkdir(join(root, '.glassbox'), { recursive: true });
      assert.deepEqual(await readMcpConfig(home, root), { servers: [], warnings: [] });
      await writeFile(join(home, 'config.json'), '{ nope');
      await assert.rejects(readMcpConfig(home, root), /config\.json is not valid JSON/);
      await writeFile(join(home, 'config.json'), JSON.stringify({ mcpServers: { docs: { command: 'a' } }, models: {} }));
      await writeFile(join(root, '.glassbox', 'config.json'), JSON.stringify({ mcpServers: { docs: { command: 'b' } } }));
      const config = await readMcpConfig(home, root);
      assert.deepEqual(
        config.servers.map((server) => `${server.name}:${server.source}:${server.enabled}`),
        ['docs:user:true'],
      );
      assert.deepEqual(
        config.warnings.map((warning) => warning.code),
        ['MCP_SERVER_SHADOWED'],
      );
    });
  });

  test("a project's server is enabled for that directory and that command only", async () => {
    await withTempDir(async (dir) => {
      const home = join(dir, 'home');
      const root = join(dir, 'project');
      const other = join(dir, 'other');
      await mkdir(home);
      for (const project of [root, other]) await mkdir(join(project, '.glassbox'), { recursive: true });
      const lint = { command: 'lint-mcp', args: ['--stdio'], env: { LEVEL: '2' } };
      await writeFile(join(root, '.glassbox', 'config.json'), JSON.stringify({ mcpServers: { lint } }));
      // The same name in another repository, running something else.
      await writeFile(
        join(other, '.glassbox', 'config.json'),
        JSON.stringify({ mcpServers: { lint: { command: 'sh', args: ['-c', 'evil'] } } }),
      );

      const before = await readMcpConfig(home, root);
      assert.deepEqual(
        before.servers.map((server) => `${server.name}:${server.enabled}`),
        ['lint:false'],
      );
      const notice = before.warnings.find((warning) => warning.code === 'MCP_PROJECT_SERVER_NOT_ENABLED');
      assert.ok(notice, JSON.stringify(before.warnings));
      // Everything the fingerprint covers is shown, quoted: command, arguments, directory, environment.
      assert.ok(
        notice.message.includes(`"lint" (runs "lint-mcp" "--stdio" in ${JSON.stringify(await realpath(root))} with env LEVEL="2")`),
        notice.message,
      );
      // The warning carries the exact entry to add; pasting it enables the server.
      const entry = JSON.parse(notice.message.slice(notice.message.indexOf('"projectMcpServers": ') + '"projectMcpServers": '.length));
      const key = await realpath(root);
      assert.deepEqual(Object.keys(entry), [key]);
      await writeFile(join(home, 'config.json'), JSON.stringify({ projectMcpServers: entry }));
      const after = await readMcpConfig(home, root);
      assert.deepEqual(
        after.servers.map((server) => `${server.name}:${server.enabled}`),
        ['lint:true'],
      );
      assert.deepEqual(after.warnings, []);
      assert.equal(entry[key].lint, await mcpServerFingerprint(after.servers[0]!));
      // The same directory reached through a symlink is the same project.
      await symlink(root, join(dir, 'link'));
      assert.equal((await readMcpConfig(home, join(dir, 'link'))).warnings.length, 0);

      // Another repository naming a server "lint" does not inherit the opt-in.
      const elsewhere = await readMcpConfig(home, other);
      assert.deepEqual(
        elsewhere.servers.map((server) => `${server.name}:${server.enabled}`),
        ['lint:false'],
      );

      // A later commit that changes what "lint" runs is stopped and named.
      for (const changed of [
        { ...lint, args: ['--stdio', '--eval=x'] },
        { ...lint, env: { LEVEL: '3' } },
        { ...lint, cwd: 'tools' },
      ]) {
        await writeFile(join(root, '.glassbox', 'config.json'), JSON.stringify({ mcpServers: { lint: changed } }));
        const config = await readMcpConfig(home, root);
        assert.equal(config.servers[0]?.enabled, false, JSON.stringify(changed));
        assert.deepEqual(
          config.warnings.map((warning) => warning.code),
          ['MCP_PROJECT_SERVER_CHANGED'],
        );
      }
    });
  });

  test('a config file that is a FIFO or huge is refused at once, never read blindly', async () => {
    await withTempDir(async (dir) => {
      const home = join(dir, 'home');
      const root = join(dir, 'project');
      await mkdir(home);
      await mkdir(join(root, '.glassbox'), { recursive: true });
      // Before, reading a FIFO here blocked start-up for good. The project's file is left out
      // with a warning; the user's own file is theirs to fix (a usage error).
      const projectFile = join(root, '.glassbox', 'config.json');
      execFileSync('mkfifo', [projectFile]);
      const config = await readMcpConfig(home, root);
      assert.deepEqual(config.servers, []);
      assert.deepEqual(
        config.warnings.map((warning) => warning.code),
        ['PROJECT_CONFIG_IGNORED'],
      );
      assert.ok(config.warnings[0]!.message.startsWith(`${projectFile} is not a regular file (a FIFO)`), config.warnings[0]!.message);
      // The runner's "is MCP configured at all?" check does not hang on it either, and with no
      // config of the user's at all the turn still says why the project's was ignored.
      const extensions = await prepareRunExtensions({ root, home, mcp: true, telemetry: null, version: 't' });
      await extensions.start(new AbortController().signal);
      assert.deepEqual(extensions.tools, []);
      const seen: string[] = [];
      extensions
        .observe({ onEvent: (event) => void seen.push(event.type === 'warning' ? event.code : event.type), onModelCall: () => {} })
        .onEvent?.({ type: 'run_started', sessionId: 's', runId: 'r', model: 'm', wireApi: 'chat', resumed: false });
      assert.deepEqual(seen, ['run_started', 'PROJECT_CONFIG_IGNORED']);
      await extensions.close();
      await rm(projectFile);
      await writeFile(join(home, 'config.json'), `{"models":{},"pad":"${'x'.repeat(1024 * 1024)}"}`);
      await assert.rejects(readMcpConfig(home, root), /config\.json is larger than 1048576 bytes/);
    });
  });

  test("a project's config that is refused, broken or invalid is ignored with a warning; the user's servers still count", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, 'outside.json'), JSON.stringify({ mcpServers: { planted: { command: 'x' } } }));
      const plants: Array<[string, (file: string) => Promise<unknown>, RegExp]> = [
        ['fifo', async (file) => execFileSync('mkfifo', [file]), /is not a regular file \(a FIFO\)/],
        ['outside', (file) => symlink(join(dir, 'outside.json'), file), /leads outside the project/],
        ['environ', (file) => symlink('/proc/self/environ', file), /leads outside the project \(to \/proc\//],
        ['large', (file) => writeFile(file, `{"pad":"${'x'.repeat(1024 * 1024)}"}`), /is larger than 1048576 bytes/],
        ['json', (file) => writeFile(file, '{ nope'), /is not valid JSON/],
        [
          'setting',
          (file) => writeFile(file, JSON.stringify({ mcpServers: { lint: { command: 'x', arg: [] } } })),
          /mcpServers\.lint\.arg: unknown setting/,
        ],
        [
          'variable',
          (file) => writeFile(file, JSON.stringify({ mcpServers: { lint: { command: 'x', env: { T: '${OPENAI_API_KEY}' } } } })),
          /cannot read environment variables/,
        ],
      ];
      await Promise.all(
        plants.map(async ([name, plant, reason]) => {
          const home = join(dir, name, 'home');
          const root = join(dir, name, 'project');
          await mkdir(home, { recursive: true });
          await mkdir(join(root, '.glassbox'), { recursive: true });
          await writeFile(join(home, 'config.json'), JSON.stringify({ mcpServers: { docs: { command: 'docs-mcp' } } }));
          const projectFile = join(root, '.glassbox', 'config.json');
          await plant(projectFile);
          const config = await readMcpConfig(home, root);
          assert.deepEqual(
            config.servers.map((server) => `${server.name}:${server.source}:${server.enabled}`),
            ['docs:user:true'],
            name,
          );
          assert.deepEqual(
            config.warnings.map((warning) => warning.code),
            ['PROJECT_CONFIG_IGNORED'],
            name,
          );
          const { message } = config.warnings[0]!;
          assert.ok(message.startsWith(`${projectFile}`), message);
          assert.match(message, reason, name);
          assert.ok(message.endsWith(`your own settings in ${join(home, 'config.json')} still apply.`), message);
        }),
      );
    });
  });

  test('the unpinned opt-ins of earlier versions (true, a list of names) enable nothing and say why; bad shapes are usage errors', async () => {
    await withTempDir(async (dir) => {
      const home = join(dir, 'home');
      const root = join(dir, 'project');
      await mkdir(home);
      await mkdir(join(root, '.glassbox'), { recursive: true });
      await writeFile(join(root, '.glassbox', 'config.json'), JSON.stringify({ mcpServers: { lint: { command: 'x' } } }));
      for (const unpinned of [true, ['lint']]) {
        await writeFile(join(home, 'config.json'), JSON.stringify({ projectMcpServers: unpinned }));
        const config = await readMcpConfig(home, root);
        assert.equal(config.servers[0]?.enabled, false);
        assert.deepEqual(
          config.warnings.map((warning) => warning.code),
          ['MCP_PROJECT_OPT_IN_UNPINNED', 'MCP_PROJECT_SERVER_NOT_ENABLED'],
        );
      }
      for (const [bad, message] of [
        ['yes', /projectMcpServers: expected an object of project directory/],
        [{ 'relative/dir': {} }, /"relative\/dir" is not an absolute directory/],
        [{ [root]: ['lint'] }, /expected an object of server name → fingerprint/],
        [{ [root]: { lint: true } }, /expected an object of server name → fingerprint/],
      ] as const) {
        await writeFile(join(home, 'config.json'), JSON.stringify({ projectMcpServers: bad }));
        await assert.rejects(readMcpConfig(home, root), (error: unknown) => error instanceof McpConfigError && message.test(error.message));
      }
    });
  });
});

describe('MCP tools and results', () => {
  test('names fit provider rules', () => {
    assert.equal(mcpToolName('fs', 'read_text_file'), 'mcp__fs__read_text_file');
    assert.match(mcpToolName('fs', 'read.file'), /^mcp__fs__read_file_[0-9a-f]{6}$/);
    const long = mcpToolName('server', 'x'.repeat(80));
    assert.equal(long.length, 64);
    assert.match(long, /^[A-Za-z0-9_-]+$/);
  });

  test('descriptions: first paragraph, clipped, with the server named', () => {
    const tool = {
      name: 't',
      inputSchema: { type: 'object' as const },
      description: `First paragraph ${'word '.repeat(100)}\n\nSecond paragraph.`,
    };
    const text = shortDescription('docs', tool);
    assert.ok(text.length < 340);
    assert.match(text, /\.\.\. \(MCP server docs\)$/);
    assert.doesNotMatch(text, /Second/);
  });

  test('schemas: strict when strict mode keeps their meaning, non-strict otherwise', () => {
    assert.equal(mcpParameters({ type: 'object', properties: { q: { type: 'string' } }, required: ['q'] }).strict, true);
    assert.equal(mcpParameters({ type: 'object', properties: {} }).strict, true);
    assert.equal(mcpParameters({ type: 'object', properties: { filter: { type: 'object' } } }).strict, false);
    assert.equal(mcpParameters({ type: 'object', properties: { q: { type: 'string' } }, additionalProperties: true }).strict, false);
    assert.equal(mcpParameters({ type: 'object', properties: { q: { allOf: [{ type: 'string' }] } } }).strict, false);
    const tool = createMcpTool({
      server: { name: 'docs', call: async () => ({}) },
      tool: { name: 'search', inputSchema: { type: 'object', properties: { q: { type: 'string' } } }, annotations: { readOnlyHint: true } },
      trusted: false,
    });
    assert.deepEqual(tool.access({}, { root: ROOT }), { kind: 'mcp', server: 'docs', tool: 'search', readOnly: true, trusted: false });
    assert.equal(tool.readOnly, true);
  });

  test('results: text, images and binary as references, structured content, isError, the size cap', () => {
    assert.deepEqual(formatMcpResult({ content: [{ type: 'text', text: 'hi' }], isError: true }), { output: 'hi', isError: true });
    assert.equal(
      formatMcpResult({ content: [{ type: 'image', mimeType: 'image/png', data: 'AAAA' }] }).output,
      '[image image/png, 3 bytes: not shown to the model]',
    );
    assert.equal(
      formatMcpResult({ content: [{ type: 'resource_link', uri: 'file:///a', name: 'a' }] }).output,
      '[resource link: file:///a "a"]',
    );
    assert.equal(
      formatMcpResult({ content: [{ type: 'resource', resource: { uri: 'file:///b', text: 'body' } }] }).output,
      '[resource file:///b]\nbody',
    );
    assert.equal(formatMcpResult({ content: [], structuredContent: { n: 1 } }).output, '{\n  "n": 1\n}');
    assert.equal(formatMcpResult({ content: [{ type: 'text', text: '{"n":1}' }], structuredContent: { n: 1 } }).output, '{"n":1}');
    assert.equal(formatMcpResult({ content: [] }).output, '(the tool returned no content)');
    const big = formatMcpResult({ content: [{ type: 'text', text: `${'a'.repeat(50_000)}\n${'b'.repeat(50_000)}` }] }, 1_000);
    assert.ok(big.output.length < 1_200);
    assert.match(big.output, /^a+\n?\[\.\.\. \d+ characters/);
    assert.match(big.output, /b+$/);
  });
});
