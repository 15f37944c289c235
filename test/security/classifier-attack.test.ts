// An adversarial review of the command classifier (issue 22), written as cases that fail today.
// Each case is a command string the classifier calls known safe (inside the sandbox, or on the
// short list that runs without one) and real bash, run the way the shell tool runs it (the same
// `bash -c 'ulimit …; eval "set --; $1"'` wrapper and child environment, stdin closed), observed
// doing what "known safe" rules out: reading outside the project root or a secret file, starting
// a program the verdict does not list, writing, or not ending. The oracle is bash (and strace
// where the effect is a system call), never the classifier's own reading.
//
// A case passes once the classifier stops calling the string known safe, or once bash stops
// doing the harmful thing (a fix in the child environment counts too). If the machine cannot
// show the effect (a tool or locale missing), the case is skipped, not passed.

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  type CommandClassification,
  type CommandClassifier,
  loadCommandClassifier,
  type PermissionInput,
  SessionGrants,
} from '../../src/permissions/index.js';
import { buildChildEnvironment, defaultResourceLimits, limitedShellArgs } from '../../src/sandbox/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { straceAvailable } from './bash-oracle.js';

const hasStrace = straceAvailable();

interface BashRun {
  stdout: string;
  status: number | null;
  /** Programs executed (full paths), the wrapper's own bash excluded; only under strace. */
  programs: string[];
  /** Paths passed to open/stat/mkdir/unlink calls that succeeded; only under strace. */
  touched: string[];
  /** Paths opened for writing, created or removed; only under strace. */
  writes: string[];
}

interface RunOptions {
  cwd: string;
  /** Variables on top of the process environment before the child environment filters it. */
  env?: Record<string, string>;
  /** Variables set after filtering (for the locale path, which the child environment drops). */
  raw?: Record<string, string>;
  trace?: boolean;
  timeoutSeconds?: number;
}

/** Runs `command` as the shell tool does (unsandboxed), optionally under strace. */
function runLikeGlassbox(command: string, options: RunOptions): BashRun {
  const env = {
    ...buildChildEnvironment({ ...process.env, ...options.env }, { PWD: options.cwd }),
    ...options.raw,
  };
  const bashArgs = ['bash', ...limitedShellArgs(command, defaultResourceLimits(10_000))];
  const log = join(options.cwd, '..', `strace-${process.pid}.log`);
  const traced = options.trace === true;
  const prefix = traced
    ? ['strace', '-f', '-qq', '-s', '512', '-e', 'trace=execve,openat,newfstatat,statx,stat,lstat,mkdir,mkdirat,unlink,unlinkat', '-o', log]
    : [];
  const result = spawnSync('timeout', ['-k', '1', String(options.timeoutSeconds ?? 10), ...prefix, ...bashArgs], {
    cwd: options.cwd,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const run: BashRun = { stdout: result.stdout ?? '', status: result.status, programs: [], touched: [], writes: [] };
  if (!traced) return run;
  const lines = readFileSync(log, 'utf8').split('\n');
  rmSync(log, { force: true });
  let first = true;
  for (const line of lines) {
    const call = line.replace(/^\d+\s+/, '');
    const path = /"((?:[^"\\]|\\.)*)"/.exec(call)?.[1];
    if (path === undefined || /= -1 /.test(call)) continue;
    if (call.startsWith('execve(')) {
      if (!first) run.programs.push(path);
      first = false;
    } else {
      run.touched.push(path);
      if (/O_WRONLY|O_RDWR|O_CREAT/.test(call) || /^(mkdir|mkdirat|unlink|unlinkat)\(/.test(call)) {
        if (path !== '/dev/null' && path !== '/dev/tty') run.writes.push(path);
      }
    }
  }
  return run;
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'a',
      GIT_AUTHOR_EMAIL: 'a@example.com',
      GIT_COMMITTER_NAME: 'a',
      GIT_COMMITTER_EMAIL: 'a@example.com',
    },
  });
}

/**
 * base/
 *   outside/secret.txt, outside/dir/inner.txt   — outside the project root
 *   proj/                                       — the project root (a git repository, all committed)
 *     .env, config/.env                         — secret files (committed, as hostile or careless repos do)
 *     linkout -> base/outside/dir               — a symlink a repository can ship
 *     config/leak -> base/outside/secret.txt
 *     src/a.ts, src/leak -> base/outside/secret.txt
 *     empty/.keep
 *     planted/.names (NUL-separated outside paths), planted/--files0-from=.names
 */
