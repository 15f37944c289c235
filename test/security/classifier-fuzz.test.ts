// A fuzzer for the command classifier, with bash itself as the oracle. It builds commands that
// nest a payload (`touch MARK` inside a substitution) in the places where bash evaluates words:
// parameter-expansion operands and patterns, double quotes, here-documents (plain, tab-stripped,
// quoted delimiter), here-strings, concatenations. Whatever the classifier calls known safe is then
// run by real bash in a temp directory, once with `x` unset and once with it set (some operands
// are only expanded in one of the two), and must not have created the marker file: a command that
// ran a program is never known safe. Inert forms (single quotes, escaped backticks, quoted
// here-document delimiters) are generated too, so the classifier is also seen to keep them safe.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { loadCommandClassifier } from '../../src/permissions/index.js';
import { withTempDir } from '../helpers/temp-dir.js';

const MARK = 'fuzz-marker';

/** Substitutions that would run `touch` if bash evaluated them, and quoted forms that must stay inert. */
const PAYLOADS = [
  `\`touch ${MARK}\``,
  `$(touch ${MARK})`,
  `$( touch ${MARK} )`,
  `\\\`touch ${MARK}\\\``,
  `'$(touch ${MARK})'`,
  `"\`touch ${MARK}\`"`,
  `$(echo $(touch ${MARK}))`,
];

/** Ways to wrap a word where bash expands it; `W` stands for the inner word. */
const WORD_WRAPPERS = [
  '${x:-W}',
  '${x-W}',
  '${x:+W}',
  '${x+W}',
  '${x:?W}',
  '${x#W}',
  '${x##W}',
  '${x%W}',
  '${x%%W}',
  '${x/W/}',
  '${x//W/y}',
  '${x/y/W}',
  '${x/#W/z}',
  '${x/%W/z}',
  '${x^W}',
  '${x,,W}',
  '"W"',
  'aWb',
  '"a W b"',
  '${x:-"W"}',
  "'W'",
  '"${x:-W}"',
];

/** Commands that take the word somewhere bash expands (or, for quoted delimiters, does not). */
const COMMAND_SHAPES = [
  'echo W',
  'printf "%s\\n" W',
  'test -n W',
  '[ -n W ]',
  'echo ok | grep -c W',
  'cat <<EOF\nW\nEOF',
  'cat <<EOF\nline W line\nEOF',
  'cat <<-EOF\n\tW\n\tEOF',
  "cat <<'EOF'\nW\nEOF",
  'cat <<"EOF"\nW\nEOF',
  'cat <<\\EOF\nW\nEOF',
  'cat <<< W',
  'echo a; echo W',
  '(echo W)',
];

const word: fc.Arbitrary<string> = fc.letrec<{ word: string }>((tie) => ({
  word: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...PAYLOADS),
    fc.tuple(fc.constantFrom(...WORD_WRAPPERS), tie('word')).map(([wrapper, inner]) => wrapper.replace('W', inner)),
  ),
})).word;

const command = fc.tuple(fc.constantFrom(...COMMAND_SHAPES), word).map(([shape, inner]) => shape.replace('W', inner));

/**
 * Which of the commands made bash run a program? One bash evaluates them all, each in its own
 * subshell, with `x` unset and then set, and each with its own marker name; stdin is closed. `eval`
 * parses a string exactly as `bash -c` would, and a syntax error ends only that one `eval`.
 * `touch`, `cat` and `grep` are shell functions here: the question is whether bash *evaluated* the
 * substitution holding the payload, which the function answers as well as the program, without an
 * exec per sample (that cost half of this file's time).
 */
function commandsThatRan(dir: string, commands: readonly string[]): string[] {
  const marked = commands.map((text, index) => text.replaceAll(MARK, `${MARK}-${index}`));
  spawnSync(
    'bash',
    [
      '-c',
      'touch() { : > "$1"; }; cat() { while IFS= read -r l; do :; done; }; grep() { :; }; for c in "$@"; do (eval "$c"); (x=yes; eval "$c"); done',
      'fuzz',
      ...marked,
    ],
    {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      stdio: 'ignore',
      timeout: 60_000,
    },
  );
  const ran = commands.filter((_, index) => existsSync(join(dir, `${MARK}-${index}`)));
  for (const [index] of commands.entries()) rmSync(join(dir, `${MARK}-${index}`), { force: true });
  return ran;
}

