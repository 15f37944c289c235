// Known ways to sneak a write, a program, the network or a secret past a command allowlist, beyond
// the table in test/permissions. Every one must classify as not safe, so it never runs without
// the sandbox or a person: under `untrusted` it asks, and without a sandbox it is denied.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { decidePermission, loadCommandClassifier, type PermissionSettings } from '../../src/permissions/index.js';
import { PROJECT_ROOT, permissionSettings } from '../helpers/permission-settings.js';
import { withTempDir } from '../helpers/temp-dir.js';

const root = PROJECT_ROOT;
const run = promisify(execFile);

/** [category, command]; all must be not safe. */
const BYPASSES: ReadonlyArray<readonly [string, string]> = [
  // Quoting tricks: the name or a flag spelled so that a naive match misses it.
  ['quoting', "'f'ind . -delete"],
  ['quoting', 'fi""nd . -delete'],
  ['quoting', 'f\\ind . -delete'],
  ['quoting', "find . -'del'ete"],
  ['quoting', 'find . "-ex"ec rm {} +'],
  ['quoting', 'find . -e\\xec rm {} \\;'],
  ['quoting', "find . -exe$'c' rm {} +"],
  ['ansi-c', "find . $'\\x2d'exec rm {} +"],
  ['ansi-c', "$'\\x72\\x6d' -rf x"],
  ['substitution', '"$(printf rm)" -rf x'],
  // Brace expansion and globs where the command name goes.
  ['brace', '{rm,-rf,x}'],
  ['brace', 'echo ok; {rm,-rf,x}'],
  ['glob-name', 'r[m] -rf x'],
  ['glob-name', '/???/r? -rf x'],
  ['glob-name', 'r* x'],
  ['path-name', '/usr/bin/find . -delete'],
  ['path-name', './find . -delete'],
  // Programs that run other programs.
  ['wrapper', 'nice rm -rf x'],
  ['wrapper', 'nice -n 5 ls'],
  ['wrapper', 'timeout 5 rm -rf x'],
  ['wrapper', 'stdbuf -o0 rm x'],
  ['wrapper', 'command -p rm x'],
  ['wrapper', "builtin eval 'rm x'"],
  ['wrapper', 'exec rm x'],
  ['wrapper', 'env -i rm x'],
  ['wrapper', 'setsid rm x'],
  ['wrapper', 'ionice -c3 rm x'],
  ['wrapper', 'taskset 1 rm x'],
  ['wrapper', 'chroot / rm x'],
  ['wrapper', 'flock lockfile rm x'],
  ['wrapper', "script -qc 'rm x' /dev/null"],
  ['wrapper', 'busybox rm x'],
  ['wrapper', 'unshare -r sh'],
  // Here-documents and here-strings feeding a shell.
  ['heredoc', 'sh <<EOF\nrm x\nEOF'],
  ['heredoc', "bash <<< 'rm x'"],
  ['heredoc', "cat <<'EOF' | bash\nrm x\nEOF"],
  ['heredoc', 'cat <<EOF | sh -s\nrm x\nEOF'],
  // git into another repository (whose config and hooks run programs), writing, or reading secrets.
  ['git', 'git -C ../other-repo status'],
  ['git', 'git -C /tmp/evil-repo status'],
  ['git', 'git -C .. log'],
  ['git', 'git diff --output=/tmp/x'],
  ['git', 'git diff --output /tmp/x'],
  ['git', 'git log --format=%H --output=x'],
  ['git', 'git --work-tree=/ status'],
  ['git', "git -c core.fsmonitor='rm x' status"],
  ['git', 'git -c diff.external=sh diff'],
  ['git', 'git diff --no-index /etc/passwd README.md'],
  ['git', 'git diff --no-index .env README.md'],
  ['git', 'git show HEAD:.env'],
  ['git', 'git show HEAD:./config/.env.local'],
  ['git', 'git blame .env'],
  ['git', 'git log -p -- .env'],
  ['git', 'git diff HEAD~1 -- deploy/server.key'],
  // ripgrep's preprocessor.
  ['rg', 'rg --pre=sh x'],
  ['rg', 'rg --pre sh x .'],
  ['rg', 'rg --pr sh x'],
  ['rg', 'rg -j1 --pre ./evil.sh x'],
  ['rg', "rg --pre-glob='*' --pre=sh x"],
  // sed's e and w, in every spelling.
  ['sed', "sed -n '$e id' f"],
  ['sed', "sed -n '/x/e id' f"],
  ['sed', "sed -n 's/a/b/pe' f"],
  ['sed', "sed -n 's/a/b/gw out' f"],
  ['sed', "sed -n 'W out' f"],
  ['sed', "sed -n '1W out' f"],
  ['sed', "sed -n 's|a|b|w out' f"],
  ['sed', "sed -n 's/a/b/;e' f"],
  ['sed', "sed -n --expression='w out' f"],
  ['sed', 'sed -n -es/a/b/w\\ out f'],
  ['sed', "sed -n '1{w out\n}' f"],
  ['sed', 'sed -n "$(echo w) out" f'],
  ['sed', "sed -n 'R /etc/passwd' f"],
  ['sed', "sed -sn 'w x' f"],
  ['sed', "sed -n '1~2w out' f"],
  ['sed', "sed -n 'p;w out' f"],
  ['sed', 'sed -n --in-pl p f'],
  ['sed', 'sed -n p .env'],
  // sort and tar running programs.
  ['sort', 'sort --compress-prog=sh x'],
  ['sort', 'sort --compress-program sh x'],
  ['sort', 'sort -S1 --compress-program=sh x'],
  ['sort', 'sort --com=sh x'],
  ['tar', "tar --to-command='sh -c id' -xf a.tar"],
  ['tar', 'tar -xf a.tar --to-command=sh'],
  ['tar', 'tar -cf x.tar --checkpoint=1 --checkpoint-action=exec=sh .'],
  ['tar', 'tar -I sh -xf a.tar'],
  // Pagers and editors with shell escapes.
  ['pager', 'less README.md'],
  ['pager', 'more README.md'],
  ['pager', 'man ls'],
  ['pager', 'git log | less'],
  ['pager', "vim -c '!rm x' f"],
  // awk's system().
  ['awk', 'awk \'BEGIN{system("rm x")}\''],
  ['awk', 'gawk \'BEGIN{system("rm x")}\''],
  ['awk', 'mawk \'BEGIN{system("rm x")}\''],
  ['awk', 'nawk \'BEGIN{system("rm x")}\''],
  ['awk', 'busybox awk \'BEGIN{system("rm x")}\''],
  // Redirections in unusual forms, and the network through bash's /dev/tcp.
  ['redirect', 'ls >|/tmp/x'],
  ['redirect', 'ls &>>out'],
  ['redirect', 'ls 2>out'],
  ['redirect', 'cat <>f'],
  ['redirect', 'ls 1>out'],
  ['redirect', 'ls >>out 2>&1'],
  ['redirect', 'ls >&out'],
  ['redirect', 'ls 2>>/tmp/x'],
  ['redirect', 'ls {fd}>out'],
  ['redirect', 'ls >/dev/null >out'],
  ['redirect', 'ls >/dev/nul'],
  ['redirect', 'ls >/dev/null/../../tmp/x'],
  ['network', 'echo hi >/dev/tcp/127.0.0.1/80'],
  ['network', 'cat </dev/tcp/127.0.0.1/80'],
  ['network', 'cat < /dev/udp/127.0.0.1/53'],
  ['network', 'curl http://example.com'],
  ['network', 'nc 127.0.0.1 80'],
  // Several commands where one seems to be.
  ['newline', 'ls\nrm x'],
  ['newline', 'ls\n\nrm -rf x'],
  ['newline', 'ls ||\nrm x'],
  ['newline', 'ls;rm x'],
  ['comment', 'ls # harmless\nrm x'],
  ['comment', 'ls #\\\nrm x'],
  ['comment', 'echo a#b; rm x'],
  // Unicode lookalikes: never on the allowlist, whatever they look like.
  ['unicode', '\uff52\uff4d x'],
  ['unicode', 'l\u0455'],
  ['unicode', 'cat\u00a0/etc/passwd'],
  ['unicode', 'ls\u200b -la'],
  ['unicode', '\u0441at .env'],
  // Process substitution, arithmetic with command substitution, array subscripts.
  ['process-substitution', 'cat <(rm x)'],
  ['process-substitution', 'diff <(ls) >(rm x)'],
  ['process-substitution', 'ls > >(sh)'],
  ['process-substitution', 'wc <(curl http://x)'],
  ['arithmetic', 'echo $(( $(rm x) + 1 ))'],
  ['arithmetic', 'echo $[ $(rm x) ]'],
  ['arithmetic', 'a[$(rm x)]=1'],
  ['arithmetic', 'echo ${x[$(rm x)]}'],
  ['arithmetic', "test -v 'a[$(touch x)]'"],
  ['arithmetic', "[ -v 'a[$(touch x)]' ]"],
  ['arithmetic', '[ ! -v "a[\\$(touch x)]" ]'],
  ['arithmetic', 'test -f a -a -v "b[`touch x`]"'],
  ['arithmetic', 'test "$(echo -v)" "$(echo \'a[$(touch x)]\')"'],
  ['arithmetic', '[ "${u:--v}" b ]'],
  // IFS and other variable tricks.
  ['ifs', 'IFS=,;x=rm,-rf,x;$x'],
  ['ifs', 'cat${IFS}/etc/passwd'],
  ['ifs', 'ls${IFS}-la'],
  ['ifs', 'cat$IFS.env'],
  ['ifs', 'IFS=/ cat x'],
  ['variable', 'cat "$PWD/../x"'],
  ['variable', 'echo ${x:=$(rm y)}'],
  ['variable', 'echo ${x/$(rm y)/z}'],
  ['variable', 'echo ${@P}'],
  ['variable', 'echo "${!prefix@}"'],
  ['variable', 'cat <<EOF\n${x:=y}\nEOF'],
  ['variable', 'cat <<< ${x:=y}'],
  // Reading outside the root or a secret through an allowed program.
  ['read', 'cd .. && ls'],
  ['read', 'ls; cd ..; cat x'],
  ['read', 'cd src; cd ../..; ls'],
  ['read', 'head -c 100 /proc/self/environ'],
  ['read', 'cat /proc/1/environ'],
  ['read', 'date -f .env'],
  ['read', 'date --file=/etc/shadow'],
  ['read', 'tree --fromfile .env'],
  ['read', 'tree --fromfile /etc/shadow'],
  ['read', 'tree --from .env'],
  ['read', 'cmp -l .env README.md'],
  ['read', 'comm .env /dev/null'],
  ['read', 'diff .env /dev/null'],
  ['read', 'nl .ENV'],
  ['read', 'cut -c1- ./.env'],
  ['read', 'cat sub/../.env'],
  ['read', "cat '.e'nv"],
  ['read', 'cat .e\\nv'],
  ['read', 'tail .env.local'],
  ['read', 'uniq config/.env'],
  ['read', 'jq -R . .env'],
  ['read', 'grep -f .env README.md'],
  ['read', 'rg KEY .env'],
  ['read', 'head id_rsa'],
  ['read', 'cat deploy/server.key'],
  ['read', 'cat .git-credentials'],
  ['read', 'cat ~root/.ssh/id_rsa'],
  ['read', 'cat ~+/../x'],
  ['read', 'ls ~-'],
  ['read', 'find .. -name x'],
  ['read', 'find . -files0-from /etc/passwd'],
  ['read', 'du --files0-from=/etc/passwd'],
  ['read', 'wc --files0-from=/etc/passwd'],
  ['read', 'file -f /etc/passwd'],
  ['read', 'stat /etc/passwd'],
  ['read', 'ls -la /root'],
  ['read', 'jq -L /tmp \'import "x" as x; .\' a.json'],
  // Anything else that writes, runs or reaches out.
  ['other', 'ls | tee out'],
  ['other', 'perl -e \'unlink "x"\''],
  ['other', 'python3 -c \'import os; os.remove("x")\''],
  ['other', 'kill -9 1'],
  ['other', 'mount -o remount,rw /'],
  ['other', 'printf -vx 1'],
  ['other', 'realpath $(rm x)'],
  ['other', 'ls -- $(rm x)'],
  // Command substitution the grammar leaves inside a leaf: a `${…}` operand or pattern, and the
  // body of an unquoted here-document (issue 10, item 1). bash runs every one of these.
  ['param-expansion', 'echo ${x:-`touch p1`}'],
  ['param-expansion', 'echo ${x-`touch p1`}'],
  ['param-expansion', 'echo ${x:+`touch p1`}'],
  ['param-expansion', 'echo ${x/`touch p1`/}'],
  ['param-expansion', 'echo ${x//a/`touch p1`}'],
  ['param-expansion', 'echo ${x#`touch p1`}'],
  ['param-expansion', 'echo ${x%%`touch p1`}'],
  ['param-expansion', 'echo ${x:?`touch p1`}'],
  ['param-expansion', 'echo "${x:-`touch p1`}"'],
  ['param-expansion', 'echo "${x/`touch p1`/y}"'],
  ['param-expansion', 'echo "${x:-\'$(touch p1)\'}"'],
  ['param-expansion', 'echo ${x:-${y:-`touch p1`}}'],
  ['param-expansion', 'ls ${x#`touch p1`} >/dev/null'],
  ['heredoc', 'cat <<EOF\n`touch p1`\nEOF'],
  ['heredoc', 'cat <<EOF\ntext `touch p1` text\nEOF'],
  ['heredoc', 'cat <<-EOF\n\t`touch p1`\n\tEOF'],
  ['heredoc', 'cat <<EOF\n${x:-`touch p1`}\nEOF'],
  ['heredoc', "cat <<EOF\n${x:-'$(touch p1)'}\nEOF"],
  ['heredoc', 'cat <<EOF\n$[ a[$(touch p1)] ]\nEOF'],
  ['heredoc', 'grep -c x <<EOF\n`touch p1`\nEOF'],
  // Paths hidden in word forms the path check did not see (item 4).
  ['brace-path', 'cat {/etc/passwd,README.md}'],
  ['brace-path', 'cat README.{md,/../../etc/passwd}'],
  ['brace-path', 'head {.env,README.md}'],
  ['brace-path', 'ls {..,.}/..'],
  ['brace-path', 'cat {a,{b,/etc/shadow}}'],
  ['brace-path', 'cat ~{,}/.bashrc'],
  ['brace-path', 'cat {1..100000}'],
  ['git', 'git blame --contents /etc/passwd README.md'],
  ['git', 'git blame --contents=../outside README.md'],
  ['git', 'git blame --ignore-revs-file /etc/passwd README.md'],
  ['git', 'git diff /etc/passwd README.md'],
  ['git', 'git diff ../outside/file README.md'],
  ['git', 'git diff HEAD -- /etc/passwd'],
  ['git', 'git log -O/etc/passwd -p'],
  ['git', 'git ls-files --exclude-from=/etc/passwd'],
  // Commands that never end (item 8).
  ['endless', 'seq inf'],
  ['endless', 'seq 1 Infinity'],
];

