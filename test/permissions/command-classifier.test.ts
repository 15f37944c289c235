import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { loadCommandClassifier, MAX_CLASSIFIED_COMMAND_LENGTH } from '../../src/permissions/index.js';

const root = '/work/project';

/** [command, known safe?, a fragment the reason must contain (for unsafe ones)] */
type Case = readonly [string, boolean, string?];

const NOT_LITERAL = 'only commands with nothing left to expand';

const BYPASSES: readonly Case[] = [
  ['find . -fprint0 /x', false, '-fprint0'],
  ['find . -fprint /tmp/x', false, '-fprint'],
  ['find . -exec rm {} \\;', false, 'brace expansion'],
  ['find . -exec rm x', false, '-exec'],
  ['find . -delete', false, '-delete'],
  ['sort -o file x', false, '-o'],
  ['sort --output=file x', false, '--output'],
  ['sort --compress-program=sh x', false, '--compress-program'],
  ['grep -f/etc/passwd x', false, 'outside the project root'],
  ['grep -f /etc/passwd x', false, 'outside the project root'],
  ['grep --file=/etc/passwd x', false, 'outside the project root'],
  ['rg --pre sh x', false, '--pre'],
  ["sed -n 'w /tmp/x' f", false, 'sed script'],
  ["sed -n '1e id' f", false, 'sed script'],
  ['sed -i s/a/b/ f', false, '-i'],
  ['git -c core.pager=sh log', false, '-c'],
  ['git log --output=/tmp/x', false, '--output'],
  ['git diff --ext-diff', false, '--ext-diff'],
  ['echo hi > f', false, 'a write'],
  ['ls && rm -rf x', false, 'rm'],
  ['ls | sh', false, 'sh'],
  ['cat $(rm x)', false, NOT_LITERAL],
  ['echo `rm x`', false, 'backtick'],
  ['ls <(rm x)', false, 'process substitution'],
  ['(rm x)', false, 'subshell'],
  ['PAGER=sh git log', false, 'assignment'],
  ['$CMD', false, 'expansion'],
  ['eval ls', false, 'eval'],
  ['xargs rm', false, 'xargs'],
  ['tail -f log', false, '-f'],
  // The five root causes of issue 22, each verified in real bash (test/security has the oracle).
  ['true\r# ; touch x', false, 'U+000D'],
  ['true\u000b# ; touch x', false, 'U+000B'],
  ['true\f# ; touch x', false, 'U+000C'],
  ['echo "$\\\n(touch x)"', false, 'line continuation'],
  ['cat <<E"O"F\nEOF\ntouch x\nE"O"F', false, 'here-document'],
  ['echo `echo \\`touch x\\``', false, 'backtick'],
  ["sed -n 's/[/]/#/e' f", false, 'sed script'],
  ["sed -n '1w out' f", false, 'sed script'],
  // Outside reads through options with optional values, and an end-of-options marker (item 10).
  ['diff --context /etc/passwd README.md', false, 'outside the project root'],
  ['diff --unified /etc/passwd README.md', false, 'outside the project root'],
  ['tree --hintro=/etc/passwd', false, '--hintro'],
  ['find -- /etc -name x', false, 'outside the project root'],
  ['du --time /etc', false, 'outside the project root'],
  // Never ending (low items).
  ['tail +f log', false, '+f'],
  ['tail -5f log', false, '-5'],
  ["jq -n 'repeat(1)'", false, 'jq'],
];

