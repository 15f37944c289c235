// Every path-taking tool against every way out of the project root: `..`, absolute paths, `~`,
// symlinks to files and directories (relative, absolute, chained, dangling, looping), hard links,
// a symlink swapped in between the permission check and the tool, NUL bytes and very long paths.
// Each attempt must be refused with a code, or provably stay inside: the "outside" sibling is
// snapshotted before and after every test.

import assert from 'node:assert/strict';
import { existsSync, constants as fsConstants, lstatSync } from 'node:fs';
import { link, mkdir, readFile, rename, symlink } from 'node:fs/promises';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import type { AnyTool, PermissionGate } from '../../src/agent/index.js';
import { createPermissionGate } from '../../src/runner/index.js';
import { createGrepTool } from '../../src/tools/index.js';
import {
  TOOL_ERROR_OUTPUT,
  allowEverythingGate,
  createRuntime,
  errorCode,
  makeFixture,
  realTools,
  snapshotChanges,
  snapshotTree,
  type Fixture,
  type RuntimeHarness,
} from './security-harness.js';

const OUTSIDE_TEXT = /OUTSIDE-ORIGINAL|OUTSIDE-INNER/;
const SECRET = 'path-escape-secret-value';

async function escapeFixture(): Promise<Fixture> {
  const fixture = await makeFixture(
    {
      'a.txt': 'hello\n',
      'src/b.ts': 'export {};\n',
      '.env': `TOKEN=${SECRET}\n`,
      '.git/config': '[core]\n',
      '.git/hooks/README': 'hooks\n',
      'swap/file.txt': 'inside\n',
    },
    { 'secret.txt': 'OUTSIDE-ORIGINAL\n', 'dir/inner.txt': 'OUTSIDE-INNER\n' },
  );
  const { root, outside } = fixture;
  const links: Array<[name: string, target: string]> = [
    ['file-rel', '../outside/secret.txt'],
    ['file-abs', join(outside, 'secret.txt')],
    ['dir-rel', '../outside'],
    ['dir-abs', outside],
    ['chain-a', 'chain-b'],
    ['chain-b', 'dir-rel'],
    ['chain-file', 'file-rel'],
    ['root-link', '/'],
    ['src/up', '..'],
    ['inner-link', 'src'],
    ['notes.txt', '.env'],
    ['h', '.git/hooks'],
    ['gitlink', '.git'],
    ['dangling-out', '../outside/created-by-link.txt'],
    ['dangling-dir', '../outside/newdir'],
    ['loop-a', 'loop-b'],
    ['loop-b', 'loop-a'],
  ];
  for (const [name, target] of links) await symlink(target, join(root, name));
  await link(join(outside, 'secret.txt'), join(root, 'hard.txt'));
  return fixture;
}

/** Run `fn` on a fresh fixture and check that nothing outside the project changed. */
async function attack(
  fn: (fixture: Fixture, tools: RuntimeHarness) => Promise<void>,
  gate?: (fixture: Fixture) => PermissionGate,
): Promise<void> {
  const fixture = await escapeFixture();
  try {
    const before = await snapshotTree(fixture.outside);
    const homeBefore = await snapshotTree(fixture.home);
    await fn(
      fixture,
      createRuntime({ root: fixture.root, tools: realTools(fixture.home), gate: gate ? gate(fixture) : allowEverythingGate() }),
    );
    assert.deepEqual(snapshotChanges(before, await snapshotTree(fixture.outside)), [], 'the outside directory is unchanged');
    assert.deepEqual(snapshotChanges(homeBefore, await snapshotTree(fixture.home)), [], 'the Glassbox home is unchanged');
  } finally {
    await fixture.cleanup();
  }
}

async function expectCode(tools: RuntimeHarness, name: string, args: Record<string, unknown>, codes: readonly string[]): Promise<string> {
  const outcome = await tools.call(name, args);
  const where = `${name} ${JSON.stringify(args).slice(0, 160)}`;
  assert.equal(outcome.isError, true, `${where} was not refused: ${outcome.output.slice(0, 300)}`);
  assert.match(outcome.output, TOOL_ERROR_OUTPUT, where);
  assert.ok(codes.includes(errorCode(outcome.output) ?? ''), `${where}: expected ${codes.join('|')}, got ${outcome.output.slice(0, 300)}`);
  assert.doesNotMatch(outcome.output, OUTSIDE_TEXT, `${where} leaked outside content`);
  return outcome.output;
}

