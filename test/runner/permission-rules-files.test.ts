// Reading permission rules from both config files (issue 26), on real files: which rules apply,
// what a project's unpinned allow rules produce, and how broken files are reported.

import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { readPermissionRules } from '../../src/runner/permission-rules-files.js';
import { PermissionRuleError, readPermissionRulesSection } from '../../src/permissions/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';

async function dirs(user: string | null, project: string | null): Promise<{ home: string; root: string }> {
  const base = await makeTempDir();
  const home = join(base, 'home');
  const root = join(base, 'project');
  await mkdir(home, { recursive: true });
  await mkdir(join(root, '.glassbox'), { recursive: true });
  if (user !== null) await writeFile(join(home, 'config.json'), user);
  if (project !== null) await writeFile(join(root, '.glassbox', 'config.json'), project);
  return { home, root };
}

describe('readPermissionRules', { concurrency: true }, () => {
  test("the user's rules, then the project's deny and ask; its allow only with the matching pin", async () => {
    const projectText = JSON.stringify({ permissions: { allow: ['shell(make)'], deny: ['shell(curl *)'], ask: ['Edit(ci/**)'] } });
    const unpinned = await dirs(JSON.stringify({ permissions: { allow: ['shell(npm test)'] } }), projectText);
    const first = await readPermissionRules(unpinned.home, unpinned.root);
    assert.deepEqual(
      first.rules.map((rule) => rule.text),
      ['shell(npm test)', 'shell(curl *)', 'Edit(ci/**)'],
    );
    assert.deepEqual(
      first.warnings.map((warning) => warning.code),
      ['PERMISSION_RULES_NOT_PINNED'],
    );
    const fingerprint = readPermissionRulesSection(projectText, 'x')!.fingerprint;
    const pinned = await dirs(null, projectText);
    await writeFile(join(pinned.home, 'config.json'), JSON.stringify({ projectPermissionRules: { [pinned.root]: fingerprint } }));
    const second = await readPermissionRules(pinned.home, pinned.root);
    assert.deepEqual(
      second.rules.map((rule) => rule.text),
      ['shell(curl *)', 'Edit(ci/**)', 'shell(make)'],
    );
    assert.deepEqual(second.warnings, []);
    // The same pin for another directory enables nothing there.
    const elsewhere = await dirs(JSON.stringify({ projectPermissionRules: { [pinned.root]: fingerprint } }), projectText);
    assert.ok(!(await readPermissionRules(elsewhere.home, elsewhere.root)).rules.some((rule) => rule.list === 'allow'));
  });

  test('a malformed rule in either file rejects naming the file and line; a project file that is not JSON is ignored with a warning', async () => {
    const badUser = await dirs('{\n"permissions": {"deny": [\n"shell(rm *.txt)"]}}', null);
    await assert.rejects(
      readPermissionRules(badUser.home, badUser.root),
      (error: unknown) =>
        error instanceof PermissionRuleError &&
        error.message.startsWith(`${join(badUser.home, 'config.json')}:3: permission rule "shell(rm *.txt)"`),
    );
    const badProject = await dirs(null, '{"permissions": {"deny": [42]}}');
    await assert.rejects(readPermissionRules(badProject.home, badProject.root), /config\.json:1: permission rule 42 is not a string/);
    const notJson = await dirs(JSON.stringify({ permissions: { deny: ['shell(rm *)'] } }), '{"permissions": ');
    const read = await readPermissionRules(notJson.home, notJson.root);
    assert.deepEqual(
      read.rules.map((rule) => rule.text),
      ['shell(rm *)'],
    );
    assert.deepEqual(
      read.warnings.map((warning) => warning.code),
      ['PROJECT_CONFIG_IGNORED'],
    );
    const badPins = await dirs(
      JSON.stringify({ projectPermissionRules: ['x'] }),
      JSON.stringify({ permissions: { allow: ['shell(make)'] } }),
    );
    await assert.rejects(readPermissionRules(badPins.home, badPins.root), /projectPermissionRules must map/);
  });
});