const MORE_UNSAFE: readonly Case[] = [
  // Combined and abbreviated options, quoting that hides a flag.
  ['sort -ro x y', false, '-o'],
  ['sort --out=x y', false, '--out'],
  ['sort -T /tmp x', false, '-T'],
  ['grep -rf /etc/passwd x', false, 'outside the project root'],
  ["find . '-exec' rm x", false, '-exec'],
  ['find . "-"delete', false, '-delete'],
  ['find . -\\delete', false, '-delete'],
  ["find . $'-delete'", false, 'expansion'],
  ['find . {-delete,-name}', false, 'brace expansion'],
  ['find . -fls /tmp/x', false, '-fls'],
  ['find . -fprintf /tmp/x %p', false, '-fprintf'],
  ['find . -okdir rm x', false, '-okdir'],
  ['find / -name passwd', false, 'outside the project root'],
  ['find . -name *.ts', false, 'unquoted glob'],
  ['find * -name x', false, 'glob'],
  ['sort *.txt', false, 'takes for an option'],
  ['rg -z foo', false, '-z'],
  ['rg -zn foo', false, '-z'],
  ['rg --search-zip foo', false, '--search-zip'],
  ['rg --pre-glob "*.gz" foo', false, '--pre-glob'],
  ['rg --hostname-bin=x foo', false, '--hostname-bin'],
  ['rg --pre=sh foo', false, '--pre'],
  ['tail -F log', false, '-F'],
  ['tail --follow=name log', false, '--follow'],
  ['tail -fn 5 log', false, '-f'],
  ['tree -o out.txt', false, '-o'],
  ['tree -fo out.txt', false, '-o'],
  ['tree -aL2', false, 'on its own'],
  ['uniq a b', false, 'output file'],
  ['uniq -- *.txt', false, 'several operands'],
  ['date -s 2020-01-01', false, '-s'],
  ['date --set=2020-01-01', false, '--set'],
  ['date 010203042025', false, 'sets the system clock'],
  ['file -C -m magic', false, '-C'],
  ['file -z x.gz', false, '-z'],
  ['diff -l a b', false, '-l'],
  ['printf -v PATH /tmp', false, '-v'],
  ['printf $fmt', false, 'expansion'],
  ['test -v x', false, '-v'],
  ["test -v 'a[1]'", false, '-v'],
  ['[ -R x ]', false, '-R'],
  ['seq inf', false, 'plain whole number'],
  ['seq 1 1e-20 2', false, 'plain whole number'],
  ['find -L . -newer package.json -print', false, '-L'],
  ['grep -R x src', false, '-R'],
  ['echo café', false, 'non-ASCII'],
  ['cat --squeeze', false, '--squeeze'],
  // sed: only printing lines by number.
  ["sed -n 's/a/b/w /tmp/x' f", false, 'sed script'],
  ["sed -n 's/a/b/e' f", false, 'sed script'],
  ["sed -n -e p -e 'w x' f", false, 'w x'],
  ["sed -n 'r /etc/passwd' f", false, 'sed script'],
  ['sed -ni p f', false, '-i'],
  ['sed --in-place -n p f', false, '--in-place'],
  ['sed -nf script.sed f', false, '-f'],
  ["sed 's/a/b/' f", false, 'only with -n'],
  ['sed -n 1p /etc/passwd', false, 'outside the project root'],
  // git
  ['git --config-env=core.pager=X log', false, '--config-env'],
  ['git --exec-path=/tmp log', false, '--exec-path'],
  ['git --git-dir=/tmp/x log', false, '--git-dir'],
  ['git -p log', false, '-p'],
  ['git -C /tmp status', false, 'outside the project root'],
  ['git push', false, 'read-only subcommands'],
  ['git commit -m x', false, 'read-only subcommands'],
  ['git config --list', false, 'read-only subcommands'],
  ['git lg', false, 'read-only subcommands'],
  ['git show --textconv HEAD:x', false, '--textconv'],
  ['git log --outp=/tmp/x', false, '--outp'],
  ['git log --show-signature', false, '--show-signature'],
  ['git log --remerge-diff', false, '--remerge-diff'],
  ['git diff --no-index /etc/passwd README.md', false, '--no-index'],
  ['git branch -D x', false, '-D'],
  ['git branch -m a b', false, '-m'],
  ['git branch --set-upstream-to=origin/x', false, '--set-upstream-to'],
  ['git branch new-feature', false, 'would create a branch'],
  ['git show HEAD:.env', false, 'secret file'],
  ['git log -p -- .env', false, 'secret file'],
  ['GIT_EXTERNAL_DIFF=sh git diff', false, 'assignment'],
  // Redirections
  ['echo hi >> f', false, 'a write'],
  ['ls &> f', false, 'a write'],
  ['ls >| f', false, '>|'],
  ['ls 2> errors.txt', false, 'a write'],
  ['ls 2>&1 > f', false, 'a write'],
  ['ls >& f', false, 'writes a file'],
  ['cat <<EOF > f\nhi\nEOF', false, 'here-document'],
  ['ls > $(echo f)', false, 'plain word'],
  ['ls > "/dev/null"', false, 'plain word'],
  ['ls <>f', false, 'input redirection'],
  ['wc -l < /etc/passwd', false, 'input redirection'],
  // Command names, runners, assignments and shell state
  ['LD_PRELOAD=/tmp/x.so ls', false, 'assignment'],
  ['x=1', false, 'assignment'],
  ['export PATH=/tmp', false, 'environment'],
  ['\\rm x', false, 'rm is not on the allowlist'],
  ["'rm' x", false, 'rm is not on the allowlist'],
  ['/bin/ls', false, '/bin/ls is not on the allowlist'],
  ['l$x', false, 'expansion'],
  ['$(echo ls)', false, 'expansion'],
  ['exec ls', false, 'exec'],
  ['source x.sh', false, 'source'],
  ['. x.sh', false, 'runs a script'],
  ['env ls', false, 'env'],
  ['sudo ls', false, 'sudo'],
  ['nohup ls', false, 'nohup'],
  ['time ls', false, 'keyword `time`'],
  ['command ls', false, 'command'],
  ['builtin echo hi', false, 'builtin'],
  ['alias ls=rm', false, 'alias'],
  ['hash -p /tmp/x ls', false, 'hash'],
  ["awk '{print}' f", false, 'system()'],
  ['f() { ls; }', false, 'parenthesised'],
  ['ls & rm x', false, 'background'],
  ['ls &', false, 'background'],
  ['for f in *; do rm $f; done', false, 'keyword `for`'],
  ['if true; then ls; fi', false, 'keyword `if`'],
  ['[[ -f x ]]', false, 'keyword `[[`'],
  ['((x=1))', false, 'parenthesised'],
  ['echo $((1+2))', false, 'expansion'],
  ['echo ${x:=a}', false, 'expansion'],
  ['echo "${x:-$(rm y)}"', false, 'inside double quotes'],
  ['echo "a\\"b"', false, 'backslash inside double quotes'],
  ['cat <<< "$(rm x)"', false, 'here-string'],
  ['echo >(rm x)', false, 'process substitution'],
  ['! rm x', false, 'keyword `!`'],
  ['{ rm x; }', false, 'command group'],
  ['echo {a,b}', false, 'brace expansion'],
  ['ls | head -20 # a trailing comment', false, 'comment'],
  ['ls \\\n  -la', false, 'line continuation'],
  ['echo \u00e9\\;rm x', false, 'non-ASCII'],
  ['echo hi |& cat', false, '|&'],
  ['ls ;; ls', false, ';;'],
  // Paths outside the root and secrets
  ['cat /etc/passwd', false, 'outside the project root'],
  ['cat ../secret.txt', false, 'outside the project root'],
  ['cat ../*.ts', false, 'outside the project root'],
  ['cat ~/.ssh/id_rsa', false, 'tilde'],
  ['echo a=~/x', false, 'tilde'],
  ['cat "$HOME/.aws/credentials"', false, 'inside double quotes'],
  ['cat .env', false, 'secret file'],
  ['grep -r key config/.env.local', false, 'secret file'],
  ['ls ~', false, 'tilde'],
  ['du -sh /', false, 'outside the project root'],
  ['realpath ../..', false, 'outside the project root'],
  ['cd', false, '$HOME'],
  ['cd -', false, 'OLDPWD'],
  ['cd /tmp && ls', false, 'outside the project root'],
  ['cd src && cat ../../x', false, 'outside the project root'],
  // Not complete, or nothing to run
  ['ls &&', false, 'no command after it'],
  ['&& ls', false, 'no command before it'],
  ['ls | | wc', false, 'no command before it'],
  ["echo 'unterminated", false, 'unterminated'],
  ['', false, 'empty'],
  ['# just a comment', false, 'comment'],
  ['npm test', false, 'npm is not on the allowlist'],
];