/** Paths (files) that lead out of the root, each in its own way. */
function fileEscapes(fixture: Fixture): string[] {
  return [
    '..',
    '../outside/secret.txt',
    join(fixture.outside, 'secret.txt'),
    '/etc/passwd',
    '/',
    'src/../../outside/secret.txt',
    'file-rel',
    'file-abs',
    'chain-file',
    'dir-rel/secret.txt',
    'dir-abs/dir/inner.txt',
    'chain-a/secret.txt',
    'chain-a/dir/inner.txt',
    `root-link${fixture.outside}/secret.txt`,
    `${'../'.repeat(30)}etc/passwd`,
    './../outside/secret.txt',
    'src//..//..//outside/secret.txt',
  ];
}

/** Directories outside the root. */
function directoryEscapes(fixture: Fixture): string[] {
  return [
    '..',
    '../outside',
    fixture.outside,
    '/',
    '/tmp',
    'dir-rel',
    'dir-abs',
    'dir-rel/dir',
    'chain-a',
    'root-link',
    `root-link${fixture.outside}`,
  ];
}

/** Files that do not exist yet, outside the root. */
function newFileEscapes(fixture: Fixture): string[] {
  return [
    '../outside/new.txt',
    join(fixture.outside, 'new.txt'),
    'dir-rel/new.txt',
    'dir-abs/dir/new.txt',
    'chain-a/new.txt',
    'chain-a/deeper/new.txt',
    `root-link${fixture.outside}/new.txt`,
    'src/../../outside/new.txt',
    '../project-sibling.txt',
  ];
}

const NUL_PATH = 'a.txt\u0000../../outside/secret.txt';
const LONG_PATHS = ['x'.repeat(5_000), `${'d/'.repeat(2_100)}f`];
/** A very long path must be refused; until path-policy maps ENAMETOOLONG to its own code, the runtime reports it as TOOL_FAILED. */
const TOO_LONG_CODES = ['PATH_TOO_LONG', 'INVALID_PATH', 'TOOL_FAILED'];

