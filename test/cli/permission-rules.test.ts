// Permission rules from config files, through the built CLI and the fake provider (issue 26):
// what a rule decides, that the event names the rule, its file and line, and that a project's
// allow rules wait for the user's pin. Each case runs a control beside it that differs only in
// the rule, so the test shows the rule is what changed the outcome.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startFakeProvider, type ScriptedTurn } from '../../src/testing/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { cliEnv, jsonLines, runCli } from '../helpers/run-cli.js';

interface Setup {
  userConfig?: unknown;
  projectConfig?: unknown;
  files?: Record<string, string>;
}

async function project(setup: Setup): Promise<{ root: string; home: string }> {
  const base = await makeTempDir();
  const root = join(base, 'project');
  const home = join(base, 'home');
  await mkdir(join(root, '.glassbox'), { recursive: true });
  await mkdir(home, { recursive: true });
  await writeFile(join(root, 'package.json'), JSON.stringify({ name: 'p', scripts: { test: 'echo ran-the-tests' } }));
  for (const [path, text] of Object.entries(setup.files ?? {})) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), text);
  }
  if (setup.userConfig !== undefined) await writeFile(join(home, 'config.json'), JSON.stringify(setup.userConfig, null, 2));
  if (setup.projectConfig !== undefined)
    await writeFile(join(root, '.glassbox', 'config.json'), JSON.stringify(setup.projectConfig, null, 2));
  return { root, home };
}

async function run(
  dirs: { root: string; home: string },
  calls: NonNullable<ScriptedTurn['toolCalls']>,
  flags: string[],
): Promise<{ code: number | null; stderr: string; events: Record<string, unknown>[] }> {
  const provider = await startFakeProvider({ script: [{ toolCalls: calls }, { text: 'done' }] });
  try {
    const result = await runCli(
      ['exec', '--json', '--base-url', provider.baseURL, '-m', 'm', '-C', dirs.root, ...flags, 'go'],
      cliEnv({ OPENAI_API_KEY: 'sk-test', GLASSBOX_HOME: dirs.home }),
    );
    return { code: result.code, stderr: result.stderr, events: result.code === 0 ? jsonLines(result.stdout) : [] };
  } finally {
    await provider.close();
  }
}

function decisions(events: Record<string, unknown>[]): Record<string, unknown>[] {
  return events.filter((event) => event.type === 'tool_permission_decided');
}

