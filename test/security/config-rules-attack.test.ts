// Attacks on permission rules from config files (issue 26), each checked against real bash: a
// deny rule the user wrote (`shell(rm *)`) must match every string that, run by bash, starts the
// program `rm` through the constructs docs/permissions.md promises to read — command runners and
// the command strings they are given (`env -S`, `su -c`, `flock -c`, `trap`, `alias`), shells
// reading their commands from a pipe or a here-string, `find -exec`, and command substitutions
// hidden in quoted words that bash evaluates later (`let 'a[$(rm x)]'`), and what the bash grammar
// reads without an error but not as bash does (here-document bodies, a backslash-newline in a word). A fake `rm` first on
// PATH records that it ran; a string counts only if bash really started it.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, mkdir, rm as remove, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { before, test } from 'node:test';
import {
  type ConfigRule,
  PermissionRuleError,
  decidePermission,
  exactAllowRule,
  loadCommandClassifier,
  parseConfigRule,
} from '../../src/permissions/index.js';
import { createPermissionGate } from '../../src/runner/index.js';
import { createGlobTool, createGrepTool, createListDirTool } from '../../src/tools/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { permissionSettings } from '../helpers/permission-settings.js';

const execFileAsync = promisify(execFile);
// Loaded by the first test, not at import: the suite runner imports every file into one process.
let classifier: Awaited<ReturnType<typeof loadCommandClassifier>>;
before(async () => {
  classifier = await loadCommandClassifier();
});

/** Strings that start `rm` in bash; each got past `shell(rm *)` before the rule view read them. */
const RUNS_RM = [
  "env -S 'rm x'",
  "env -S'rm x'",
  "env --split-string='rm x'",
  "flock LOCK -c 'rm x'",
  "su -c 'rm x'",
  "script -qc 'rm x' /dev/null",
  "trap 'rm x' EXIT",
  "trap -- 'rm x' EXIT",
  "shopt -s expand_aliases\nalias r='rm'\nr x",
  "bash -c -- 'rm x'",
  "bash -c -x 'rm x'",
  "echo 'rm x' | bash",
  'echo rm x | sh -s',
  "bash <<< 'rm x'",
  "bash -o errexit <<< 'rm x'",
  'sh /dev/stdin <<< "rm x"',
  "source /dev/stdin <<< 'rm x'",
  'find . -maxdepth 0 -exec rm {} +',
  "find . -maxdepth 0 -execdir sh -c 'rm x' \\;",
  "x='a[$(rm y)]'; [[ $x -eq 0 ]]",
  "let 'a[$(rm y)]'",
  'let a[\\$\\(rm\\ y\\)]',
  "let $'a[\\x24(rm y)]'",
  "printf -v 'a[$(rm y)]' x",
  "read -r 'a[$(rm y)]' <<< 1",
  "declare -n r='a[$(rm y)]'; r=1",
  "test -v 'a[$(rm y)]'",
  "mapfile -C 'rm x #' -c 1 <<< a",
  // The grammar reads these without an error, but not as bash does.
  'cat <<EOF\n`rm x`\nEOF',
  'cat <<-EOF\n\t$(rm x)\nEOF',
  'r\\\nm x',
  'echo "${x:-`rm y`}"',
  'echo ${x:-`rm y`}',
];

/** Strings a `shell(rm *)` deny rule must leave alone: reading more must not deny everything. */
const NO_RM = [
  "git commit -m 'rm old files'",
  'grep -rn rm .',
  'find . -name rm',
  'bash x.sh',
  'bash -o errexit x.sh',
  "bash -c 'echo hi'",
  'env FOO=1 ls',
  "printf $'a\\nb'",
  'echo "rm is a program"',
  'timeout 5 npm test',
  "cat <<'EOF'\n`rm x`\nEOF",
  'cat <<EOF\n$(date)\nEOF',
];

function denied(command: string, rules: ConfigRule[], root: string): boolean {
  const access = { kind: 'exec' as const, command, workdir: root, escalate: false, justification: null };
  const input = {
    toolName: 'shell',
    access,
    commandSafety: classifier.classify(command, { root }),
    commandRules: classifier.ruleView(command),
  };
  const decision = decidePermission(
    input,
    permissionSettings({ root, sandbox: 'danger-full-access', approvalPolicy: 'never', configRules: rules }),
  );
  return decision.rule === 'config-deny';
}