describe('read tools refuse every way out of the root', () => {
  test('read_file, list_dir, grep and glob: .., absolute, ~, symlinks (file, directory, relative, absolute, chained)', async () => {
    await attack(async (fixture, tools) => {
      for (const path of fileEscapes(fixture)) {
        await expectCode(tools, 'read_file', { path }, ['PATH_OUTSIDE_ROOT']);
        await expectCode(tools, 'grep', { pattern: 'OUTSIDE', path }, ['PATH_OUTSIDE_ROOT']);
      }
      for (const path of directoryEscapes(fixture)) {
        await expectCode(tools, 'list_dir', { path }, ['PATH_OUTSIDE_ROOT']);
        await expectCode(tools, 'grep', { pattern: 'OUTSIDE', path }, ['PATH_OUTSIDE_ROOT']);
        await expectCode(tools, 'glob', { pattern: '*', path }, ['PATH_OUTSIDE_ROOT']);
      }
      // Paths are resolved lexically first: `src/up/..` is `src` even though `up` links to the root,
      // so this names root/outside/secret.txt, which does not exist, and never the real outside.
      await expectCode(tools, 'read_file', { path: 'src/up/../../outside/secret.txt' }, ['PATH_NOT_FOUND']);
      // `~` is not expanded by file tools: it is a (missing) name inside the root, not $HOME.
      await expectCode(tools, 'read_file', { path: '~/.bashrc' }, ['PATH_NOT_FOUND']);
      await expectCode(tools, 'list_dir', { path: '~' }, ['PATH_NOT_FOUND']);
    });
  });

  test('glob patterns cannot climb out or crawl through symlinked directories', async () => {
    await attack(async (fixture, tools) => {
      for (const pattern of ['../outside/*', `${fixture.outside}/*`, '../**', '/etc/*', 'src/../../outside/*']) {
        await expectCode(tools, 'glob', { pattern }, ['PATH_OUTSIDE_ROOT', 'INVALID_PATTERN']);
      }
      for (const pattern of [
        'dir-rel/*',
        'dir-abs/**/*',
        'dir-abs/dir/*',
        'chain-a/*',
        `root-link${fixture.outside}/*`,
        'root-link/etc/*',
        '**/*',
        '*',
      ]) {
        const outcome = await tools.call('glob', { pattern });
        assert.equal(outcome.isError, false, outcome.output);
        const listed = outcome.output.startsWith('No files matched') ? [] : outcome.output.split('\n');
        for (const line of listed) {
          assert.doesNotMatch(
            line,
            /secret\.txt|inner\.txt|passwd|^dir-rel\/|^dir-abs\/|^chain-a\/|^root-link\//,
            `glob ${pattern}: ${outcome.output}`,
          );
        }
      }
    });
  });

  test('grep searches of the root do not follow symlinks out, and skip secret files', async () => {
    const fixture = await escapeFixture();
    try {
      const tools = createRuntime({ root: fixture.root, tools: [createGrepTool()], gate: allowEverythingGate() });
      // (hard.txt is a hard link to outside/secret.txt, so only the directory's file is searched for.)
      for (const args of [
        { pattern: 'OUTSIDE-INNER|path-escape-secret' },
        { pattern: 'OUTSIDE-INNER|TOKEN', glob: '*' },
        { pattern: 'TOKEN', path: 'src/up' },
      ]) {
        const outcome = await tools.call('grep', args);
        assert.equal(outcome.isError, false, outcome.output);
        assert.equal(outcome.output, 'No matches found.', `${JSON.stringify(args)}: ${outcome.output}`);
      }
    } finally {
      await fixture.cleanup();
    }
  });

  test('a hard link inside the root is inside for path purposes: it reads what it links to', async () => {
    await attack(async (_fixture, tools) => {
      // Documented behaviour, not an escape: the file's name is inside the root. Nothing can create
      // one without running a command, and inside the sandbox hard links cannot cross the masks.
      const read = await tools.call('read_file', { path: 'hard.txt' });
      assert.equal(read.isError, false);
      assert.match(read.output, /OUTSIDE-ORIGINAL/);
    });
  });

  test('symlink loops, NUL bytes and very long paths get a code, not a crash', async () => {
    await attack(async (_fixture, tools) => {
      for (const path of ['loop-a', 'loop-a/x', 'loop-b']) await expectCode(tools, 'read_file', { path }, ['SYMLINK_LOOP', 'TOOL_FAILED']);
      for (const [name, args] of [
        ['read_file', { path: NUL_PATH }],
        ['list_dir', { path: NUL_PATH }],
        ['grep', { pattern: 'x', path: NUL_PATH }],
        ['glob', { pattern: '*', path: NUL_PATH }],
      ] as const) {
        await expectCode(tools, name, args, ['INVALID_PATH']);
      }
      await expectCode(tools, 'glob', { pattern: 'a\u0000/../../*' }, ['INVALID_PATTERN']);
      for (const path of LONG_PATHS) {
        const output = await expectCode(tools, 'read_file', { path }, [...TOO_LONG_CODES, 'PATH_NOT_FOUND']);
        assert.match(output, /too long|ENAMETOOLONG|does not exist/i);
      }
    });
  });
});