interface Fixture {
  base: string;
  root: string;
  outside: string;
}

const OUTSIDE_SECRET = 'OUTSIDE-SECRET-0451';
const INNER_SECRET = 'INNER-SECRET-2117';
const DOTENV_SECRET = 'DOTENV-SECRET-7781';
const CONFIG_SECRET = 'CONFIG-SECRET-3302';

function makeFixture(base: string): Fixture {
  const outside = join(base, 'outside');
  const root = join(base, 'proj');
  mkdirSync(join(outside, 'dir'), { recursive: true });
  writeFileSync(join(outside, 'secret.txt'), `${OUTSIDE_SECRET}\n`);
  writeFileSync(join(outside, 'dir', 'inner.txt'), `${INNER_SECRET}\n`);
  for (const dir of ['config', 'src', 'empty', 'planted']) mkdirSync(join(root, dir), { recursive: true });
  writeFileSync(join(root, 'README.md'), 'hello\n');
  writeFileSync(join(root, '.env'), `TOKEN=${DOTENV_SECRET}\n`);
  writeFileSync(join(root, 'config', '.env'), `TOKEN=${CONFIG_SECRET}\n`);
  writeFileSync(join(root, 'src', 'a.ts'), 'export {};\n');
  writeFileSync(join(root, 'empty', '.keep'), '');
  symlinkSync(join(outside, 'dir'), join(root, 'linkout'));
  symlinkSync(join(outside, 'secret.txt'), join(root, 'config', 'leak'));
  symlinkSync(join(outside, 'secret.txt'), join(root, 'src', 'leak'));
  writeFileSync(join(root, 'planted', '.names'), `${join(outside, 'secret.txt')}\0/etc/passwd\0`);
  writeFileSync(join(root, 'planted', '--files0-from=.names'), '');
  git(root, 'init', '-q');
  git(root, 'add', '-A');
  git(root, 'commit', '-qm', 'init');
  return { base, root, outside };
}

let classifier: CommandClassifier;
let fixture: Fixture;

before(async () => {
  classifier = await loadCommandClassifier();
  fixture = makeFixture(await makeTempDir());
});

after(() => {
  rmSync(fixture.base, { recursive: true, force: true });
});

function classify(command: string, cwd = fixture.root): CommandClassification {
  return classifier.classify(command, { root: fixture.root, cwd });
}

/** The verdict where the command runs without a sandbox (no bubblewrap, danger-full-access, escalation). */
function outsideVerdict(verdict: CommandClassification): CommandClassification {
  return verdict.outsideSandbox ?? verdict;
}

/**
 * The assertion every case ends with: the classifier must not call a command known safe while
 * bash, running it, did `effect`.
 */
function assertNotKnownSafe(command: string, verdict: CommandClassification, effect: string): void {
  assert.equal(verdict.safe, false, `${JSON.stringify(command)} is classified known safe (${verdict.reason}), but real bash ${effect}`);
}

describe('classifier attack: paths through symlinks and `..`', () => {
  // Root cause: paths are resolved lexically (`resolve()` folds `linkout/..` to `.`) before the
  // symlink check, while the kernel follows `linkout` first and then climbs from its target; and
  // bash's logical `cd` falls back to the physical path when the folded one does not exist. A glob
  // is checked by its base directory only, and a match that is a symlink leads anywhere (inside
  // the sandbox, which mounts `/` read-only, so under `untrusted` that is a read without a person).
  for (const [command, secret, where] of [
    ['cat linkout/../secret.txt', OUTSIDE_SECRET, 'outside'],
    ['cd linkout/../dir && cat inner.txt', INNER_SECRET, 'outside'],
    ['cd -P linkout/.. && cat secret.txt', OUTSIDE_SECRET, 'outside'],
    ['cat src/*', OUTSIDE_SECRET, 'inside'],
    ['grep -R SECRET src', OUTSIDE_SECRET, 'inside'],
  ] as const) {
    test(`\`${command}\` reads a file outside the root (${where} the sandbox)`, () => {
      const run = runLikeGlassbox(command, { cwd: fixture.root });
      assert.match(run.stdout, new RegExp(secret), 'precondition: bash read the outside file');
      const verdict = classify(command);
      assertNotKnownSafe(command, where === 'outside' ? outsideVerdict(verdict) : verdict, `printed a file under ${fixture.outside}`);
    });
  }
});

