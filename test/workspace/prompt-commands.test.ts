// Prompt commands: where they are found (project before home, built-in names kept), how their
// arguments go in ($ARGUMENTS, $1…, quotes group words, Claude Code's reading), and that a command
// file leading to a secret is refused with a warning.

import assert from 'node:assert/strict';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { expandPromptCommand, findPromptCommands, splitArguments, type PromptCommand } from '../../src/workspace/index.js';
import { withTempDir } from '../helpers/temp-dir.js';

function command(body: string): PromptCommand {
  return { name: 'x', description: null, argumentHint: null, body, label: 'x.md' };
}

describe('prompt commands', { concurrency: true }, () => {
  test('arguments: $ARGUMENTS is all of them, $N the N-th word, quotes group words', () => {
    assert.deepEqual(splitArguments(`  fix "the login bug" 'in auth'  now `), ['fix', 'the login bug', 'in auth', 'now']);
    assert.deepEqual(splitArguments('a ""'), ['a', '']);
    const fix = command('Fix issue #$1 with priority $2: $ARGUMENTS ($3)');
    assert.equal(expandPromptCommand(fix, '123 "high now"'), 'Fix issue #123 with priority high now: 123 "high now" ()');
    // exec passes its argv as the words, split by the shell already.
    assert.equal(expandPromptCommand(fix, '123 high now', ['123', 'high now']), 'Fix issue #123 with priority high now: 123 high now ()');
    // No placeholder: the arguments follow the text.
    assert.equal(expandPromptCommand(command('Review the diff.'), 'focus on tests'), 'Review the diff.\n\nARGUMENTS: focus on tests');
    assert.equal(expandPromptCommand(command('Review the diff.'), '  '), 'Review the diff.');
  });

  test('found in the project and the home; the project wins a name; built-in names are kept', async () => {
    await withTempDir(async (dir) => {
      const root = join(dir, 'project');
      const home = join(dir, 'home');
      await mkdir(join(root, '.glassbox', 'commands'), { recursive: true });
      await mkdir(join(root, '.claude', 'commands'), { recursive: true });
      await mkdir(join(home, 'commands'), { recursive: true });
      await writeFile(
        join(root, '.glassbox', 'commands', 'fix.md'),
        '---\ndescription: Fix an issue\nargument-hint: <issue>\n---\nFix $1.\n',
      );
      await writeFile(join(root, '.claude', 'commands', 'fix.md'), 'shadowed');
      await writeFile(join(root, '.claude', 'commands', 'Review.md'), 'Review it.');
      await writeFile(join(root, '.claude', 'commands', 'help.md'), 'not mine');
      await writeFile(join(root, '.claude', 'commands', 'notes.txt'), 'not a command');
      await writeFile(join(home, 'commands', 'standup.md'), '---\ndescription: "broken\n---\n');
      await writeFile(join(home, 'commands', 'mine.md'), 'Mine: $ARGUMENTS');
      const found = await findPromptCommands({ root, glassboxHome: home }, ['help', 'exit']);
      assert.deepEqual(
        found.commands.map((c) => [c.name, c.description, c.argumentHint, c.body]),
        [
          ['fix', 'Fix an issue', '<issue>', 'Fix $1.'],
          ['review', null, null, 'Review it.'],
          ['mine', null, null, 'Mine: $ARGUMENTS'],
        ],
      );
      const messages = found.warnings.map((w) => w.message).join('\n');
      assert.match(messages, /\.claude\/commands\/help\.md: \/help is a built-in command/);
      assert.match(messages, /commands\/standup\.md: malformed front matter line 2/);
    });
  });

  test('a command file that leads to a secret or out of its folder is refused', async () => {
    await withTempDir(async (dir) => {
      const root = join(dir, 'project');
      await mkdir(join(root, '.glassbox', 'commands'), { recursive: true });
      await writeFile(join(root, '.env'), 'API_KEY=sk-secret\n');
      await writeFile(join(dir, 'outside.md'), 'OUTSIDE');
      await symlink(join(root, '.env'), join(root, '.glassbox', 'commands', 'env.md'));
      await symlink(join(dir, 'outside.md'), join(root, '.glassbox', 'commands', 'out.md'));
      const found = await findPromptCommands({ root, glassboxHome: join(dir, 'home') });
      assert.deepEqual(found.commands, []);
      const messages = found.warnings.map((w) => w.message).join('\n');
      assert.match(messages, /env\.md: leads outside/);
      assert.match(messages, /out\.md: leads outside/);
      assert.doesNotMatch(messages, /sk-secret|OUTSIDE/);
    });
  });
});