describe('classifier fuzzer (bash is the oracle)', () => {
  const samples = fc.sample(command, { numRuns: 400, seed: 20261201 });

  test('the generator reaches bash: many generated commands really run the payload', async () => {
    // Without this the property below could pass by generating only inert strings.
    await withTempDir(async (dir) => {
      const some = samples.slice(0, 120);
      const live = commandsThatRan(dir, some);
      assert.ok(live.length >= some.length / 3, `only ${live.length} of ${some.length} samples ran the payload`);
    });
  });

  test('no command that makes bash run a program is known safe', async () => {
    const classifier = await loadCommandClassifier();
    await withTempDir(async (dir) => {
      const known = samples.filter((text) => classifier.classify(text, { root: dir }).safe);
      // The inert forms must still be recognised as such, or the classifier is simply refusing all.
      assert.ok(known.length > 0, 'no generated command was known safe, not even the inert ones');
      assert.deepEqual(commandsThatRan(dir, known), [], 'known safe, yet bash ran the payload');
    });
  });

  test('the inert forms stay known safe', async () => {
    const classifier = await loadCommandClassifier();
    for (const text of [
      "cat <<'EOF'\n`touch x` $(touch y)\nEOF",
      'cat <<"EOF"\n$(touch y)\nEOF',
      'cat <<\\EOF\n`touch x`\nEOF',
      'echo "a\\`touch x\\`b"',
      "echo '$(touch x)'",
      'cat <<EOF\nplain $HOME text \\`not run\\` \\$(not run)\nEOF',
      'echo ${x:-plain}',
    ]) {
      const verdict = classifier.classify(text, { root: '/work/project' });
      assert.equal(verdict.safe, true, `${JSON.stringify(text)}: ${verdict.reason}`);
    }
  });
});

// Paths hidden in word forms (issue 10, item 4). Bash is the oracle again: it expands each word
// (braces, globs, quotes, tildes) in a project directory, and if any resulting argument of a
// file-reading command lies outside the project or names a secret file, the classifier must not
// call the command known safe.
const PATH_FRAGMENTS = ['README.md', 'src', 'src/a.ts', '..', '../x', '/etc/passwd', '/tmp', '~', '.env', 'sub/.env', '*', 'sr?', '.'];
const pathWord: fc.Arbitrary<string> = fc.letrec<{ word: string }>((tie) => ({
  word: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...PATH_FRAGMENTS),
    fc.tuple(tie('word'), tie('word')).map(([a, b]) => `{${a},${b}}`),
    fc.tuple(tie('word'), tie('word')).map(([a, b]) => `${a}/${b}`),
    fc.tuple(tie('word'), tie('word')).map(([a, b]) => `${a}${b}`),
    tie('word').map((a) => `'${a}'`),
    tie('word').map((a) => `"${a}"`),
    fc.constantFrom('{1..3}', '{a..c}', '\\{x,y\\}', '{,.}', '{.,..}'),
  ),
})).word;
const READERS = ['cat', 'head -n1', 'tac', 'wc -l', 'ls', 'git diff', 'git log --', 'base64'];
const pathCommand = fc.tuple(fc.constantFrom(...READERS), pathWord).map(([reader, word]) => ({ reader, word }));

describe('classifier path fuzzer (bash expands the words)', () => {
  test('a file command whose expanded arguments leave the root or name a secret is never known safe', async () => {
    const { isSecretPath } = await import('../../src/workspace/index.js');
    const { mkdir, writeFile } = await import('node:fs/promises');
    const { relative, resolve } = await import('node:path');
    const classifier = await loadCommandClassifier();
    await withTempDir(async (dir) => {
      const root = join(dir, 'project');
      await mkdir(join(root, 'src'), { recursive: true });
      await mkdir(join(root, 'sub'), { recursive: true });
      await writeFile(join(root, 'README.md'), 'r');
      await writeFile(join(root, 'src/a.ts'), 'a');
      const samples = fc.sample(pathCommand, { numRuns: 500, seed: 20261202 });
      // One bash prints every word's expansion, NUL-separated, one record per line of output.
      const script = 'for w in "$@"; do eval "printf \'%s\\0\' $w"; printf "\\n"; done';
      const expanded = spawnSync('bash', ['-c', script, 'fuzz', ...samples.map(({ word }) => word)], {
        cwd: root,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir },
        encoding: 'utf8',
        timeout: 60_000,
      }).stdout.split('\0\n');
      let risky = 0;
      const wrong: string[] = [];
      for (const [index, { reader, word }] of samples.entries()) {
        const args = (expanded[index] ?? '').split('\0').filter((arg) => arg !== '' && arg !== '\n');
        const escapes = args.some((arg) => {
          const absolute = resolve(root, arg);
          const outside = !(absolute === root || absolute.startsWith(`${root}/`));
          // ls reads names and sizes, not contents: only containment applies to it.
          return outside || (reader !== 'ls' && isSecretPath(relative(root, absolute)));
        });
        if (!escapes) continue;
        risky++;
        const command = `${reader} ${word}`;
        const verdict = classifier.classify(command, { root });
        if (verdict.safe) wrong.push(`${JSON.stringify(command)} → ${JSON.stringify(args)}`);
      }
      assert.ok(risky >= 100, `the generator produced only ${risky} risky commands`);
      assert.deepEqual(wrong, []);
    });
  });
});