describe('classifier attack: options that name more files to read', () => {
  // Root cause: `--files0-from=F` is checked as a file read, but F is a list of further file names,
  // and `-` (stdin, always "harmless") can be a pipe from printf, which is known safe.
  test('`printf … | sort --files0-from=-` prints any file, secret or outside the root, without a sandbox', () => {
    const command = `printf '%s\\0' ${fixture.outside}/secret.txt .env | sort --files0-from=-`;
    const run = runLikeGlassbox(command, { cwd: fixture.root });
    assert.match(run.stdout, new RegExp(OUTSIDE_SECRET), 'precondition: bash read the outside file');
    assert.match(run.stdout, new RegExp(DOTENV_SECRET), 'precondition: bash read .env');
    assertNotKnownSafe(command, outsideVerdict(classify(command)), 'printed an outside file and .env, unsandboxed');
  });

  test('`printf … | wc --files0-from=-` reads files outside the root', () => {
    const command = `printf '%s\\0' ${fixture.outside}/secret.txt | wc -c --files0-from=-`;
    const run = runLikeGlassbox(command, { cwd: fixture.root });
    assert.match(run.stdout, new RegExp(`${fixture.outside}/secret.txt`), 'precondition: wc read the outside file');
    assertNotKnownSafe(command, outsideVerdict(classify(command)), 'counted an outside file');
  });

  test('`printf / | find -files0-from - …` walks from `/`', () => {
    const command = `printf '%s\\0' ${fixture.outside} | find -files0-from - -name inner.txt`;
    const run = runLikeGlassbox(command, { cwd: fixture.root });
    assert.match(run.stdout, /inner\.txt/, 'precondition: find listed the outside directory');
    assertNotKnownSafe(command, outsideVerdict(classify(command)), `listed ${fixture.outside}`);
  });

  // Root cause: `everyOptionHarmless` is set for du and wc, whose `--files0-from` reads a list of
  // names; a file named `--files0-from=.names` is a legal name a repository can ship.
  test('`cd planted && du *`: the glob expands to `--files0-from=.names` (outside the sandbox too)', () => {
    const command = 'cd planted && du *';
    const run = runLikeGlassbox(command, { cwd: fixture.root });
    assert.match(run.stdout, new RegExp(`${fixture.outside}/secret.txt`), 'precondition: du took the file name for an option');
    assertNotKnownSafe(command, outsideVerdict(classify(command)), 'read names from planted/.names and stat-ed files outside the root');
  });

  test('`cd planted && wc *`: the same, reading outside files (inside the sandbox)', () => {
    const command = 'cd planted && wc *';
    const run = runLikeGlassbox(command, { cwd: fixture.root });
    assert.match(run.stdout, new RegExp(`${fixture.outside}/secret.txt`), 'precondition: wc took the file name for an option');
    assertNotKnownSafe(command, classify(command), 'read files outside the root named in planted/.names');
  });
});

describe('classifier attack: recursive diff outside the sandbox', () => {
  // Root cause: a recursive grep is refused outside the sandbox because it reads secret files;
  // diff of two directories (recursive or not) reads every file in them, and `-N` prints the
  // whole contents of a file missing on the other side. It also follows symlinks.
  test('`diff -rN config empty` prints config/.env and a symlinked outside file, unsandboxed', () => {
    const command = 'diff -rN config empty';
    const run = runLikeGlassbox(command, { cwd: fixture.root });
    assert.match(run.stdout, new RegExp(CONFIG_SECRET), 'precondition: diff printed config/.env');
    assert.match(run.stdout, new RegExp(OUTSIDE_SECRET), 'precondition: diff followed config/leak');
    assertNotKnownSafe(command, outsideVerdict(classify(command)), 'printed config/.env and the outside target of config/leak');
  });

  test('`diff -N config empty` (not even recursive) prints config/.env', () => {
    const command = 'diff -N config empty';
    const run = runLikeGlassbox(command, { cwd: fixture.root });
    assert.match(run.stdout, new RegExp(CONFIG_SECRET), 'precondition: diff printed config/.env');
    assertNotKnownSafe(command, outsideVerdict(classify(command)), 'printed config/.env');
  });
});