describe('classifier bypass corpus', () => {
  test('has at least 60 entries beyond the classifier unit tests, and covers every category', () => {
    assert.ok(BYPASSES.length >= 60, `only ${BYPASSES.length}`);
    assert.equal(new Set(BYPASSES.map(([, command]) => command)).size, BYPASSES.length, 'no duplicates');
    const categories = new Set(BYPASSES.map(([category]) => category));
    for (const expected of [
      'quoting',
      'ansi-c',
      'brace',
      'glob-name',
      'wrapper',
      'heredoc',
      'git',
      'rg',
      'sed',
      'sort',
      'tar',
      'pager',
      'awk',
      'redirect',
      'newline',
      'comment',
      'unicode',
      'process-substitution',
      'arithmetic',
      'ifs',
      'param-expansion',
      'brace-path',
      'endless',
    ]) {
      assert.ok(categories.has(expected), `no ${expected} entries`);
    }
  });

  test('every entry is not safe, from the root and (unless it climbs with ..) from a subdirectory', async () => {
    const classifier = await loadCommandClassifier();
    const wrong: string[] = [];
    for (const [category, command] of BYPASSES) {
      // From src, `..` is the root itself, which is fine to read.
      for (const cwd of command.includes('..') ? [root] : [root, `${root}/src`]) {
        const result = classifier.classify(command, { root, cwd });
        if (result.safe) wrong.push(`${category}: ${JSON.stringify(command)} (cwd ${cwd}) classified safe: ${result.reason}`);
        else assert.match(result.reason, /^needs approval: \S/);
      }
    }
    assert.deepEqual(wrong, []);
  });

  test('so none runs without a person under untrusted, and none runs at all when there is no sandbox', async () => {
    const classifier = await loadCommandClassifier();
    const settings = (overrides: Partial<PermissionSettings>): PermissionSettings =>
      permissionSettings({ approvalPolicy: 'untrusted', ...overrides });
    for (const [, command] of BYPASSES) {
      const input = {
        toolName: 'shell',
        access: { kind: 'exec' as const, command, workdir: root, escalate: false, justification: null },
        commandSafety: classifier.classify(command, { root }),
      };
      assert.equal(decidePermission(input, settings({})).decision, 'ask', command);
      const noSandbox = decidePermission(input, settings({ approvalPolicy: 'on-request', sandboxAvailable: false }));
      assert.equal(noSandbox.decision, 'deny', command);
      assert.equal(noSandbox.rule, 'sandbox-unavailable', command);
    }
  });

  test('the test -v entries are real: bash runs the command in the subscript (in a temp directory)', async () => {
    await withTempDir(async (dir) => {
      const attempts = [
        "test -v 'a[$(touch by-test)]'",
        "[ -v 'b[$(touch by-bracket)]' ]",
        'test "$(echo -v)" "$(echo \'c[$(touch by-substitution)]\')"',
      ];
      await run('bash', ['-c', `${attempts.join('; ')}; true`], { cwd: dir, env: { PATH: process.env.PATH } });
      for (const marker of ['by-test', 'by-bracket', 'by-substitution']) assert.ok(existsSync(join(dir, marker)), `${marker} was created`);
    });
  });

  test('the substitution entries are real: bash runs the payload (in a temp directory)', async () => {
    await withTempDir(async (dir) => {
      const live = BYPASSES.filter(([category]) => category === 'param-expansion' || category === 'heredoc')
        .map(([, command]) => command)
        .filter((command) => command.includes('p1'));
      assert.ok(live.length >= 15);
      // One bash evaluates them all (`eval` parses a string as `bash -c` does), each with its own
      // marker, with x unset and set, since some operands are expanded only in one of the two cases.
      const marked = live.map((command, index) => command.replaceAll('p1', `p1-${index}`));
      await run(
        'bash',
        ['-c', 'for c in "$@"; do (eval "$c") 2>/dev/null; (x=1; eval "$c") 2>/dev/null; done; true', 'bypass', ...marked],
        {
          cwd: dir,
          env: { PATH: process.env.PATH },
        },
      );
      for (const [index, command] of live.entries()) {
        assert.ok(existsSync(join(dir, `p1-${index}`)), `bash did not run the payload of ${JSON.stringify(command)}`);
      }
    });
  });

  test('ordinary test expressions stay known safe', async () => {
    const classifier = await loadCommandClassifier();
    for (const command of [
      'test -d src',
      '[ -f package.json ] && cat package.json',
      '[ a = b ]',
      'test -n x -a -z ""',
      "[ '!' -e missing ]",
      'git show HEAD:src/index.ts',
      'git log -p -- src',
      'tree -L 2 src',
      'cat README.md AGENTS.md',
      'git diff HEAD~1 -- src',
      'git log --author "A B" -n 5',
      'seq 1 10',
      'base64 README.md',
      'base64 -d README.md',
      'tac README.md',
      'numfmt --to=iec 1048576',
    ]) {
      const result = classifier.classify(command, { root });
      assert.equal(result.safe, true, `${command}: ${result.reason}`);
    }
  });
});