describe('permission rules in config files', { concurrency: true }, () => {
  test('an allow rule runs `npm test` under untrusted with no TTY; without it the call is refused', async () => {
    const rule = { permissions: { allow: ['shell(npm test)'] } };
    const [withRule, without] = await Promise.all([project({ userConfig: rule }), project({})]);
    const call = [{ name: 'shell', arguments: { command: 'npm test' } }];
    const [allowed, refused] = await Promise.all([
      run(withRule, call, ['--approval-policy', 'untrusted']),
      run(without, call, ['--approval-policy', 'untrusted']),
    ]);
    assert.equal(allowed.code, 0, allowed.stderr);
    const [decision] = decisions(allowed.events);
    assert.equal(decision!.decision, 'allow', JSON.stringify(decision));
    assert.equal(decision!.rule, 'config-allow');
    // The rule, the file it is written in, and its line.
    assert.deepEqual(decision!.configRule, { text: 'shell(npm test)', list: 'allow', file: join(withRule.home, 'config.json'), line: 4 });
    assert.equal(refused.code, 0, refused.stderr);
    assert.equal(decisions(refused.events)[0]!.decision, 'ask');
    const resolved = refused.events.find((event) => event.type === 'approval_resolved');
    assert.equal(resolved?.by, 'no-tty');
  });

  test('a deny rule `shell(rm *)` wins under danger-full-access with --approval-policy never, also inside a compound command', async () => {
    const files = { 'victim.txt': 'keep me\n', 'other.txt': 'keep me too\n' };
    const rule = { permissions: { deny: ['shell(rm *)'] } };
    const [withRule, without] = await Promise.all([project({ userConfig: rule, files }), project({ files })]);
    const calls = [
      { name: 'shell', arguments: { command: 'rm -f victim.txt' } },
      { name: 'shell', arguments: { command: 'true && echo "$(rm -f other.txt)"' } },
    ];
    const flags = ['--sandbox', 'danger-full-access', '--approval-policy', 'never'];
    const [denied, control] = await Promise.all([run(withRule, calls, flags), run(without, calls, flags)]);
    assert.equal(denied.code, 0, denied.stderr);
    const found = decisions(denied.events);
    assert.equal(found.length, 2);
    for (const decision of found) {
      assert.equal(decision.decision, 'deny', JSON.stringify(decision));
      assert.equal(decision.rule, 'config-deny');
      assert.equal((decision.configRule as { text: string }).text, 'shell(rm *)');
    }
    assert.ok(existsSync(join(withRule.root, 'victim.txt')));
    assert.ok(existsSync(join(withRule.root, 'other.txt')));
    // Without the rule the same calls run and remove the files.
    assert.equal(control.code, 0, control.stderr);
    assert.ok(decisions(control.events).every((decision) => decision.decision === 'allow'));
    assert.ok(!existsSync(join(without.root, 'victim.txt')));
    assert.ok(!existsSync(join(without.root, 'other.txt')));
  });

  test("a project's allow rule is ignored until the user pins it, and again once the rules change", async () => {
    const projectRules = { permissions: { allow: ['shell(npm test)'] } };
    const dirs = await project({ projectConfig: projectRules });
    const call = [{ name: 'shell', arguments: { command: 'npm test' } }];
    const untrusted = ['--approval-policy', 'untrusted'];
    const first = await run(dirs, call, untrusted);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(decisions(first.events)[0]!.decision, 'ask');
    const notice = first.events.find((event) => event.type === 'warning' && event.code === 'PERMISSION_RULES_NOT_PINNED');
    assert.ok(notice, JSON.stringify(first.events.filter((event) => event.type === 'warning')));
    const entry = /"projectPermissionRules": (\{.*\})$/.exec(String(notice.message));
    assert.ok(entry, String(notice.message));
    // The user pins the rules exactly as the notice says.
    await writeFile(join(dirs.home, 'config.json'), `{ "projectPermissionRules": ${entry[1]} }`);
    const pinned = await run(dirs, call, untrusted);
    const decision = decisions(pinned.events)[0]!;
    assert.equal(decision.decision, 'allow', JSON.stringify(decision));
    assert.equal((decision.configRule as { file: string }).file, join(dirs.root, '.glassbox', 'config.json'));
    // The repository widens its rules: unpinned again, with a notice.
    await writeFile(
      join(dirs.root, '.glassbox', 'config.json'),
      JSON.stringify({ permissions: { allow: ['shell(npm test)', 'shell(curl *)'] } }),
    );
    const changed = await run(dirs, call, untrusted);
    assert.equal(decisions(changed.events)[0]!.decision, 'ask');
    assert.ok(changed.events.some((event) => event.type === 'warning' && event.code === 'PERMISSION_RULES_CHANGED'));
  });

  test("a project's deny rule applies without a pin", async () => {
    const dirs = await project({ projectConfig: { permissions: { deny: ['Bash(npm test)'] } } });
    const result = await run(dirs, [{ name: 'shell', arguments: { command: 'npm test' } }], ['--sandbox', 'danger-full-access']);
    assert.equal(decisions(result.events)[0]!.rule, 'config-deny');
  });

  test("Claude Code's spellings: Bash(npm run test:*), Edit(docs/**), Read(secrets/**)", async () => {
    const userConfig = { permissions: { allow: ['Bash(npm run test:*)', 'Edit(docs/**)'], deny: ['Read(secrets/**)'] } };
    const dirs = await project({ userConfig, files: { 'secrets/token.txt': 'x\n', 'docs/a.md': 'a\n' } });
    const calls = [
      { name: 'shell', arguments: { command: 'npm run test -- --grep unit' } },
      { name: 'write_file', arguments: { path: 'docs/b.md', content: 'b\n' } },
      { name: 'read_file', arguments: { path: 'secrets/token.txt' } },
      { name: 'write_file', arguments: { path: 'src/c.ts', content: 'c\n' } },
    ];
    const result = await run(dirs, calls, ['--sandbox', 'workspace-write', '--approval-policy', 'untrusted']);
    assert.equal(result.code, 0, result.stderr);
    const found = decisions(result.events).map((decision) => [
      decision.decision,
      decision.rule,
      (decision.configRule as { text?: string })?.text,
    ]);
    assert.deepEqual(found, [
      ['allow', 'config-allow', 'Bash(npm run test:*)'],
      ['allow', 'config-allow', 'Edit(docs/**)'],
      ['deny', 'config-deny', 'Read(secrets/**)'],
      ['ask', 'policy-untrusted', undefined],
    ]);
    assert.ok(existsSync(join(dirs.root, 'docs', 'b.md')));
  });

  test('a malformed rule is exit 2 naming the file, the line and the rule', async () => {
    const dirs = await project({ userConfig: { permissions: { allow: ['shell(npm test)', 'shell(git diff src/*.ts)'] } } });
    const result = await run(dirs, [], []);
    assert.equal(result.code, 2);
    const file = join(dirs.home, 'config.json');
    assert.match(
      result.stderr,
      new RegExp(`${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:5: permission rule "shell\\(git diff src/\\*\\.ts\\)"`),
    );
  });
});