describe('classifier attack: git reads a committed secret the check does not see', () => {
  // Root cause: secretOperand looks for a literal secret name, but git matches pathspecs as
  // globs (`'.e*'`), bash expands an unquoted glob to `.env` before git runs, `:0:<path>` names
  // the index, and a `:` inside `^{…}` is not the rev/path separator. The sandbox cannot mask
  // the repository's copy, so each of these prints the secret without a person.
  for (const command of ["git log -p -- '.e*'", 'git log -p -- config/.e*', "git show ':0:.env'", "git show 'HEAD^{/.:*}:.env'"]) {
    test(`\`${command}\` prints the committed .env`, () => {
      const run = runLikeGlassbox(command, { cwd: fixture.root });
      assert.match(run.stdout, new RegExp(`${DOTENV_SECRET}|${CONFIG_SECRET}`), 'precondition: git printed the secret');
      assertNotKnownSafe(command, classify(command), 'printed a committed secret file from the repository');
    });
  }
});

describe('classifier attack: git starts programs or writes', { skip: hasStrace ? false : 'strace is not installed' }, () => {
  // `%G?` verifies signatures like the excluded --show-signature: it runs gpg.program, which the
  // repository's own config names, on any commit that carries a gpgsig header.
  test("`git log -n 1 '--format=%G?'` runs the repository's gpg.program", () => {
    const repo = join(fixture.base, 'signed');
    mkdirSync(repo);
    git(repo, 'init', '-q');
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'base');
    const tree = git(repo, 'rev-parse', 'HEAD^{tree}').trim();
    const parent = git(repo, 'rev-parse', 'HEAD').trim();
    const body = `tree ${tree}\nparent ${parent}\nauthor a <a@example.com> 1700000000 +0000\ncommitter a <a@example.com> 1700000000 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\nsigned\n`;
    writeFileSync(join(repo, 'commit.txt'), body);
    const signed = git(repo, 'hash-object', '-t', 'commit', '-w', 'commit.txt').trim();
    rmSync(join(repo, 'commit.txt'));
    git(repo, 'update-ref', 'HEAD', signed);
    const program = join(repo, 'fake-gpg');
    writeFileSync(program, `#!/bin/sh\ntouch '${join(repo, 'gpg-ran')}'\nexit 1\n`);
    chmodSync(program, 0o755);
    git(repo, 'config', 'gpg.program', program);
    const command = "git log -n 1 '--format=%G?'";
    const run = runLikeGlassbox(command, { cwd: repo, trace: true });
    assert.ok(run.programs.includes(program), `precondition: git ran ${program} (ran ${run.programs.join(', ')})`);
    const verdict = classifier.classify(command, { root: repo });
    assertNotKnownSafe(command, verdict, `started ${program}, not in verdict.commands ${JSON.stringify(verdict.commands)}`);
  });

  // The doc excludes --remerge-diff because it writes objects; --diff-merges=remerge is the same.
  test('`git log --diff-merges=remerge` creates a directory under .git/objects', () => {
    const command = 'git log --diff-merges=remerge';
    const run = runLikeGlassbox(command, { cwd: fixture.root, trace: true });
    assert.ok(
      run.writes.some((path) => path.includes('tmp_objdir-remerge-diff')),
      `precondition: git wrote (wrote ${run.writes.join(', ')})`,
    );
    assertNotKnownSafe(command, classify(command), 'created .git/objects/tmp_objdir-remerge-diff-*');
  });

  test('`git describe --dirty --always` takes .git/index.lock (a write)', () => {
    const command = 'git describe --dirty --always';
    const run = runLikeGlassbox(command, { cwd: fixture.root, trace: true });
    assert.ok(
      run.writes.some((path) => path.endsWith('.git/index.lock')),
      `precondition: git wrote (wrote ${run.writes.join(', ')})`,
    );
    assertNotKnownSafe(command, classify(command), 'created and removed .git/index.lock');
  });
});