describe('write tools refuse every way out of the root', () => {
  test('write_file, edit_file and apply_patch (add, update, delete, move to) refuse escaping paths', async () => {
    await attack(async (fixture, tools) => {
      assert.equal((await tools.call('read_file', { path: 'a.txt' })).isError, false);
      for (const path of [...fileEscapes(fixture), ...newFileEscapes(fixture)]) {
        await expectCode(tools, 'write_file', { path, content: 'pwned\n' }, ['PATH_OUTSIDE_ROOT', 'IS_A_DIRECTORY']);
        await expectCode(tools, 'edit_file', { path, old_string: 'OUTSIDE-ORIGINAL', new_string: 'pwned' }, [
          'PATH_OUTSIDE_ROOT',
          'PATH_NOT_FOUND',
        ]);
        await expectCode(tools, 'apply_patch', { patch: `*** Begin Patch\n*** Add File: ${path}\n+pwned\n*** End Patch` }, [
          'PATH_OUTSIDE_ROOT',
          'PATCH_FILE_EXISTS',
        ]);
        await expectCode(tools, 'apply_patch', { patch: `*** Begin Patch\n*** Delete File: ${path}\n*** End Patch` }, [
          'PATH_OUTSIDE_ROOT',
          'PATCH_FILE_NOT_FOUND',
        ]);
        await expectCode(
          tools,
          'apply_patch',
          { patch: `*** Begin Patch\n*** Update File: ${path}\n@@\n-OUTSIDE-ORIGINAL\n+pwned\n*** End Patch` },
          ['PATH_OUTSIDE_ROOT', 'PATCH_FILE_NOT_FOUND'],
        );
        // A move whose destination escapes, after an operation that is fine on its own: all or nothing.
        await expectCode(
          tools,
          'apply_patch',
          {
            patch: `*** Begin Patch\n*** Add File: staged.txt\n+ok\n*** Update File: a.txt\n*** Move to: ${path}\n@@\n-hello\n+moved\n*** End Patch`,
          },
          ['PATH_OUTSIDE_ROOT', 'PATCH_FILE_EXISTS'],
        );
      }
      assert.equal(await readFile(join(fixture.root, 'a.txt'), 'utf8'), 'hello\n');
      assert.equal(existsSync(join(fixture.root, 'staged.txt')), false, 'no operation of a refused patch was applied');
    });
  });

  test('NUL bytes and very long paths are refused by every write tool, and nothing is created', async () => {
    await attack(async (fixture, tools) => {
      await expectCode(tools, 'write_file', { path: NUL_PATH, content: 'x' }, ['INVALID_PATH']);
      await expectCode(tools, 'edit_file', { path: NUL_PATH, old_string: 'a', new_string: 'b' }, ['INVALID_PATH']);
      await expectCode(tools, 'apply_patch', { patch: `*** Begin Patch\n*** Add File: ${NUL_PATH}\n+x\n*** End Patch` }, ['INVALID_PATH']);
      for (const path of LONG_PATHS) {
        const output = await expectCode(tools, 'write_file', { path, content: 'x' }, TOO_LONG_CODES);
        assert.match(output, /too long|ENAMETOOLONG/i);
        await expectCode(tools, 'apply_patch', { patch: `*** Begin Patch\n*** Add File: ${path}\n+x\n*** End Patch` }, TOO_LONG_CODES);
      }
      assert.equal(existsSync(join(fixture.root, 'd')), false, 'no directories were left behind');
    });
  });

  test('`~` and `..` after a symlink are resolved lexically: the file is created inside the root', async () => {
    await attack(async (fixture, tools) => {
      const outcome = await tools.call('write_file', { path: '~/x.txt', content: 'inside\n' });
      assert.equal(outcome.isError, false, outcome.output);
      assert.equal(await readFile(join(fixture.root, '~', 'x.txt'), 'utf8'), 'inside\n');
      const lexical = await tools.call('write_file', { path: 'src/up/../../outside/secret.txt', content: 'inside\n' });
      assert.equal(lexical.isError, false, lexical.output);
      assert.equal(await readFile(join(fixture.root, 'outside', 'secret.txt'), 'utf8'), 'inside\n');
    });
  });

  test('a dangling symlink is replaced by a regular file, never followed out of the root', async () => {
    await attack(async (fixture, tools) => {
      const outcome = await tools.call('write_file', { path: 'dangling-out', content: 'inside\n' });
      assert.equal(outcome.isError, false, outcome.output);
      assert.ok(lstatSync(join(fixture.root, 'dangling-out')).isFile());
      assert.equal(existsSync(join(fixture.outside, 'created-by-link.txt')), false);
      // Through a dangling directory link: refused or kept inside, never creating outside/newdir.
      const nested = await tools.call('write_file', { path: 'dangling-dir/x.txt', content: 'x' });
      if (nested.isError) assert.match(nested.output, TOOL_ERROR_OUTPUT);
      assert.equal(existsSync(join(fixture.outside, 'newdir')), false);
    });
  });

  test('write tools never clobber the outside file behind a hard link: the rename replaces the link', async () => {
    await attack(async (fixture, tools) => {
      const check = async (expected: string): Promise<void> => {
        const info = lstatSync(join(fixture.root, 'hard.txt'));
        assert.ok(info.isFile());
        assert.equal(info.nlink, 1, 'hard.txt is now its own file');
        assert.equal(await readFile(join(fixture.root, 'hard.txt'), 'utf8'), expected);
      };
      assert.equal((await tools.call('write_file', { path: 'hard.txt', content: 'written\n' })).isError, false);
      await check('written\n');
      // Re-link for each tool, so each one starts from a hard link again.
      const relink = async (): Promise<void> => {
        await rename(join(fixture.root, 'hard.txt'), join(fixture.root, `old-${Date.now()}-${Math.random()}.txt`));
        await link(join(fixture.outside, 'secret.txt'), join(fixture.root, 'hard.txt'));
      };
      await relink();
      assert.equal((await tools.call('read_file', { path: 'hard.txt' })).isError, false);
      const edit = await tools.call('edit_file', { path: 'hard.txt', old_string: 'OUTSIDE-ORIGINAL', new_string: 'edited' });
      assert.equal(edit.isError, false, edit.output);
      await check('edited\n');
      await relink();
      const patch = await tools.call('apply_patch', {
        patch: '*** Begin Patch\n*** Update File: hard.txt\n@@\n-OUTSIDE-ORIGINAL\n+patched\n*** End Patch',
      });
      assert.equal(patch.isError, false, patch.output);
      await check('patched\n');
      await relink();
      const removed = await tools.call('apply_patch', { patch: '*** Begin Patch\n*** Delete File: hard.txt\n*** End Patch' });
      assert.equal(removed.isError, false, removed.output);
      assert.equal(existsSync(join(fixture.root, 'hard.txt')), false);
      assert.equal(await readFile(join(fixture.outside, 'secret.txt'), 'utf8'), 'OUTSIDE-ORIGINAL\n');
      // Deleting removed only the link; put one back so the snapshot's link count matches again.
      await link(join(fixture.outside, 'secret.txt'), join(fixture.root, 'hard.txt'));
    });
  });
});

