// A second adversarial review of the command classifier, written as cases that fail today. Each
// case is a command string the classifier calls known safe (inside the sandbox, or on the short
// list that runs without one) and real bash, run the way the shell tool runs it (the same wrapper
// and child environment as test/security/classifier-attack.test.ts, stdin closed), observed doing
// what "known safe" rules out: reading outside the project root or a secret file, starting a
// program the verdict does not list, deleting files. The oracle is bash (and strace where the
// effect is a system call), never the classifier's own reading.
//
// A case passes once the classifier stops calling the string known safe (or the grant stops
// covering it), or once bash stops doing the harmful thing. A case whose effect the machine cannot
// show (strace or ripgrep missing) is skipped, not passed.

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
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
/** ripgrep on PATH, or the copy @vscode/ripgrep ships in node_modules; null when neither. */
function findRipgrep(): string | null {
  const onPath = spawnSync('bash', ['-c', 'command -v rg'], { encoding: 'utf8' }).stdout.trim();
  if (onPath !== '') return onPath;
  for (const candidate of ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64']) {
    const path = join(process.cwd(), 'node_modules', '@vscode', `ripgrep-${candidate}`, 'bin', 'rg');
    if (existsSync(path)) return path;
  }
  const bundled = join(process.cwd(), 'node_modules', '@vscode', 'ripgrep', 'bin', 'rg');
  return existsSync(bundled) ? bundled : null;
}

/**
 * base/
 *   outside/secret.txt, outside/dir/inner.txt   — outside the project root
 *   proj/                                       — the project root (a git repository, all committed)
 *     .env                                      — a secret file (committed, as careless repos do)
 *     README.md, empty/.keep, src/a.ts
 *     linkout -> base/outside/dir               — a symlink a repository can ship
 *     src/leak -> base/outside/secret.txt
 *     "bad\xff" -> base/outside/dir             — a symlink whose name is not valid UTF-8 (git stores bytes)
 *     walk/-L, walk/sub/deep -> base/outside/dir
 */
interface Fixture {
  base: string;
  root: string;
  outside: string;
}

const OUTSIDE_SECRET = 'OUTSIDE-SECRET-5190';
const INNER_SECRET = 'INNER-SECRET-8842';
const DOTENV_SECRET = 'DOTENV-SECRET-6627';