describe('classifier attack: locale', () => {
  // Root cause: in GBK (also GB18030, Big5, Shift JIS) a byte 0x40–0x7E can be the second byte
  // of a two-byte character, and `|` is 0x7C. `€` is E2 82 AC in UTF-8: bash in zh_CN.GBK reads
  // E2 82 as one character and AC 7C as another, so the `|` is not a pipe and every word of the
  // "second command" becomes an argument of find. The child environment passes LANG and LC_*.
  const localeDir = join(process.env.TMPDIR ?? '/tmp', `glassbox-attack-locale-${process.pid}`);
  const buildLocale = (): boolean => {
    if (spawnSync('localedef', ['--help'], { stdio: 'ignore' }).status !== 0) return false;
    mkdirSync(localeDir, { recursive: true });
    spawnSync('localedef', ['-f', 'GBK', '-i', 'zh_CN', '--no-archive', join(localeDir, 'zh_CN.GBK')], { stdio: 'ignore' });
    return existsSync(join(localeDir, 'zh_CN.GBK', 'LC_CTYPE'));
  };

  after(() => rmSync(localeDir, { recursive: true, force: true }));

  test('`find … -name €|echo -o -exec touch … ;` runs touch under LC_ALL=zh_CN.GBK', (t) => {
    if (!buildLocale()) {
      t.skip('localedef or the GBK charmap is not available');
      return;
    }
    const marker = join(fixture.root, 'gbk-ran');
    const command = `find . -maxdepth 0 -name €|echo -o -exec touch ${marker} ';'`;
    // LOCPATH only points glibc at the locale built here; on a machine with zh_CN.GBK installed,
    // LC_ALL (which the child environment passes) is all it takes.
    runLikeGlassbox(command, { cwd: fixture.root, env: { LC_ALL: 'zh_CN.GBK' }, raw: { LOCPATH: localeDir } });
    const ran = existsSync(marker);
    rmSync(marker, { force: true });
    assert.ok(ran, 'precondition: find ran touch');
    assertNotKnownSafe(
      command,
      outsideVerdict(classify(command)),
      `ran \`touch\` through find -exec (the pipe was part of a GBK character)`,
    );
  });
});

describe('classifier attack: PATH', () => {
  // Root cause: known-safe programs other than builtins are found on the PATH the child inherits,
  // which may hold a directory inside the project (an activated .venv, node_modules/.bin); the
  // project, writable by sandboxed commands or shipped by the repository, then names the program.
  test("`cat README.md` runs the project's .venv/bin/cat when PATH holds it", () => {
    const bin = join(fixture.root, '.venv', 'bin');
    mkdirSync(bin, { recursive: true });
    const marker = join(fixture.root, 'path-ran');
    writeFileSync(join(bin, 'cat'), `#!/bin/sh\ntouch '${marker}'\nexec /bin/cat "$@"\n`);
    chmodSync(join(bin, 'cat'), 0o755);
    const command = 'cat README.md';
    try {
      runLikeGlassbox(command, { cwd: fixture.root, env: { PATH: `${bin}:/usr/bin:/bin` } });
      const ran = existsSync(marker);
      assert.ok(ran, 'precondition: bash ran .venv/bin/cat');
      // The permission gate classifies with the PATH the command will run with.
      const verdict = classifier.classify(command, { root: fixture.root, searchPath: `${bin}:/usr/bin:/bin` });
      assertNotKnownSafe(command, outsideVerdict(verdict), 'ran .venv/bin/cat, a file inside the project, instead of /usr/bin/cat');
      assert.equal(classify(command).outsideSandbox, undefined, 'with the system PATH cat stays on the short list');
    } finally {
      rmSync(join(fixture.root, '.venv'), { recursive: true, force: true });
      rmSync(marker, { force: true });
    }
  });
});