describe('shell workdir', () => {
  test('a workdir outside the root (.., absolute, symlinked, NUL) is refused before anything runs', async () => {
    await attack(async (fixture, tools) => {
      for (const workdir of directoryEscapes(fixture)) {
        await expectCode(tools, 'shell', { command: `touch ${join(fixture.outside, 'pwned')}`, workdir }, ['PATH_OUTSIDE_ROOT']);
      }
      await expectCode(tools, 'shell', { command: 'touch pwned', workdir: 'file-rel' }, ['PATH_OUTSIDE_ROOT']);
      await expectCode(tools, 'shell', { command: 'touch pwned', workdir: NUL_PATH }, ['INVALID_PATH']);
      await expectCode(tools, 'shell', { command: 'touch pwned', workdir: 'a.txt' }, ['NOT_A_DIRECTORY']);
      assert.equal(
        tools.events.some((event) => event.type === 'tool_finished' && /exit_code/.test(event.output)),
        false,
        'no command ran',
      );
    });
  });
});

function onRequestGate(fixture: Fixture): PermissionGate {
  return createPermissionGate({
    root: fixture.root,
    home: fixture.home,
    approvalPolicy: 'on-request',
    sandbox: 'workspace-write',
    network: false,
    detectSandbox: async () => true,
  });
}

