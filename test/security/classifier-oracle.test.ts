// A fuzzer for "known safe", with bash itself as the oracle (issue 22). It builds command strings
// from every construct of the bash grammar — quoting of every kind, line continuations,
// here-documents with every delimiter form, here-strings, expansions and substitutions (nested
// backticks too), comments, control characters, globs, braces, tildes, keywords, assignments,
// redirections, separators — around a payload (`touch …`) and around programs the allowlist
// knows. Every string the classifier calls known safe is then run by real bash, the way the
// shell tool runs it, under strace: no process other than the programs the classifier listed may
// start, and nothing may be written. Seeds: every bypass ever found.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { loadCommandClassifier } from '../../src/permissions/index.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { commandsRunningPayload, runUnderBash, straceAvailable } from './bash-oracle.js';

const hasStrace = straceAvailable();
if (!hasStrace && process.env.CI)
  test('CI has strace for the bash oracle', () => assert.fail('strace is not on PATH (apt-get install strace)'));

const MARK = 'oracle-mark';
const PAYLOAD = `touch ${MARK}`;

/** The bypasses found so far (issue 22's five root causes, earlier reviews, the old fuzzer's seeds). */
export const SEEDS: readonly string[] = [
  `true\r# ; ${PAYLOAD}`,
  `true\u000b# ; ${PAYLOAD}`,
  `true\f# ; ${PAYLOAD}`,
  `echo "$\\\n(${PAYLOAD})"`,
  `echo $\\\n(${PAYLOAD})`,
  `echo "\${\\\nx:-$(${PAYLOAD})}"`,
  `cat <\\\n<< "$(${PAYLOAD})"`,
  `cat <<E"O"F\nEOF\n${PAYLOAD}\nE"O"F`,
  `cat <<$'EOF'\nEOF\n${PAYLOAD}\n$'EOF'`,
  `cat <<"$x"\n$x\n${PAYLOAD}\n"$x"`,
  `cat <<E\\OF\nEOF\n${PAYLOAD}\nE\\OF`,
  `cat <<E\\\nOF\nEOF\n${PAYLOAD}\nOF`,
  `echo \`echo \\\`${PAYLOAD}\\\`\``,
  `sed -n 's/[/]/#/e' README.md`,
  `sed -n '1w ${MARK}' README.md`,
  `npm test\r# ; ${PAYLOAD}`,
  `ls\r;${PAYLOAD}`,
  `echo a\u0085; ${PAYLOAD}`,
  `echo \u00e9\\; ${PAYLOAD}`,
  `echo \${x:-\`${PAYLOAD}\`}`,
  `echo "\${x:-'$(${PAYLOAD})'}"`,
  `test -v 'a[$(${PAYLOAD})]'`,
  `echo >(${PAYLOAD})`,
  `tail +f README.md`,
  `echo a=~/x`,
  `find -- . -name x`,
  `diff --context README.md README.md`,
  `ls #; ${PAYLOAD}`,
  `ls\n${PAYLOAD}`,
  `git -c core.pager=${MARK} log`,
];

/** Program starts the allowlist knows, so that many generated strings are judged on their words. */
const HEADS = [
  'echo',
  'printf %s',
  'cat README.md',
  'ls',
  'ls -la',
  'true',
  'grep -n a README.md',
  'sed -n 1p README.md',
  'head -n 1 README.md',
  'wc -l README.md',
  'test -n',
  "find . -name '*.md'",
  'sort README.md',
  'cut -c1 README.md',
  'tr a b',
  'git status',
  'git log -1',
  '[ -f README.md ]',
];