const SAFE: readonly Case[] = [
  ['ls -la', true],
  ['ls', true],
  ['git status', true],
  ['git log --oneline -5', true],
  ['cat a | grep b | wc -l', true],
  ['grep -rn foo src', true],
  ["find . -name '*.ts' -type f", true],
  ['sed -n 1,20p file', true],
  ["sed -n '$p' file", true],
  ["sed -n '1,5p;10q' file", true],
  ['sed --quiet 10q file', true],
  ['sed -n p file', true],
  ['echo hi 2>&1', true],
  ['ls 2>/dev/null', true],
  ['ls >/dev/null 2>&1', true],
  ['ls >&2', true],
  ['ls &>/dev/null', true],
  ['ls 3>&-', true],
  ['ls > /dev/null', true],
  ['pwd && whoami && uname -a', true],
  ['true || false', true],
  ['which node', true],
  ['date +%Y-%m-%d', true],
  ['date -Iseconds', true],
  ['basename /a/b.txt .txt; dirname /a/b', true],
  ['realpath src', true],
  ['stat -c %s package.json', true],
  ['file src/index.ts', true],
  ['du -sh .', true],
  ['df -h', true],
  ['tree -L 2 src', true],
  ['nl file.txt', true],
  ['cut -d / -f1 paths.txt', true],
  ['cut -d: -f1 file', true],
  ['tr a-z A-Z', true],
  ['sort file.txt | uniq -c', true],
  ['sort -rn -k2 counts.txt', true],
  ['uniq -c sorted.txt', true],
  ['diff a.txt b.txt', true],
  ['diff -u a.txt b.txt', true],
  ['diff --unified=5 a.txt b.txt', true],
  ['cmp a.bin b.bin', true],
  ['comm -12 a b', true],
  ['paste -d, a b', true],
  ['seq 1 10', true],
  ['head -n 20 README.md', true],
  ['head -5 README.md', true],
  ['tail -n 50 log.txt', true],
  ['tail -n +5 log.txt', true],
  ['wc -l src/*.ts', true],
  ['cat *.txt', true],
  ['ls *.md', true],
  ['cat -- -o', true],
  ['cat /dev/null', true],
  ['egrep "a|b" file', false, 'runs whatever `grep` PATH finds'],
  ['fgrep -x needle file', false, 'runs whatever `grep` PATH finds'],
  ['grep -E "a|b" file', true],
  ['grep -rf patterns.txt src', true],
  ['grep -rn "TODO" --include="*.ts" .', true],
  ['grep -e foo -e bar file', true],
  ['grep -C3 foo file', true],
  ['rg -n foo src', true],
  ['rg --files', true],
  ['rg --files src', true],
  ['rg -t ts -g "*.ts" foo', true],
  ['rg -n "foo" -g"*.py"', true],
  ['find src -type f -name "*.test.ts" | head', true],
  ['find . -maxdepth 2 -type d -not -path "./node_modules*"', true],
  ['find -H . -newer package.json -print', true],
  ["echo 'café'", true],
  ["find . '(' -name a -o -name b ')' -print", true],
  ['git diff HEAD~1 --stat', true],
  ['git show HEAD:src/index.ts', true],
  ['git --no-pager log -p -- src', true],
  ['git -C src status --short', true],
  ['git rev-parse --show-toplevel', true],
  ['git ls-files | wc -l', true],
  ['git blame -L 1,10 README.md', true],
  ['git describe --tags --always', true],
  ['git shortlog -sn', true],
  ['git branch', true],
  ['git branch -a -vv', true],
  ['git branch --list "feat*"', true],
  ['git log --no-ext-diff --no-textconv', true],
  ['git log --author=someone --since=2.weeks -n 3', true],
  ['git diff --cached --name-only', true],
  ['git status --porcelain=v1 -uno', true],
  ['echo "hello world"', true],
  ["echo '$HOME is literal here'", true],
  ['echo \\$HOME', true],
  ["printf '%s\\n' a b", true],
  ['cd src && ls', true],
  ['cd src; cat index.ts', true],
  ['cd src\nls', true],
  ['ls &&\npwd', true],
  ['[ -f package.json ] && cat package.json', true],
  ['test -d src', true],
  ['"l"s -la', true],
  ["echo 'a\nb'", true],
  ['echo a#b', false, 'comment'],
];
const CASES: readonly Case[] = [...BYPASSES, ...MORE_UNSAFE, ...SAFE];