describe('symlinks do not get past the secret-file and protected-path rules (real permission gate)', () => {
  test('a link to .env is a secret read and a protected write; a link into .git is a protected write', async () => {
    await attack(async (fixture, tools) => {
      const decisionOf = (callId: string) =>
        tools.events.find((event) => event.type === 'tool_permission_decided' && event.callId === callId);
      for (const [name, args, rule] of [
        ['read_file', { path: 'notes.txt' }, 'secret-file'],
        ['grep', { pattern: 'TOKEN', path: 'notes.txt' }, 'secret-file'],
        ['write_file', { path: 'notes.txt', content: 'TOKEN=changed\n' }, 'protected-path'],
        ['edit_file', { path: 'notes.txt', old_string: 'TOKEN', new_string: 'X' }, 'protected-path'],
        ['write_file', { path: 'h/pre-commit', content: '#!/bin/sh\ntouch pwned\n' }, 'protected-path'],
        [
          'apply_patch',
          { patch: '*** Begin Patch\n*** Add File: gitlink/hooks/post-checkout\n+#!/bin/sh\n*** End Patch' },
          'protected-path',
        ],
        ['write_file', { path: 'gitlink/config', content: '[core]\n\tfsmonitor = touch pwned\n' }, 'protected-path'],
      ] as const) {
        const outcome = await tools.call(name, args);
        const decided = decisionOf(outcome.callId);
        assert.equal(decided?.type === 'tool_permission_decided' && decided.decision, 'ask', `${name} ${JSON.stringify(args)}`);
        assert.equal(decided?.type === 'tool_permission_decided' && decided.rule, rule, `${name} ${JSON.stringify(args)}`);
        assert.equal(errorCode(outcome.output), 'APPROVAL_DENIED', outcome.output);
        assert.ok(!outcome.output.includes(SECRET));
      }
      assert.equal(await readFile(join(fixture.root, '.env'), 'utf8'), `TOKEN=${SECRET}\n`);
      assert.equal(existsSync(join(fixture.root, '.git', 'hooks', 'pre-commit')), false);
      assert.equal(existsSync(join(fixture.root, '.git', 'hooks', 'post-checkout')), false);
      assert.equal(await readFile(join(fixture.root, '.git', 'config'), 'utf8'), '[core]\n');
      // The control: plain files are still allowed.
      const plain = await tools.call('read_file', { path: 'a.txt' });
      assert.equal(plain.isError, false, plain.output);
      const search = await tools.call('grep', { pattern: SECRET });
      assert.equal(search.output, 'No matches found.', 'a directory search skips .env');
    }, onRequestGate);
  });
});