test('shell(rm *) denies every string that starts rm through a runner, a shell string, stdin or a later evaluation', async () => {
  const dir = await makeTempDir();
  const root = join(dir, 'project');
  const bin = join(dir, 'bin');
  const mark = join(dir, 'rm-ran');
  await mkdir(root, { recursive: true });
  await mkdir(bin, { recursive: true });
  await writeFile(join(bin, 'rm'), `#!/bin/sh\n: > '${mark}'\n`);
  await chmod(join(bin, 'rm'), 0o755);
  const rules = [parseConfigRule('shell(rm *)', 'deny', '/home/u/.glassbox/config.json', 3)];
  const ran = async (command: string): Promise<boolean> => {
    await remove(mark, { force: true });
    const env = { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, HOME: dir };
    await execFileAsync('bash', ['-c', command], { cwd: root, env, timeout: 10_000 }).catch(() => {});
    return stat(mark).then(
      () => true,
      () => false,
    );
  };
  const missed: string[] = [];
  for (const command of RUNS_RM) {
    // The oracle first: the string must really start rm, or it proves nothing.
    if (!(await ran(command))) {
      // su and script need a terminal or a password on some machines; those are skipped, not counted.
      if (/^(su|script) /.test(command)) continue;
      assert.fail(`${JSON.stringify(command)} did not start rm in bash`);
    }
    if (!denied(command, rules, root)) missed.push(command);
  }
  assert.deepEqual(missed, [], 'strings that start rm but got past shell(rm *)');
  for (const command of NO_RM) {
    assert.equal(await ran(command), false, command);
    assert.equal(denied(command, rules, root), false, `${JSON.stringify(command)} was denied, but starts no rm`);
  }
});

test('a deny rule Read(secrets/**) keeps a grep over the whole project out of secrets/', async () => {
  const root = await makeTempDir();
  await mkdir(join(root, 'secrets'), { recursive: true });
  await mkdir(join(root, 'src'), { recursive: true });
  await writeFile(join(root, 'secrets', 'db.txt'), 'needle password=hunter2\n');
  await writeFile(join(root, 'src', 'a.ts'), '// needle\n');
  const rules = [parseConfigRule('Read(secrets/**)', 'deny', '/home/u/.glassbox/config.json', 2)];
  const gate = createPermissionGate({
    root,
    home: join(root, '..', 'home'),
    approvalPolicy: 'on-request',
    sandbox: 'workspace-write',
    network: false,
    configRules: rules,
    detectSandbox: async () => true,
  });
  const tool = createGrepTool();
  const grep = async (args: { pattern: string; path?: string }): Promise<{ decision: string; output: string | null }> => {
    const decision = await gate.decide({ tool, args, access: tool.access(args, { root }) });
    if (decision.decision !== 'allow') return { decision: decision.decision, output: null };
    const context = { root, execution: decision.execution, callId: 'c', signal: new AbortController().signal, state: undefined };
    return { decision: decision.decision, output: (await tool.execute(args, context)).output };
  };
  // The file itself, and the directory, are denied by the rule.
  assert.equal((await grep({ pattern: 'needle', path: 'secrets/db.txt' })).decision, 'deny');
  assert.equal((await grep({ pattern: 'needle', path: 'secrets' })).decision, 'deny');
  // The decision only sees `.`: the search must leave the denied files out itself.
  const all = await grep({ pattern: 'needle' });
  assert.equal(all.decision, 'allow');
  assert.match(all.output ?? '', /src\/a\.ts/);
  assert.doesNotMatch(all.output ?? '', /hunter2|secrets/);
});