/** Ways to put a word (`W`) where bash reads it; `P` is the payload command. */
const WRAPPERS = [
  'W',
  "'W'",
  '"W"',
  "$'W'",
  '\\W',
  "a'W'b",
  '"a"W',
  '$(P)',
  '`P`',
  '`echo \\`P\\``',
  '$( P )',
  '${x:-W}',
  '${x:-$(P)}',
  '"${x:-`P`}"',
  '$x',
  '${x}',
  '$((1))',
  '$[1]',
  '<(P)',
  '>(P)',
  '{W,b}',
  '{1..2}',
  '~',
  '~/W',
  'a=~',
  '*',
  '*.md',
  '[ab]',
  '?',
  'W#W',
  '# W',
  '#; P',
  '!W',
];

const SEPARATORS = [' ', ' ', ' ', ';', ' ; ', ' && ', ' || ', ' | ', '\n', ' & ', '|&', ';;', '\t'];
const REDIRECTS = [
  '>/dev/null',
  '2>/dev/null',
  '2>&1',
  '>&2',
  `>${MARK}`,
  `>>${MARK}`,
  `&>${MARK}`,
  `>&${MARK}`,
  '<README.md',
  `>|${MARK}`,
  '<<<W',
  '> "/dev/null"',
];
const CONTROLS = ['\r', '\u000b', '\f', '\u0001', '\u001b', '\u007f', '\u0085', '\u00a0', '\u2028', '\t'];
const HEREDOCS = [
  'cat <<EOF\nW\nEOF',
  "cat <<'EOF'\nW\nEOF",
  'cat <<"EOF"\nW\nEOF',
  'cat <<\\EOF\nW\nEOF',
  'cat <<-EOF\n\tW\n\tEOF',
  `cat <<E"O"F\nEOF\n${PAYLOAD}\nE"O"F`,
  `cat <<$'EOF'\nEOF\n${PAYLOAD}\n$'EOF'`,
  `cat <<E\\\nOF\nEOF\n${PAYLOAD}\nOF`,
  'cat <<< W',
];
const STATEMENTS = [
  '(W)',
  '{ W; }',
  '! W',
  'if W; then W; fi',
  'for i in a; do W; done',
  'time W',
  'x=1 W',
  'PATH=. W',
  'eval W',
  'xargs W',
];

const word: fc.Arbitrary<string> = fc.letrec<{ word: string }>((tie) => ({
  word: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('a', 'README.md', '-n', '--', MARK, PAYLOAD, 'src', '..', '/etc/passwd', '%s'),
    fc.tuple(fc.constantFrom(...WRAPPERS), tie('word')).map(([wrapper, inner]) => wrapper.replaceAll('W', inner).replaceAll('P', PAYLOAD)),
  ),
})).word;

const simpleCommand: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom(...HEADS), fc.array(fc.oneof(word, fc.constantFrom(...REDIRECTS)), { maxLength: 3 }))
  .map(([head, parts]) => [head, ...parts].join(' ').replaceAll('W', 'a'));

const statement: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: simpleCommand },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...HEREDOCS), word).map(([shape, inner]) => shape.replaceAll('W', inner)) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...STATEMENTS), simpleCommand).map(([shape, inner]) => shape.replaceAll('W', inner)) },
);

/** A script, then perhaps a control character or a line continuation dropped in at some offset. */
const script: fc.Arbitrary<string> = fc
  .tuple(
    fc.array(fc.tuple(statement, fc.constantFrom(...SEPARATORS)), { minLength: 1, maxLength: 3 }),
    fc.option(fc.tuple(fc.oneof(fc.constantFrom(...CONTROLS), fc.constant('\\\n')), fc.nat()), { freq: 3 }),
  )
  .map(([parts, mutation]) => {
    let text = parts.map(([part, separator], index) => (index === parts.length - 1 ? part : part + separator)).join('');
    if (mutation !== null) {
      const [insert, at] = mutation;
      const offset = at % (text.length + 1);
      text = text.slice(0, offset) + insert + text.slice(offset);
    }
    return text;
  });