describe('check and use', () => {
  test('a directory swapped for a symlink after the permission decision is caught by the tool', async () => {
    await attack(async (fixture) => {
      const inner = onRequestGate(fixture);
      // Decides on the real directory, then swaps it for a link out of the root before the tool runs.
      const swapping: PermissionGate = {
        async decide(request) {
          const decision = await inner.decide(request);
          await rename(join(fixture.root, 'swap'), join(fixture.root, `swap-old-${Math.random()}`));
          await symlink(join(fixture.outside, 'dir'), join(fixture.root, 'swap'));
          return decision;
        },
        grantForSession: (request) => inner.grantForSession(request),
        isVisible: (tool) => inner.isVisible(tool),
      };
      for (const [name, args] of [
        ['write_file', { path: 'swap/inner.txt', content: 'pwned\n' }],
        ['read_file', { path: 'swap/inner.txt' }],
        ['apply_patch', { patch: '*** Begin Patch\n*** Add File: swap/added.txt\n+pwned\n*** End Patch' }],
        ['list_dir', { path: 'swap' }],
      ] as const) {
        const tools = createRuntime({ root: fixture.root, tools: realTools(fixture.home), gate: swapping });
        const outcome = await tools.call(name, args);
        const decided = tools.events.find((event) => event.type === 'tool_permission_decided');
        assert.equal(decided?.type === 'tool_permission_decided' && decided.decision, 'allow', `${name}: the gate saw a plain directory`);
        assert.equal(errorCode(outcome.output), 'PATH_OUTSIDE_ROOT', `${name}: ${outcome.output}`);
        assert.doesNotMatch(outcome.output, OUTSIDE_TEXT);
        await rename(join(fixture.root, 'swap'), join(fixture.root, `swap-link-${Math.random()}`));
        await mkdir(join(fixture.root, 'swap'));
      }
    });
  });

  test('writes go to a new temp file in the resolved directory and are renamed over the target, never written in place', async () => {
    const require = createRequire(import.meta.url);
    const fsp = require('node:fs/promises') as Record<string, unknown>;
    const originals = { open: fsp.open, rename: fsp.rename, writeFile: fsp.writeFile, appendFile: fsp.appendFile } as const;
    const opened: Array<{ path: string; flags: string }> = [];
    const renamed: Array<{ from: string; to: string }> = [];
    const written: string[] = [];
    const wrap = <F extends (...args: never[]) => unknown>(original: F, record: (...args: Parameters<F>) => void): F =>
      ((...args: Parameters<F>) => {
        record(...args);
        return original(...args);
      }) as F;
    fsp.open = wrap(originals.open as (path: string, flags?: string | number) => unknown, (path, flags) =>
      opened.push({ path: String(path), flags: String(flags ?? 'r') }),
    );
    fsp.rename = wrap(originals.rename as (from: string, to: string) => unknown, (from, to) =>
      renamed.push({ from: String(from), to: String(to) }),
    );
    fsp.writeFile = wrap(originals.writeFile as (path: unknown) => unknown, (path) => written.push(String(path)));
    fsp.appendFile = wrap(originals.appendFile as (path: unknown) => unknown, (path) => written.push(String(path)));
    syncBuiltinESMExports();
    try {
      await attack(async (fixture, tools) => {
        const src = join(fixture.root, 'src');
        const cases: Array<[string, Record<string, unknown>, string]> = [
          ['write_file', { path: 'src/new.ts', content: 'x\n' }, join(src, 'new.ts')],
          ['write_file', { path: 'a.txt', content: 'rewritten\n' }, join(fixture.root, 'a.txt')],
          // Through a symlinked directory inside the root: the temp file sits in the real directory.
          ['write_file', { path: 'inner-link/c.ts', content: 'c\n' }, join(src, 'c.ts')],
          ['edit_file', { path: 'src/b.ts', old_string: 'export {};', new_string: 'export const b = 2;' }, join(src, 'b.ts')],
          [
            'apply_patch',
            { patch: '*** Begin Patch\n*** Update File: inner-link/b.ts\n@@\n-export const b = 2;\n+export const b = 3;\n*** End Patch' },
            join(src, 'b.ts'),
          ],
        ];
        assert.equal((await tools.call('read_file', { path: 'src/b.ts' })).isError, false);
        for (const [name, args, target] of cases) {
          opened.length = 0;
          renamed.length = 0;
          written.length = 0;
          const outcome = await tools.call(name, args);
          assert.equal(outcome.isError, false, outcome.output);
          const writes = opened.filter((entry) => opensForWriting(entry.flags));
          assert.ok(writes.length > 0, `${name}: a temp file was written`);
          for (const entry of writes) {
            assert.equal(dirname(entry.path), dirname(target), `${name}: temp file ${entry.path} is in the resolved directory`);
            assert.match(basename(entry.path), /^\..*\.glassbox-tmp$/, `${name}: ${entry.path} is a temp file`);
            assert.equal(entry.flags, 'wx', `${name}: the temp file is created exclusively (an existing file or link is never opened)`);
          }
          const final = renamed.filter((entry) => entry.to === target);
          assert.equal(final.length, 1, `${name}: one rename onto ${target}: ${JSON.stringify(renamed)}`);
          assert.ok(
            writes.some((entry) => entry.path === final[0]!.from),
            `${name}: the renamed file is the temp file`,
          );
          assert.ok(
            !opened.some((entry) => entry.path === target && opensForWriting(entry.flags)),
            `${name}: the target is never opened for writing`,
          );
          assert.deepEqual(written, [], `${name}: no writeFile/appendFile by path`);
        }
      });
    } finally {
      Object.assign(fsp, originals);
      syncBuiltinESMExports();
    }
  });
});

// Keep the tool list in sync with what the runner registers: a new path-taking tool must be added above.
test('the attacked tools are exactly the built-in tools', async () => {
  const fixture = await makeFixture();
  try {
    const names = realTools(fixture.home)
      .map((tool: AnyTool) => tool.name)
      .sort();
    assert.deepEqual(names, ['apply_patch', 'edit_file', 'glob', 'grep', 'list_dir', 'read_file', 'shell', 'write_file']);
  } finally {
    await fixture.cleanup();
  }
});

/** Whether `open` flags (a string such as 'wx', or numeric O_* bits) can write or create. */
function opensForWriting(flags: string): boolean {
  if (!/^\d+$/.test(flags)) return /[wa+]/.test(flags);
  const bits = Number(flags);
  return (bits & (fsConstants.O_WRONLY | fsConstants.O_RDWR | fsConstants.O_CREAT | fsConstants.O_APPEND | fsConstants.O_TRUNC)) !== 0;
}