test('a deny rule Read(secrets/**) keeps the names under secrets/ out of glob and list_dir too', async () => {
  const root = await makeTempDir();
  await mkdir(join(root, 'secrets', 'deep'), { recursive: true });
  await mkdir(join(root, 'src'), { recursive: true });
  await writeFile(join(root, 'secrets', 'prod-db-password.txt'), 'x\n');
  await writeFile(join(root, 'secrets', 'deep', 'stripe-live-key.txt'), 'x\n');
  await writeFile(join(root, 'src', 'a.ts'), '// a\n');
  const rules = [parseConfigRule('Read(secrets/**)', 'deny', '/home/u/.glassbox/config.json', 2)];
  const gate = createPermissionGate({
    root,
    home: join(root, '..', 'home'),
    approvalPolicy: 'on-request',
    sandbox: 'workspace-write',
    network: false,
    configRules: rules,
    detectSandbox: async () => true,
  });
  const run = async <A extends object>(
    tool: ReturnType<typeof createGlobTool> | ReturnType<typeof createListDirTool>,
    args: A,
  ): Promise<string> => {
    const typed = tool as unknown as {
      access: (a: A, c: { root: string }) => never;
      execute: (a: A, c: object) => Promise<{ output: string }>;
    };
    const decision = await gate.decide({ tool, args, access: typed.access(args, { root }) });
    assert.equal(decision.decision, 'allow');
    const context = { root, execution: decision.execution, callId: 'c', signal: new AbortController().signal, state: undefined };
    return (await typed.execute(args, context)).output;
  };
  const globbed = await run(createGlobTool(), { pattern: '**/*.txt' });
  assert.doesNotMatch(globbed, /password|stripe/);
  assert.match(globbed, /2 matching files are left out: a permission rule covers them/);
  const all = await run(createGlobTool(), { pattern: '**/*' });
  assert.match(all, /src\/a\.ts/);
  assert.doesNotMatch(all, /password|stripe/);
  const listed = await run(createListDirTool(), {});
  assert.match(listed, /src\//);
  assert.doesNotMatch(listed, /secrets/);
  assert.match(listed, /1 entry left out: a permission rule covers it/);
});

test('MCP rules: a deny rule that would match nothing is an error, and a name with __ in it is denied either way', () => {
  // `mcp__docs*` named the server `docs*`: as a deny rule it matched nothing, silently.
  for (const text of ['mcp__*', 'mcp__docs*', 'mcp__docs__sea*']) {
    assert.throws(() => parseConfigRule(text, 'deny', '/h/config.json', 4), PermissionRuleError, text);
  }
  const call = (server: string, tool: string, rules: ConfigRule[]) =>
    decidePermission(
      {
        toolName: `mcp__${server}__${tool}`,
        access: { kind: 'mcp', server, tool, readOnly: false, trusted: false },
        commandSafety: null,
      },
      permissionSettings({ configRules: rules }),
    );
  // Server `a__b`'s tool `c` is named mcp__a__b__c, which the parser reads as server `a`, tool `b__c`.
  const deny = [parseConfigRule('mcp__a__b__c', 'deny', '/h/config.json', 5)];
  assert.equal(call('a__b', 'c', deny).rule, 'config-deny');
  assert.equal(call('a', 'b__c', deny).rule, 'config-deny');
  const denyServer = [parseConfigRule('mcp__a__b', 'deny', '/h/config.json', 6)];
  assert.equal(call('a__b', 'c', denyServer).rule, 'config-deny');
  // Approve always saves no rule it cannot read back as the same server and tool.
  assert.equal(exactAllowRule('mcp__a__b__c', '{}', '/p'), null);
  assert.equal(exactAllowRule('mcp__a___b', '{}', '/p'), null);
  assert.equal(exactAllowRule('mcp__docs__search', '{}', '/p'), 'mcp__docs__search');
});

test('reading command strings inside command strings is bounded: past the budget the string is unreadable', () => {
  // Each runner argument is read as a command string, and each of those may hold more runners.
  const nested = `env ${Array.from({ length: 60 }, () => `-S'env -S"sudo -S'"'"'a b c d'"'"'"'`).join(' ')}`;
  const view = classifier.ruleView(nested);
  assert.equal(view.unreadable, true);
  assert.ok(view.commands.length <= 4096, `${view.commands.length} readings`);
  // Unreadable means every deny rule for commands matches.
  assert.equal(denied(nested, [parseConfigRule('shell(rm *)', 'deny', '/h/config.json', 1)], '/work/project'), true);
});

test('a path pattern whose glob would backtrack for ever is a malformed rule, and a made-up long name matches no allow rule', () => {
  // Each took from a second to minutes for one match on a long path (a project's deny rules apply without a pin).
  for (const glob of ['*a*a*a*ab', '{**/,}{**/,}{**/,}x', '*(a|aa)b', 'src/+(x|y)']) {
    assert.throws(() => parseConfigRule(`Read(${glob})`, 'deny', '/repo/.glassbox/config.json', 2), PermissionRuleError, glob);
  }
  for (const glob of ['src/**/*.test.*', '**/*.pem', 'src/*.{ts,tsx}', '\\*(a)', 'a*b*c*d'])
    parseConfigRule(`Read(${glob})`, 'deny', '/h', 1);
  const input = (path: string) => ({ toolName: 'read_file', access: { kind: 'read' as const, paths: [path] }, commandSafety: null });
  const long = `/work/project/src/${'a'.repeat(3000)}`;
  const deny = [parseConfigRule('Read(*b*c*d)', 'deny', '/h', 1)];
  assert.equal(decidePermission(input(long), permissionSettings({ configRules: deny })).rule, 'config-deny');
  const allow = [parseConfigRule('write_file(src/**)', 'allow', '/h', 1)];
  const write = { toolName: 'write_file', access: { kind: 'write' as const, paths: [long] }, commandSafety: null };
  assert.equal(decidePermission(write, permissionSettings({ approvalPolicy: 'untrusted', configRules: allow })).rule, 'policy-untrusted');
});
