import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { loadCommandClassifier, MAX_CLASSIFIED_COMMAND_LENGTH } from '../../src/permissions/index.js';

const root = '/work/project';

/** [command, known safe?, a fragment the reason must contain (for unsafe ones)] */
type Case = readonly [string, boolean, string?];

const BYPASSES: readonly Case[] = [
  ['find . -fprint0 /x', false, '-fprint0'],
  ['find . -fprint /tmp/x', false, '-fprint'],
  ['find . -exec rm {} \\;', false, '-exec'],
  ['find . -delete', false, '-delete'],
  ['sort -o file x', false, '-o'],
  ['sort --output=file x', false, '--output'],
  ['sort --compress-program=sh x', false, '--compress-program'],
  ['grep -f/etc/passwd x', false, 'outside the project root'],
  ['grep -f /etc/passwd x', false, 'outside the project root'],
  ['grep --file=/etc/passwd x', false, 'outside the project root'],
  ['rg --pre sh x', false, '--pre'],
  ["sed -n 'w /tmp/x' f", false, 'w command'],
  ["sed -n '1e id' f", false, 'e command'],
  ['sed -i s/a/b/ f', false, '-i'],
  ['git -c core.pager=sh log', false, '-c'],
  ['git log --output=/tmp/x', false, '--output'],
  ['git diff --ext-diff', false, '--ext-diff'],
  ['echo hi > f', false, 'redirects output'],
  ['ls && rm -rf x', false, 'rm'],
  ['ls | sh', false, 'sh'],
  ['cat $(rm x)', false, 'rm'],
  ['echo `rm x`', false, 'rm'],
  ['ls <(rm x)', false, 'rm'],
  ['(rm x)', false, 'rm'],
  ['PAGER=sh git log', false, 'PAGER=sh'],
  ['$CMD', false, 'expanded at run time'],
  ['eval ls', false, 'eval'],
  ['xargs rm', false, 'xargs'],
  ['tail -f log', false, '-f'],
];

