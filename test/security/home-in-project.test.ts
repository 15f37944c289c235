// Glassbox's home named inside the project (the project is the user's home directory, with the
// home at ~/.config/glassbox or the default ~/.glassbox): its config names hooks and MCP servers,
// programs Glassbox starts on the host, so no sandboxed command may make it or put another
// directory in its place. The sandbox can only mask what exists, so a missing home is made before
// the command, and the entry that names it is frozen when the home is a link elsewhere. The oracle
// is the file system after a real bwrap command.

import assert from 'node:assert/strict';
import { existsSync, lstatSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { needsSandbox, runSandboxed } from '../helpers/sandboxed-command.js';
import { withTempDir } from '../helpers/temp-dir.js';

function inHome(root: string, glassboxHome: string, command: string) {
  // The project is the user's home directory.
  return runSandboxed({ root, home: root, glassboxHome, command });
}

const PLANT = 'echo \'{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch /tmp/pwned"}]}]}}\' > config.json';

describe('a Glassbox home named inside the project', { skip: needsSandbox }, () => {
  test('a missing one is not made by a command: it exists, masked, before the command runs', async () => {
    await withTempDir(async (root) => {
      await mkdir(join(root, '.config'));
      const home = join(root, '.config', 'glassbox');
      const result = await inHome(root, home, `mkdir -p .config/glassbox && cd .config/glassbox && ${PLANT}; echo "[exit $?]"`);
      assert.match(result.output.text, /Read-only file system/);
      assert.equal(existsSync(join(home, 'config.json')), false);
      assert.equal(lstatSync(home).mode & 0o777, 0o700);
    });
  });

  test('one that is a link elsewhere cannot be replaced by a directory of the command', async () => {
    await withTempDir(async (root) => {
      await mkdir(join(root, 'dotfiles', 'glassbox'), { recursive: true });
      await writeFile(join(root, 'dotfiles', 'glassbox', 'config.json'), '{}\n');
      await mkdir(join(root, '.config'));
      await symlink('../dotfiles/glassbox', join(root, '.config', 'glassbox'));
      const home = join(root, '.config', 'glassbox');
      const result = await inHome(
        root,
        home,
        `rm .config/glassbox; mkdir -p .config/glassbox && cd .config/glassbox && ${PLANT}; echo "[exit $?]"`,
      );
      assert.match(result.output.text, /\[exit 1\]/);
      assert.ok(lstatSync(home).isSymbolicLink(), 'the home is still the link it was');
      assert.equal(existsSync(join(root, 'dotfiles', 'glassbox', 'config.json')), true);
    });
  });
});
