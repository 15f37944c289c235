// The skill tool on real files: it loads a skill's body and lists its files, reads a supporting
// file, finds the home's skills after the project's, and refuses what leads out of the skill's
// folder (`..`, an absolute path, a link to the user's `~/.ssh/id_rsa`), a secret file inside it,
// and a home skill folder that is a link into a credential store.

import assert from 'node:assert/strict';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { createSkillTool } from '../../src/tools/index.js';
import { findSkills } from '../../src/workspace/index.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { callTool, expectToolError, makeContext } from './tool-test-context.js';

async function skill(dir: string, name: string, description = `The ${name} skill.`, body = `${name.toUpperCase()}-BODY`): Promise<string> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}\n`);
  return dir;
}

/** A project, a Glassbox home and a user home with an SSH key, side by side in `dir`. */
async function layout(dir: string) {
  const root = join(dir, 'project');
  const glassboxHome = join(dir, 'glassbox-home');
  const homeDir = join(dir, 'user');
  await mkdir(join(homeDir, '.ssh'), { recursive: true });
  await writeFile(join(homeDir, '.ssh', 'id_rsa'), 'PRIVATE-KEY\n');
  await mkdir(root, { recursive: true });
  return { root, glassboxHome, homeDir, tool: createSkillTool({ glassboxHome, homeDir }), context: makeContext(root) };
}

describe('skill', { concurrency: true }, () => {
  test('loads the body with its files listed, then a file; home skills after the project', async () => {
    await withTempDir(async (dir) => {
      const { root, glassboxHome, homeDir, tool, context } = await layout(dir);
      const review = await skill(join(root, '.agents', 'skills', 'review'), 'review');
      await mkdir(join(review, 'scripts'));
      await writeFile(join(review, 'scripts', 'check.sh'), 'echo check\n');
      await skill(join(glassboxHome, 'skills', 'review'), 'review', 'Shadowed.', 'HOME-REVIEW');
      await skill(join(glassboxHome, 'skills', 'notes'), 'notes');
      const found = await findSkills({ root, glassboxHome, homeDir });
      assert.deepEqual(
        found.skills.map((s) => [s.name, s.source, s.description]),
        [
          ['review', 'project', 'The review skill.'],
          ['notes', 'home', 'The notes skill.'],
        ],
      );
      const loaded = await callTool(tool, { name: 'review' }, context);
      assert.match(loaded, /^<skill name="review" source="\.agents\/skills\/review\/SKILL\.md">\nREVIEW-BODY\n<\/skill>/);
      assert.match(loaded, /<skill_files>\nscripts\/check\.sh\n<\/skill_files>/);
      assert.equal(await callTool(tool, { name: 'review', file: 'scripts/check.sh' }, context), 'echo check\n');
      assert.match(await callTool(tool, { name: 'notes' }, context), /NOTES-BODY/);
      assert.match(await expectToolError(tool, { name: 'nope' }, context, 'UNKNOWN_SKILL'), /Skills: review, notes/);
      await expectToolError(tool, { name: 'review', file: 'missing.md' }, context, 'NOT_FOUND');
    });
  });

  test('refuses paths out of the folder, links to ~/.ssh, and secrets inside it', async () => {
    await withTempDir(async (dir) => {
      const { root, homeDir, tool, context } = await layout(dir);
      const review = await skill(join(root, '.agents', 'skills', 'review'), 'review');
      await writeFile(join(root, 'README.md'), 'project readme\n');
      await writeFile(join(review, '.env'), 'TOKEN=abc\n');
      await symlink(join(homeDir, '.ssh', 'id_rsa'), join(review, 'key'));
      for (const file of ['../../../README.md', join(root, 'README.md'), 'key', '.env']) {
        const message = await expectToolError(tool, { name: 'review', file }, context, 'REFUSED');
        assert.doesNotMatch(message, /PRIVATE-KEY|TOKEN=abc|project readme/);
      }
    });
  });

  test('a home skill folder that is a link into ~/.ssh, or a SKILL.md that is, is not a skill', async () => {
    await withTempDir(async (dir) => {
      const { root, glassboxHome, homeDir } = await layout(dir);
      await writeFile(join(homeDir, '.ssh', 'SKILL.md'), '---\nname: ssh\ndescription: SSH-KEYS\n---\n');
      await mkdir(join(glassboxHome, 'skills', 'linked'), { recursive: true });
      await symlink(join(homeDir, '.ssh'), join(glassboxHome, 'skills', 'ssh'));
      await symlink(join(homeDir, '.ssh', 'id_rsa'), join(glassboxHome, 'skills', 'linked', 'SKILL.md'));
      const found = await findSkills({ root, glassboxHome, homeDir });
      assert.deepEqual(found.skills, []);
      const messages = found.warnings.map((w) => w.message).join('\n');
      assert.match(messages, /skills\/linked\/SKILL\.md: leads outside/);
      assert.match(messages, /skills\/ssh leads outside/);
      assert.doesNotMatch(messages, /SSH-KEYS|PRIVATE-KEY/);
    });
  });

  test('honours an aborted signal', async () => {
    await withTempDir(async (dir) => {
      const { root, tool } = await layout(dir);
      const controller = new AbortController();
      controller.abort();
      await assert.rejects(tool.execute({ name: 'x' }, makeContext(root, controller.signal)));
    });
  });
});