function scratchProject(dir: string): { root: string; env: Record<string, string> } {
  const root = join(dir, 'project');
  mkdirSync(join(root, 'src'), { recursive: true });
  writeFileSync(join(root, 'README.md'), 'a line\nanother\n');
  writeFileSync(join(root, 'src', 'a.ts'), 'export {};\n');
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: join(dir, 'home'), LANG: 'C.UTF-8', GIT_PAGER: 'cat', PAGER: 'cat' };
  mkdirSync(env.HOME, { recursive: true });
  // A real repository, so git's subcommands do their real work (and their opportunistic index
  // refresh: writes inside .git, which the sandbox keeps read-only, are the one exception below).
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, env: { ...env, GIT_CONFIG_NOSYSTEM: '1' }, stdio: 'ignore' });
  git('init', '-q');
  git('-c', 'user.email=a@b', '-c', 'user.name=a', 'add', '.');
  git('-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-qm', 'x');
  return { root, env };
}

function snapshot(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, rel: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === '.git') continue;
      out.push(`${rel}${entry.name}`);
      if (entry.isDirectory()) walk(join(dir, entry.name), `${rel}${entry.name}/`);
    }
  };
  walk(root, '');
  return out.sort();
}

describe('known safe, with bash as the oracle', { skip: hasStrace ? false : 'strace is not installed' }, () => {
  const samples = [...SEEDS, ...fc.sample(script, { numRuns: 3000, seed: 2026_12_02 })];

  test('the generator reaches bash: many generated strings really run the payload', async () => {
    // Without this the property below could pass by generating only strings bash never runs.
    await withTempDir(async (dir) => {
      const { root, env } = scratchProject(dir);
      const withPayload = samples.filter((text) => text.includes(PAYLOAD)).slice(0, 120);
      const ran = (await commandsRunningPayload(withPayload, MARK, root, env)).filter(Boolean).length;
      assert.ok(ran >= withPayload.length / 4, `only ${ran} of ${withPayload.length} samples ran the payload`);
    });
  });

  test('no string the classifier calls known safe starts an unlisted program or writes anything', async () => {
    const classifier = await loadCommandClassifier();
    await withTempDir(async (dir) => {
      const { root, env } = scratchProject(dir);
      const known = samples.map((text) => ({ text, verdict: classifier.classify(text, { root }) })).filter(({ verdict }) => verdict.safe);
      // The property must not hold vacuously: plenty of generated strings are plain enough.
      assert.ok(known.length >= 100, `only ${known.length} generated strings were known safe`);
      process.stderr.write(`oracle: ${known.length} of ${samples.length} strings known safe\n`);
      const before = snapshot(root);
      const reports = await runUnderBash(
        known.map(({ text }) => text),
        root,
        env,
        dir,
      );
      const wrong: string[] = [];
      for (const [index, { text, verdict }] of known.entries()) {
        const { programs, writes, timedOut } = reports[index]!;
        const unlisted = programs.filter((program) => !verdict.commands.includes(program));
        const written = writes.filter((path) => !(programs.includes('git') && /(^|\/)\.git\//.test(path)));
        if (unlisted.length > 0 || written.length > 0 || timedOut) {
          wrong.push(
            `${JSON.stringify(text)}: listed ${JSON.stringify(verdict.commands)}, ran ${JSON.stringify(programs)}, wrote ${JSON.stringify(written)}${timedOut ? ', and never ended' : ''}`,
          );
        }
      }
      assert.deepEqual(wrong, [], 'known safe, yet bash did more');
      assert.deepEqual(snapshot(root), before, 'the project changed');
      // And the oracle sees what it should: the known-safe programs did run.
      assert.ok(
        reports.some((report) => report.programs.includes('cat')),
        'strace saw no program at all',
      );
    });
  });

  test('no seed (a bypass found before) is known safe', async () => {
    const classifier = await loadCommandClassifier();
    const known = SEEDS.filter((text) => classifier.classify(text, { root: '/work/project' }).safe);
    // `find -- . -name x` and `diff --context` on files inside the root are fine; they are seeds
    // for the oracle, whose run above checks them.
    assert.deepEqual(known, ['find -- . -name x', 'diff --context README.md README.md']);
  });
});
