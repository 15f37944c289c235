// Bash as the oracle for allow rules from config files (issue 26): `shell(npm test)` may approve
// a command string only if bash, running it, starts exactly one program — `npm` — with exactly
// the argument `test`. Strings are generated around `npm test` from quoting, spacing, separators,
// substitutions, redirections, comments, control characters and line continuations; every one the
// rule allows is run by real bash with a PATH holding only a fake `npm` that records its argv, and
// under strace (as test/security/bash-oracle.ts runs commands) to see every program it started.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { decidePermission, loadCommandClassifier, parseConfigRule } from '../../src/permissions/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { permissionSettings } from '../helpers/permission-settings.js';
import { runUnderBash, straceAvailable } from './bash-oracle.js';

const execFileAsync = promisify(execFile);

const WORD_FORMS: ReadonlyArray<(word: string) => string> = [
  (word) => word,
  (word) => `'${word}'`,
  (word) => `"${word}"`,
  (word) => `${word[0]}'${word.slice(1)}'`,
  (word) => `\\${word}`,
  (word) => `${word.slice(0, 1)}\\${word.slice(1)}`,
  (word) => `${word}''`,
  (word) => `$'${word}'`,
  (word) => `\${x}${word}`,
  (word) => `${word}*`,
];
const GAPS = [' ', '  ', '\t', ' \t ', '\r', '\u00a0', '\\\n', '\n', "''", ' "" '];
const AROUND: ReadonlyArray<[string, string]> = [
  ['', ''],
  [' ', ' '],
  ['\n', '\n'],
  ['', '; touch pwned'],
  ['', '\ntouch pwned'],
  ['', '\r\ntouch pwned'],
  ['', ' && touch pwned'],
  ['', ' || touch pwned'],
  ['', ' | touch pwned'],
  ['', ' & touch pwned'],
  ['', ' # comment'],
  ['', ' $(touch pwned)'],
  ['', ' `touch pwned`'],
  ['', ' >pwned'],
  ['', ' 2>&1'],
  ['', '\\'],
  ['', '\\\ntouch pwned'],
  ['x=1 ', ''],
  ['touch pwned; ', ''],
  ['command ', ''],
  ['exec ', ''],
  ['( ', ' )'],
  ['{ ', '; }'],
  ['! ', ''],
];

function candidates(): string[] {
  const out = new Set<string>();
  let index = 0;
  for (const first of WORD_FORMS)
    for (const second of WORD_FORMS)
      for (const gap of GAPS)
        for (const [before, after] of AROUND) {
          // A fifth of the full product (every form, gap and surrounding appears), and all of it for plain words.
          const text = `${before}${first('npm')}${gap}${second('test')}${after}`;
          if (index++ % 5 === 0 || (first === WORD_FORMS[0] && second === WORD_FORMS[0])) out.add(text);
        }
  return [...out];
}

test('shell(npm test) allows only strings bash runs as exactly `npm test`', { timeout: 600_000 }, async (t) => {
  const classifier = await loadCommandClassifier();
  // Found on this process's PATH: the commands themselves get only the fake's directory.
  const bash = (await execFileAsync('bash', ['-c', 'command -v bash'])).stdout.trim();
  const dir = await makeTempDir();
  const root = join(dir, 'project');
  const bin = join(dir, 'bin');
  await mkdir(root, { recursive: true });
  await mkdir(bin, { recursive: true });
  // Builtins only, so the fake starts no program of its own.
  await writeFile(join(bin, 'npm'), '#!/bin/sh\nprintf "%s\\n" "$#" "$@" >> "$LOG"\n');
  await chmod(join(bin, 'npm'), 0o755);
  const rule = parseConfigRule('shell(npm test)', 'allow', '/h/config.json', 1);
  const settings = permissionSettings({ root, approvalPolicy: 'untrusted', configRules: [rule] });
  const strings = candidates();
  const allowed = strings.filter((command) => {
    const access = { kind: 'exec' as const, command, workdir: root, escalate: false, justification: null };
    const input = {
      toolName: 'shell',
      access,
      commandSafety: classifier.classify(command, { root }),
      commandRules: classifier.ruleView(command),
    };
    return decidePermission(input, settings).rule === 'config-allow';
  });
  // Not vacuous: many spellings of the same argv are allowed, and most strings are not.
  t.diagnostic(`${allowed.length} of ${strings.length} strings allowed`);
  assert.ok(allowed.length >= 30, `only ${allowed.length} strings allowed`);
  assert.ok(strings.length - allowed.length >= 1000, `only ${strings.length - allowed.length} strings refused`);
  for (const [index, command] of allowed.entries()) {
    const log = join(dir, `argv-${index}`);
    await execFileAsync(bash, ['-c', command], { cwd: root, env: { PATH: bin, LOG: log }, timeout: 10_000 }).catch(() => {});
    const argv = await readFile(log, 'utf8').catch(() => '');
    assert.equal(argv, '1\ntest\n', `${JSON.stringify(command)} ran npm with ${JSON.stringify(argv)}`);
  }
  if (!straceAvailable()) {
    t.diagnostic('strace is not installed: the programs each string starts were not traced');
    return;
  }
  // The tracer's driver needs strace, timeout and bash from the system PATH; the fake comes first,
  // and any other program a string started would show in its report.
  const reports = await runUnderBash(allowed, root, { PATH: `${bin}:${process.env.PATH ?? ''}`, LOG: join(dir, 'traced') }, dir);
  for (const [index, report] of reports.entries()) {
    assert.deepEqual(report.programs, ['npm'], `${JSON.stringify(allowed[index])} started ${JSON.stringify(report.programs)}`);
    assert.ok(!report.writes.some((path) => path.includes('pwned')), JSON.stringify(report.writes));
  }
});