describe('command classifier', () => {
  it('has a table of at least 100 commands', () => {
    assert.ok(CASES.length >= 100, `only ${CASES.length} cases`);
  });

  it('classifies every command in the table', async () => {
    const classifier = await loadCommandClassifier();
    const wrong: string[] = [];
    for (const [command, safe, fragment] of CASES) {
      const result = classifier.classify(command, { root });
      if (result.safe !== safe) wrong.push(`${JSON.stringify(command)}: expected ${safe ? 'safe' : 'unsafe'}, got ${result.reason}`);
      else if (fragment !== undefined && !result.reason.includes(fragment)) {
        wrong.push(`${JSON.stringify(command)}: reason ${JSON.stringify(result.reason)} lacks ${JSON.stringify(fragment)}`);
      }
    }
    assert.deepEqual(wrong, []);
  });

  it('loads once and shares the classifier', async () => {
    const [first, second] = await Promise.all([loadCommandClassifier(), loadCommandClassifier()]);
    assert.equal(first, second);
  });

  it('lists argv[0] of every simple command in source order', async () => {
    const classifier = await loadCommandClassifier();
    const result = classifier.classify('cat a.txt | grep -c x && cd src; ls && git ls-files', { root });
    assert.deepEqual(result.commands, ['cat', 'grep', 'cd', 'ls', 'git']);
    assert.equal(result.safe, true);
  });

  it('reports grant prefixes only when the programs themselves are the problem', async () => {
    const classifier = await loadCommandClassifier();
    // A key is the whole argv, quoted: a grant covers that exact command, never other words.
    assert.deepEqual(classifier.classify('npm test && git commit -m "x y" | cat', { root }).unsafePrefixes, [
      'npm test',
      "git commit -m 'x y'",
    ]);
    assert.deepEqual(classifier.classify('npm run build --silent', { root }).unsafePrefixes, ['npm run build --silent']);
    assert.deepEqual(classifier.classify('make', { root }).unsafePrefixes, ['make']);
    assert.deepEqual(classifier.classify('ls', { root }).unsafePrefixes, []);
    assert.equal(classifier.classify('npm test > out.txt', { root }).unsafePrefixes, null);
    assert.equal(classifier.classify('CI=1 npm test', { root }).unsafePrefixes, null);
    assert.equal(classifier.classify('xargs rm', { root }).unsafePrefixes, null);
    assert.equal(classifier.classify('npm $SCRIPT', { root }).unsafePrefixes, null);
    assert.equal(classifier.classify('npm test &&', { root }).unsafePrefixes, null);
    // Only the parsed literal command is granted by prefix: never a string with more in it.
    assert.equal(classifier.classify('npm test\r# ; touch x', { root }).unsafePrefixes, null);
    assert.equal(classifier.classify('npm test # ; touch x', { root }).unsafePrefixes, null);
    assert.equal(classifier.classify('npm test "$(touch x)"', { root }).unsafePrefixes, null);
    assert.equal(classifier.classify('time npm test', { root }).unsafePrefixes, null);
    assert.deepEqual(classifier.classify('npm test 2>/dev/null', { root }).unsafePrefixes, ['npm test']);
  });

  it('checks relative paths against the working directory and every directory cd may reach', async () => {
    const classifier = await loadCommandClassifier();
    assert.equal(classifier.classify('cat ../README.md', { root, cwd: `${root}/src` }).safe, true);
    assert.equal(classifier.classify('cat ../../x', { root, cwd: `${root}/src` }).safe, false);
    // If `cd a/b` fails, `../x` is read from the root's parent: both places must be inside.
    assert.equal(classifier.classify('cd a/b || cat ../x', { root }).safe, false);
    assert.equal(classifier.classify('cd a/b && cat ../x', { root, cwd: `${root}/sub` }).safe, true);
  });

  it('refuses bad options and oversized or binary input with a clear message', async () => {
    const classifier = await loadCommandClassifier();
    assert.throws(() => classifier.classify('ls', { root: 'relative' }), /root must be an absolute path/);
    assert.throws(() => classifier.classify('ls', { root, cwd: 'src' }), /cwd must be an absolute path/);
    const long = classifier.classify(`echo ${'a'.repeat(MAX_CLASSIFIED_COMMAND_LENGTH)}`, { root });
    assert.equal(long.safe, false);
    assert.match(long.reason, /longer than/);
    assert.match(classifier.classify('ls\0rm', { root }).reason, /NUL/);
  });

  it('keeps a composition unsafe whenever one part is unsafe', async () => {
    const classifier = await loadCommandClassifier();
    const safeParts = SAFE.filter(([, safe]) => safe)
      .map(([command]) => command)
      .filter((command) => !/[\n#]|^cd|\bcd\b/.test(command));
    const unsafeParts = BYPASSES.map(([command]) => command).filter((command) => !command.includes('\n'));
    const compose = fc.constantFrom(
      (a: string, b: string) => `${a} && ${b}`,
      (a: string, b: string) => `${b} || ${a}`,
      (a: string, b: string) => `${a}; ${b}`,
      (a: string, b: string) => `${a} | ${b}`,
      (a: string, b: string) => `${a}\n${b}`,
    );
    fc.assert(
      fc.property(fc.constantFrom(...safeParts), fc.constantFrom(...unsafeParts), compose, (safe, unsafe, join) => {
        const result = classifier.classify(join(safe, unsafe), { root });
        return !result.safe;
      }),
      { numRuns: 300, seed: 20240611 },
    );
    fc.assert(
      fc.property(fc.constantFrom(...safeParts), fc.constantFrom(...safeParts), compose, (a, b, join) => {
        return classifier.classify(join(a, b), { root }).safe;
      }),
      { numRuns: 300, seed: 20240612 },
    );
  });
});