describe('classifier attack: other reads, writes and never-ending commands', () => {
  test('`test <outside> -ef <outside>` tells whether a file outside the root exists', () => {
    const present = `test ${fixture.outside}/secret.txt -ef ${fixture.outside}/secret.txt`;
    const absent = `test ${fixture.outside}/missing -ef ${fixture.outside}/missing`;
    assert.equal(runLikeGlassbox(present, { cwd: fixture.root }).status, 0, 'precondition: present file');
    assert.equal(runLikeGlassbox(absent, { cwd: fixture.root }).status, 1, 'precondition: absent file');
    assertNotKnownSafe(
      present,
      outsideVerdict(classify(present)),
      'stat-ed a file outside the root (-ef/-nt/-ot operands are not checked)',
    );
  });

  test('`date -d \'TZ="<file>" now\'` opens the file named', { skip: hasStrace ? false : 'strace is not installed' }, () => {
    const command = `date -d 'TZ="${fixture.outside}/secret.txt" now'`;
    const run = runLikeGlassbox(command, { cwd: fixture.root, trace: true });
    assert.ok(run.touched.includes(`${fixture.outside}/secret.txt`), 'precondition: date opened the outside file');
    assertNotKnownSafe(command, outsideVerdict(classify(command)), 'opened a file outside the root as a time zone');
  });

  test('`file .env` reads a secret file (its operands are treated as metadata)', {
    skip: hasStrace ? false : 'strace is not installed',
  }, () => {
    const command = 'file .env';
    const run = runLikeGlassbox(command, { cwd: fixture.root, trace: true });
    assert.ok(run.touched.includes('.env'), 'precondition: file opened .env');
    assertNotKnownSafe(command, outsideVerdict(classify(command)), 'opened and read .env, unsandboxed');
  });

  test('`echo hi | tac` writes a temporary file', { skip: hasStrace ? false : 'strace is not installed' }, () => {
    const command = 'echo hi | tac';
    const run = runLikeGlassbox(command, { cwd: fixture.root, trace: true });
    assert.ok(
      run.writes.some((path) => /\/tac[A-Za-z0-9]{6}$/.test(path)),
      `precondition: tac wrote (${run.writes.join(', ')})`,
    );
    assertNotKnownSafe(command, outsideVerdict(classify(command)), 'created and removed $TMPDIR/tacXXXXXX (tac copies a pipe to a file)');
  });

  // seqRule refuses `inf` because it never ends; a step below the precision of long double does
  // the same (1 + 1e-20 rounds back to 1 for 1e19 steps at a time).
  test('`seq 1 1e-20 2` does not end', () => {
    const command = 'seq 1 1e-20 2';
    const run = runLikeGlassbox(`${command} >/dev/null`, { cwd: fixture.root, timeoutSeconds: 2 });
    assert.equal(run.status, 124, 'precondition: seq was still running when timeout stopped it');
    assertNotKnownSafe(command, outsideVerdict(classify(command)), 'never ended (timeout killed it)');
  });
});

describe('session grants cover more than the approved program', () => {
  // Root cause: the grant key is argv[0] plus the first word not starting with `-`, so any option
  // before or after it rides along: options that take code (`--eval=`), pick the program or
  // config git runs (`--exec-path=`, `--config-env=`), or shift which word is "first".
  const input = (command: string): PermissionInput => ({
    toolName: 'shell',
    access: { kind: 'exec', command, workdir: fixture.root, escalate: false, justification: null },
    commandSafety: classify(command),
  });
  const granted = (approved: string, later: string): boolean => {
    const grants = new SessionGrants();
    grants.add(input(approved));
    return grants.matches(input(later));
  };

  test('approving `node --test` covers `node --eval=…`, which runs any code', () => {
    const marker = join(fixture.root, 'node-ran');
    const later = `node '--eval=require("fs").writeFileSync(${JSON.stringify(marker)}, "")'`;
    runLikeGlassbox(later, { cwd: fixture.root });
    const ran = existsSync(marker);
    rmSync(marker, { force: true });
    assert.ok(ran, 'precondition: node ran the code');
    assert.equal(granted('node --test', later), false, 'the grant for `node --test` (key `node`) covers arbitrary code');
  });

  test('approving `git commit -m wip` covers `git --config-env=core.hooksPath=PWD commit`, which runs hooks from the work tree', () => {
    const repo = join(fixture.base, 'hooks');
    mkdirSync(repo);
    git(repo, 'init', '-q');
    git(repo, 'config', 'user.name', 'a');
    git(repo, 'config', 'user.email', 'a@example.com');
    const marker = join(repo, 'hook-ran');
    // A work-tree file (writable by a sandboxed command), where .git/hooks is frozen read-only.
    writeFileSync(join(repo, 'pre-commit'), `#!/bin/sh\ntouch '${marker}'\n`);
    chmodSync(join(repo, 'pre-commit'), 0o755);
    const later = 'git --config-env=core.hooksPath=PWD commit -q --allow-empty -m x';
    runLikeGlassbox(later, { cwd: repo });
    assert.ok(existsSync(marker), 'precondition: git ran ./pre-commit');
    assert.equal(granted('git commit -m wip', later), false, 'the grant for `git commit` covers hooks from the work tree');
  });

  for (const [approved, later, why] of [
    ['python -m pytest', `python -W pytest -c 'import os; os.system("id")'`, '`-W pytest` makes `pytest` the key word; -c runs any code'],
    ['git commit -m wip', 'git --exec-path=/tmp/x commit -m x', '--exec-path= picks where git finds its programs'],
    ['npm test', 'npm test --script-shell=/tmp/x', '--script-shell= picks the program npm runs scripts with'],
    ['make', `make '--eval=all:;touch x'`, '--eval= adds any recipe'],
  ] as const) {
    test(`approving \`${approved}\` covers \`${later}\``, () => {
      assert.equal(granted(approved, later), false, why);
    });
  }
});