const MORE_UNSAFE: readonly Case[] = [
  // Combined and abbreviated options, quoting that hides a flag.
  ['sort -ro x y', false, '-o'],
  ['sort --out=x y', false, '--out'],
  ['sort -T /tmp x', false, '-T'],
  ['grep -rf /etc/passwd x', false, 'outside the project root'],
  ["find . '-exec' rm {} +", false, '-exec'],
  ['find . "-"delete', false, '-delete'],
  ['find . -\\delete', false, '-delete'],
  ["find . $'-delete'", false, 'expanded by the shell'],
  ['find . {-delete,-name}', false, 'expanded by the shell'],
  ['find . -fls /tmp/x', false, '-fls'],
  ['find . -fprintf /tmp/x %p', false, '-fprintf'],
  ['find . -okdir rm {} ;', false, '-okdir'],
  ['find / -name passwd', false, 'outside the project root'],
  ['sort *.txt', false, 'expanded by the shell'],
  ['rg -z foo', false, '-z'],
  ['rg -zn foo', false, '-z'],
  ['rg --search-zip foo', false, '--search-zip'],
  ['rg --pre-glob "*.gz" foo', false, '--pre-glob'],
  ['rg --hostname-bin=x foo', false, '--hostname-bin'],
  ['tail -F log', false, '-F'],
  ['tail --follow=name log', false, '--follow'],
  ['tail -fn 5 log', false, '-f'],
  ['tree -o out.txt', false, '-o'],
  ['tree -fo out.txt', false, '-o'],
  ['uniq a b', false, 'output file'],
  ['date -s 2020-01-01', false, '-s'],
  ['date --set=2020-01-01', false, '--set'],
  ['date 010203042025', false, 'sets the system clock'],
  ['file -C -m magic', false, '-C'],
  ['printf -v PATH /tmp', false, '-v'],
  ['printf $fmt', false, '-v'],
  // sed
  ["sed -n 's/a/b/w /tmp/x' f", false, 's///w'],
  ["sed -n 's/a/b/e' f", false, 's///e'],
  ["sed -n 's/a/b/;w x' f", false, 'w command'],
  ["sed -n -e p -e 'w x' f", false, 'w command'],
  ["sed -n 'r /etc/passwd' f", false, 'r command'],
  ['sed -ni p f', false, '-i'],
  ['sed -n -i.bak p f', false, '-i'],
  ['sed --in-place -n p f', false, '--in-place'],
  ['sed -nf script.sed f', false, '-f'],
  ["sed 's/a/b/' f", false, 'sed -n'],
  ["sed -n 'k' f", false, 'not a sed command'],
  ["sed -n 's/a/b' f", false, 'not terminated'],
  ['sed -n 1p /etc/passwd', false, 'outside the project root'],
  // git
  ['git --config-env=core.pager=X log', false, '--config-env'],
  ['git --exec-path=/tmp log', false, '--exec-path'],
  ['git --git-dir=/tmp/x log', false, '--git-dir'],
  ['git -C /tmp status', false, 'outside the project root'],
  ['git push', false, 'read-only subcommands'],
  ['git commit -m x', false, 'read-only subcommands'],
  ['git config --list', false, 'read-only subcommands'],
  ['git lg', false, 'read-only subcommands'],
  ['git show --textconv HEAD:x', false, '--textconv'],
  ['git log --outp=/tmp/x', false, '--outp'],
  ['git branch -D x', false, '-D'],
  ['git branch -m a b', false, '-m'],
  ['git branch --set-upstream-to=origin/x', false, '--set-upstream-to'],
  ['git branch new-feature', false, 'would create a branch'],
  ['GIT_EXTERNAL_DIFF=sh git diff', false, 'GIT_EXTERNAL_DIFF=sh'],
  // Redirections
  ['echo hi >> f', false, 'redirects output'],
  ['ls &> f', false, 'redirects output'],
  ['ls >| f', false, 'redirects output'],
  ['ls 2> errors.txt', false, 'redirects output'],
  ['ls 2>&1 > f', false, 'redirects output'],
  ['ls >& f', false, 'redirects output'],
  ['cat <<EOF > f\nhi\nEOF', false, 'redirects output'],
  ['ls > $(echo f)', false, 'redirects output'],
  ['ls <>f', false, 'does not parse cleanly'],
  ['wc -l < /etc/passwd', false, 'outside the project root'],
  // Command names, runners, assignments and shell state
  ['LD_PRELOAD=/tmp/x.so ls', false, 'LD_PRELOAD'],
  ['x=1', false, 'assigns a shell variable'],
  ['export PATH=/tmp', false, 'shell state'],
  ['\\rm x', false, 'rm is not on the allowlist'],
  ["'rm' x", false, 'rm is not on the allowlist'],
  ['/bin/ls', false, '/bin/ls is not on the allowlist'],
  ['l$x', false, 'expanded at run time'],
  ['$(echo ls)', false, 'expanded at run time'],
  ['exec ls', false, 'exec'],
  ['source x.sh', false, 'source'],
  ['. x.sh', false, 'runs a script'],
  ['env ls', false, 'env'],
  ['sudo ls', false, 'sudo'],
  ['nohup ls', false, 'nohup'],
  ['time ls', false, 'time'],
  ['command ls', false, 'command'],
  ['builtin echo hi', false, 'builtin'],
  ["awk '{print}' f", false, 'system()'],
  ['f() { ls; }', false, 'defines a shell function'],
  ['ls & rm x', false, 'background'],
  ['ls &', false, 'background'],
  ['for f in *; do rm $f; done', false, 'loops'],
  ['ls | while read x; do echo $x; done', false, 'loops'],
  ['if true; then ls; fi', false, 'control flow'],
  ['[[ -f x ]]', false, 'arithmetic'],
  ['[ a > b ]', false, 'redirection'],
  ['[ "${x:=a}" ]', false, ':='],
  ['((x=1))', false, 'arithmetic'],
  ['echo $((1+2))', false, 'arithmetic'],
  ['echo ${x:=a}', false, ':='],
  ['echo ${x@P}', false, '@'],
  ['echo ${!x}', false, '!'],
  ['echo ${a[$(rm x)]}', false, 'subscripts'],
  ['echo "${x:-$(rm y)}"', false, 'rm'],
  ['cat <<< "$(rm x)"', false, 'rm'],
  ['cat <<EOF\n$(rm x)\nEOF', false, 'rm'],
  ['cat <<EOF | sh\nid\nEOF', false, 'sh'],
  ['echo >(rm x)', false, 'rm'],
  ['! rm x', false, 'rm'],
  ['{ rm x; }', false, 'rm'],
  ['{ls;}', false, 'group'],
  // Paths outside the root and secrets
  ['cat /etc/passwd', false, 'outside the project root'],
  ['cat ../secret.txt', false, 'outside the project root'],
  ['cat ../*.ts', false, 'outside the project root'],
  ['cat ~/.ssh/id_rsa', false, 'home directory'],
  ['cat "$HOME/.aws/credentials"', false, 'built from a variable'],
  ['cat .env', false, 'secret file'],
  ['grep -r key config/.env.local', false, 'secret file'],
  ['wc -c < server.pem', false, 'secret file'],
  ['jq --rawfile a /etc/passwd .', false, 'outside the project root'],
  ['jq -f /tmp/filter.jq data.json', false, 'outside the project root'],
  ['ls ~', false, 'home directory'],
  ['du -sh /', false, 'outside the project root'],
  ['cd', false, '$HOME'],
  ['cd -', false, 'OLDPWD'],
  ['cd /tmp && ls', false, 'outside the project root'],
  ['cd src && cat ../../x', false, 'outside the project root'],
  // Not parseable or nothing to run
  ['ls &&', false, 'does not parse cleanly'],
  ["echo 'unterminated", false, 'does not parse cleanly'],
  ['', false, 'empty'],
  ['# just a comment', false, 'no command'],
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
  ['echo hi 2>&1', true],
  ['ls 2>/dev/null', true],
  ['cat $(echo a.txt)', true],
  ['ls >/dev/null 2>&1', true],
  ['ls >&2', true],
  ['ls &>/dev/null', true],
  ['ls 3>&-', true],
  ['ls > "/dev/null"', true],
  ['pwd && whoami && uname -a', true],
  ['true || false', true],
  ['which node', true],
  ['date +%Y-%m-%d', true],
  ['date -Iseconds', true],
  ['basename /a/b.txt .txt; dirname /a/b', true],
  ['realpath ../..', true],
  ['stat -c %s package.json', true],
  ['file src/index.ts', true],
  ['du -sh .', true],
  ['df -h', true],
  ['tree -L 2 src', true],
  ['nl file.txt', true],
  ['cut -d / -f1 paths.txt', true],
  ['cut -d: -f1 file', true],
  ['tr a-z A-Z < file.txt', true],
  ['sort file.txt | uniq -c', true],
  ['sort -rn -k2 counts.txt', true],
  ['uniq -c sorted.txt', true],
  ['diff a.txt b.txt', true],
  ['diff <(ls a) <(ls b)', true],
  ['cmp a.bin b.bin', true],
  ['comm -12 a b', true],
  ['seq 1 10', true],
  ['head -n 20 README.md', true],
  ['head -5 README.md', true],
  ['tail -n 50 log.txt', true],
  ['wc -l src/*.ts', true],
  ['cat *.txt', true],
  ['cat -- -o', true],
  ['cat /dev/null', true],
  ['egrep "a|b" file', true],
  ['fgrep -x needle file', true],
  ['grep -rf patterns.txt src', true],
  ['grep -rn "TODO" --include="*.ts" .', true],
  ['grep "$pattern" .', true],
  ['grep -e foo -e bar file', true],
  ['rg -n foo src', true],
  ['rg --files', true],
  ['rg -t ts -g "*.ts" foo', true],
  ['find src -type f -name "*.test.ts" | head', true],
  ['find . -maxdepth 2 -type d -not -path "./node_modules*"', true],
  ['find -L . -newer package.json -print', true],
  ["sed -n '/start/,/end/p' file", true],
  ["sed -n '$p' file", true],
  ["sed -n 's/a/b/gp' file", true],
  ["sed -n '1!G;h;$p' file", true],
  ["sed -n -e '/x/{s|a|b|2p;}' file", true],
  ["sed -n 'y/abc/xyz/;p' file", true],
  ["sed -n '1a w not-a-write' file", true],
  ['sed --quiet 10q file', true],
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
  ['git branch --contains HEAD', true],
  ['git log --output-indicator-new=+ -p', true],
  ['git log --no-ext-diff --no-textconv', true],
  ['git log HEAD@{1}', true],
  ['jq .name package.json', true],
  ['jq -r ".scripts | keys[]" package.json', true],
  ['jq -n --arg x y "$x"', true],
  ['echo "hello world"', true],
  ['echo $HOME', true],
  ['echo {a,b}', true],
  ["printf '%s\\n' a b", true],
  ['cd src && ls', true],
  ['cd src; cat index.ts', true],
  ['(cd src && ls)', true],
  ['{ ls; pwd; }', true],
  ['[ -f package.json ] && cat package.json', true],
  ['test -d src', true],
  ['! grep -q foo file', true],
  ['ls | head -20 # a trailing comment', true],
  ['cat <<EOF\nplain $(echo text)\nEOF', true],
  ["cat <<'EOF'\n$(rm -rf /)\nEOF", true],
  ['wc -l <<< "a b c"', true],
  ['"l"s -la', true],
  ['ls \\\n  -la', true],
  ['echo ${x:-default} ${#x} ${x%.ts}', true],
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

  it('lists argv[0] of every simple command, including substitutions, in source order', async () => {
    const classifier = await loadCommandClassifier();
    const result = classifier.classify('cat $(echo a.txt) | grep -c x && (cd src; ls <(git ls-files))', { root });
    assert.deepEqual(result.commands, ['cat', 'echo', 'grep', 'cd', 'ls', 'git']);
    assert.equal(result.safe, true);
  });

  it('reports grant prefixes only when the programs themselves are the problem', async () => {
    const classifier = await loadCommandClassifier();
    assert.deepEqual(classifier.classify('npm test && git commit -m "x y" | cat', { root }).unsafePrefixes, ['npm test', 'git commit']);
    assert.deepEqual(classifier.classify('npm run build --silent', { root }).unsafePrefixes, ['npm run']);
    assert.deepEqual(classifier.classify('make', { root }).unsafePrefixes, ['make']);
    assert.deepEqual(classifier.classify('ls', { root }).unsafePrefixes, []);
    assert.equal(classifier.classify('npm test > out.txt', { root }).unsafePrefixes, null);
    assert.equal(classifier.classify('CI=1 npm test', { root }).unsafePrefixes, null);
    assert.equal(classifier.classify('xargs rm', { root }).unsafePrefixes, null);
    assert.equal(classifier.classify('npm $SCRIPT', { root }).unsafePrefixes, null);
    assert.equal(classifier.classify('npm test &&', { root }).unsafePrefixes, null);
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
    const safeParts = SAFE.map(([command]) => command).filter((command) => !/[\n#]|^cd|\bcd\b/.test(command));
    const unsafeParts = BYPASSES.map(([command]) => command).filter((command) => !command.includes('\n'));
    const compose = fc.constantFrom(
      (a: string, b: string) => `${a} && ${b}`,
      (a: string, b: string) => `${b} || ${a}`,
      (a: string, b: string) => `${a}; ${b}`,
      (a: string, b: string) => `${a} | ${b}`,
      (a: string, b: string) => `${a}\n${b}`,
      (a: string, b: string) => `(${a}) && { ${b}; }`,
      (a: string, b: string) => `${a} && echo "$(${b})"`,
      (a: string, b: string) => `${a} && cat <(${b})`,
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