function makeFixture(base: string): Fixture {
  const outside = join(base, 'outside');
  const root = join(base, 'proj');
  mkdirSync(join(outside, 'dir'), { recursive: true });
  writeFileSync(join(outside, 'secret.txt'), `${OUTSIDE_SECRET}\n`);
  writeFileSync(join(outside, 'dir', 'inner.txt'), `${INNER_SECRET}\n`);
  for (const dir of ['src', 'empty', join('walk', 'sub')]) mkdirSync(join(root, dir), { recursive: true });
  writeFileSync(join(root, 'README.md'), 'hello\n');
  writeFileSync(join(root, '.env'), `TOKEN=${DOTENV_SECRET}\n`);
  writeFileSync(join(root, 'src', 'a.ts'), 'export {};\n');
  writeFileSync(join(root, 'empty', '.keep'), '');
  symlinkSync(join(outside, 'dir'), join(root, 'linkout'));
  symlinkSync(join(outside, 'secret.txt'), join(root, 'src', 'leak'));
  symlinkSync(join(outside, 'dir'), Buffer.concat([Buffer.from(`${root}/bad`), Buffer.from([0xff])]));
  writeFileSync(join(root, 'walk', '-L'), '');
  symlinkSync(join(outside, 'dir'), join(root, 'walk', 'sub', 'deep'));
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

function assertNotKnownSafe(command: string, verdict: CommandClassification, effect: string): void {
  assert.equal(verdict.safe, false, `${JSON.stringify(command)} is classified known safe (${verdict.reason}), but real bash ${effect}`);
}

describe('classifier attack 2: bracket expressions the glob check misreads', () => {
  // Root cause: globComponentPattern ends a bracket expression at the first `]` after `[x`, so
  // `[[:alpha:]]` (also `[[=n=]]`, `[[.n.]]`) is read as one character followed by a literal `]`,
  // and `[!]x]` as `[!]` followed by `x]`. The glob's matches are then computed wrong (none), the
  // glob's own text leads nowhere, and what bash really matches — `linkout`, a symlink out of the
  // root — is never checked. Metadata globs are allowed outside the sandbox.
  for (const command of ['ls li[[:alpha:]]kout', 'ls li[[=n=]]kout', 'ls li[[.n.]]kout', 'ls [!]x]inkout']) {
    test(`\`${command}\` lists a directory outside the root, unsandboxed`, () => {
      const run = runLikeGlassbox(command, { cwd: fixture.root });
      assert.match(run.stdout, /inner\.txt/, 'precondition: bash expanded the glob to linkout and ls listed its target');
      assertNotKnownSafe(command, outsideVerdict(classify(command)), `listed ${fixture.outside}/dir through linkout`);
    });
  }

  test('`cat src/l[[:alpha:]]ak` reads a file outside the root (inside the sandbox)', () => {
    const command = 'cat src/l[[:alpha:]]ak';
    const run = runLikeGlassbox(command, { cwd: fixture.root });
    assert.match(run.stdout, new RegExp(OUTSIDE_SECRET), 'precondition: bash expanded the glob to src/leak');
    assertNotKnownSafe(command, classify(command), `printed ${fixture.outside}/secret.txt through src/leak`);
  });
});

describe('classifier attack 2: file names that are not UTF-8', () => {
  // Root cause: expandGlob reads directories with readdirSync's UTF-8 decoding, which turns the
  // byte 0xFF into U+FFFD; the "match" `bad\uFFFD` does not exist, so physicalLocation counts it
  // as inside the root, while bash passes the real name, a symlink to a directory outside.
  test('`ls bad*` lists a directory outside the root through a symlink named `bad\\xff`, unsandboxed', () => {
    const command = 'ls bad*';
    const run = runLikeGlassbox(command, { cwd: fixture.root });
    assert.match(run.stdout, /inner\.txt/, 'precondition: ls listed the symlink target');
    assertNotKnownSafe(command, outsideVerdict(classify(command)), `listed ${fixture.outside}/dir`);
  });
});

describe('classifier attack 2: a glob that expands to `-L` for ls', () => {
  // Root cause: ls is marked everyOptionHarmless, but -L/--dereference is an ls option that the
  // doc itself rules out (it follows every symbolic link). A file named `-L` (a legal name a
  // repository can ship) matched by `*` turns `ls -R *` into `ls -R -L sub`, which walks into
  // sub/deep, a symlink out of the root that no check sees (it is not matched by the glob).
  test('`ls -R *` run in walk/ lists a directory outside the root, unsandboxed', () => {
    // The shell tool takes a working directory; from walk/ the glob matches only `-L` and `sub`.
    const walk = join(fixture.root, 'walk');
    const command = 'ls -R *';
    const run = runLikeGlassbox(command, { cwd: walk });
    assert.match(run.stdout, /inner\.txt/, 'precondition: ls -R -L followed sub/deep');
    assertNotKnownSafe(command, outsideVerdict(classify(command, walk)), `listed ${fixture.outside}/dir through walk/sub/deep`);
  });
});

describe('classifier attack 2: date reads a time zone file named in its input', () => {
  // Root cause: dateRule refuses `TZ=` in a -d string, but `date -f FILE` reads one date string
  // a line, and `-` (stdin, always "harmless") can be a pipe from printf, which is known safe;
  // a line `TZ="<path>" now` makes date open <path> as a zone file.
  test('`printf \'TZ="<file>" now\' | date -f -` opens the file named, unsandboxed', {
    skip: hasStrace ? false : 'strace is not installed',
  }, () => {
    const target = `${fixture.outside}/secret.txt`;
    const command = `printf '%s\\n' 'TZ="${target}" now' | date -f -`;
    const run = runLikeGlassbox(command, { cwd: fixture.root, trace: true });
    assert.ok(run.touched.includes(target), 'precondition: date opened the outside file');
    assertNotKnownSafe(command, outsideVerdict(classify(command)), `opened ${target} as a time zone`);
  });

  test('`date -f dates.txt` opens the file a project file names, unsandboxed', {
    skip: hasStrace ? false : 'strace is not installed',
  }, () => {
    const target = `${fixture.outside}/secret.txt`;
    const dates = join(fixture.root, 'dates.txt');
    writeFileSync(dates, `TZ="${target}" now\n`);
    try {
      const command = 'date -f dates.txt';
      const run = runLikeGlassbox(command, { cwd: fixture.root, trace: true });
      assert.ok(run.touched.includes(target), 'precondition: date opened the outside file');
      assertNotKnownSafe(command, outsideVerdict(classify(command)), `opened ${target} as a time zone`);
    } finally {
      rmSync(dates, { force: true });
    }
  });
});

describe('classifier attack 2: egrep and fgrep look grep up on PATH', () => {
  // Root cause: outside the sandbox the classifier checks that argv[0] is not a file inside the
  // project, but egrep and fgrep are shell scripts that `exec grep -E "$@"` by a PATH lookup of
  // their own: with a project directory on PATH (an activated .venv, node_modules/.bin) the
  // project's `grep` runs on the host. `grep` itself is refused on the same PATH.
  for (const program of ['egrep', 'fgrep']) {
    test(`\`${program} hello README.md\` runs the project's .venv/bin/grep when PATH holds it`, (t) => {
      const script = spawnSync('bash', ['-c', `command -v ${program}`], { encoding: 'utf8' }).stdout.trim();
      if (script === '' || !/exec grep/.test(readFileSync(script, 'utf8'))) {
        t.skip(`${program} is not a script that runs grep from PATH here`);
        return;
      }
      const bin = join(fixture.root, '.venv', 'bin');
      mkdirSync(bin, { recursive: true });
      const marker = join(fixture.root, 'grep-ran');
      writeFileSync(join(bin, 'grep'), `#!/bin/sh\ntouch '${marker}'\n`);
      chmodSync(join(bin, 'grep'), 0o755);
      const command = `${program} hello README.md`;
      const searchPath = `${bin}:/usr/bin:/bin`;
      try {
        runLikeGlassbox(command, { cwd: fixture.root, env: { PATH: searchPath } });
        assert.ok(existsSync(marker), `precondition: ${program} ran .venv/bin/grep`);
        const verdict = classifier.classify(command, { root: fixture.root, searchPath });
        assertNotKnownSafe(command, outsideVerdict(verdict), 'ran .venv/bin/grep, a file inside the project, on the host');
      } finally {
        rmSync(join(fixture.root, '.venv'), { recursive: true, force: true });
        rmSync(marker, { force: true });
      }
    });
  }
});

describe('classifier attack 2: recursive walks that follow symlinks (inside the sandbox)', () => {
  // Root cause: the doc says no allowed option follows links in a recursive walk, but GNU diff -r
  // follows symlinks by default (only --no-dereference stops it), and rg's -L/--follow is in
  // rg's table. Files reached that way are checked by nobody.
  test('`diff -rN src empty` prints the outside target of src/leak', () => {
    const command = 'diff -rN src empty';
    const run = runLikeGlassbox(command, { cwd: fixture.root });
    assert.match(run.stdout, new RegExp(OUTSIDE_SECRET), 'precondition: diff followed src/leak');
    assertNotKnownSafe(command, classify(command), `printed ${fixture.outside}/secret.txt through src/leak`);
  });

  for (const command of ['rg -L SECRET', 'rg --follow SECRET src']) {
    test(`\`${command}\` prints the outside target of src/leak`, (t) => {
      const rg = findRipgrep();
      if (rg === null) {
        t.skip('ripgrep is not installed');
        return;
      }
      const run = runLikeGlassbox(command, { cwd: fixture.root, env: { PATH: `${join(rg, '..')}:/usr/bin:/bin` } });
      assert.match(run.stdout, new RegExp(OUTSIDE_SECRET), 'precondition: rg followed src/leak');
      assertNotKnownSafe(command, classify(command), `printed ${fixture.outside}/secret.txt through src/leak`);
    });
  }
});

describe('classifier attack 2: git pathspecs the secret check misreads', () => {
  // Root cause: pathspecPattern ends a bracket expression at the first `]` (so `[[:alpha:]]` and
  // `[!]x]` match nothing like `.env`), and a pathspec with only a backslash (`.en\v`) is not
  // tested as a pattern at all, while git's wildmatch treats `\` as glob-special. Each prints the
  // committed .env, which the sandbox cannot mask (.git stays readable).
  for (const command of ["git log -p -- '.en[[:alpha:]]'", "git show HEAD -- '[!]x]env'", "git log -p -- '.en\\v'"]) {
    test(`\`${command}\` prints the committed .env`, () => {
      const run = runLikeGlassbox(command, { cwd: fixture.root });
      assert.match(run.stdout, new RegExp(DOTENV_SECRET), 'precondition: git printed .env');
      assertNotKnownSafe(command, classify(command), 'printed the committed secret file from the repository');
    });
  }
});

describe('classifier attack 2: git writes the index', { skip: hasStrace ? false : 'strace is not installed' }, () => {
  // Root cause: `describe --dirty` was excluded because it refreshes the index (a write to .git),
  // but plain `git status` and `git diff` do the same opportunistic refresh: once a tracked
  // file's stat data changed (any edit, a checkout, a touch), they take .git/index.lock and
  // rename it over .git/index. Only --no-optional-locks (or GIT_OPTIONAL_LOCKS=0) stops it: the
  // child environment now sets GIT_OPTIONAL_LOCKS=0 for every command, so bash's git writes
  // nothing (and in the sandbox .git is read-only besides).
  // `git diff` refreshes the index whatever GIT_OPTIONAL_LOCKS says (git 2.39): known safe only in
  // the sandbox, where .git is mounted read-only and the refresh fails quietly
  // (test/sandbox/bubblewrap-sandbox.test.ts freezes .git); docs/permissions.md, Known limits.
  for (const [index, command] of ['git status'].entries()) {
    test(`\`${command}\` run as the shell tool runs it writes nothing to .git`, () => {
      const later = new Date(Date.now() + 60_000 * (index + 1));
      utimesSync(join(fixture.root, 'README.md'), later, later);
      // The same git without the tool's environment does write: the case is live.
      const bare = spawnSync('strace', ['-f', '-qq', '-e', 'trace=openat', 'git', ...command.split(' ').slice(1)], {
        cwd: fixture.root,
        encoding: 'utf8',
        env: { ...process.env, GIT_OPTIONAL_LOCKS: '1' },
      });
      assert.match(bare.stderr, /index\.lock/, 'precondition: a plain git refreshes the index');
      utimesSync(join(fixture.root, 'README.md'), later, new Date(later.getTime() + 1000));
      const run = runLikeGlassbox(command, { cwd: fixture.root, trace: true });
      assert.equal(classify(command).safe, true, 'git status and git diff stay known safe in the sandbox');
      assert.deepEqual(
        run.writes.filter((path) => path.includes('.git/')),
        [],
        'known safe, yet git wrote to .git',
      );
    });
  }
});

describe('classifier attack 2: session grants', () => {
  // Root cause: the grant key quotes each word's text, and a glob word and a quoted word with the
  // same text get the same key: `rm '*'` (removes a file literally named `*`) and `rm *` (removes
  // every file) are both `rm '*'`.
  const input = (command: string): PermissionInput => ({
    toolName: 'shell',
    access: { kind: 'exec', command, workdir: fixture.root, escalate: false, justification: null },
    commandSafety: classify(command),
  });

  test("approving `rm '*'` covers `cd scratch && rm *`, which deletes every file", () => {
    const scratch = join(fixture.root, 'scratch');
    mkdirSync(scratch, { recursive: true });
    writeFileSync(join(scratch, 'keep.txt'), 'keep\n');
    try {
      const later = 'cd scratch && rm *';
      runLikeGlassbox(later, { cwd: fixture.root });
      assert.equal(existsSync(join(scratch, 'keep.txt')), false, 'precondition: bash deleted scratch/keep.txt');
      const grants = new SessionGrants();
      grants.add(input("rm '*'"));
      assert.equal(grants.matches(input(later)), false, "the grant for `rm '*'` covers `rm *`");
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
