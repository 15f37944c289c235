// "Approve always": adds one exact allow rule to `permissions.allow` in the user's own config
// (`<home>/config.json`), keeping every other setting. The file is rewritten whole through a
// temporary file and a rename, so a crash leaves the old file or the new one, never half of it;
// the new text is read back as rules before it replaces the old, so a save never breaks the file.

import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readPermissionRulesSection } from './config-rules-file.js';
import { readProjectFile } from '../workspace/index.js';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Saves `rule`; resolves to the file written (unchanged when the rule was already there). */
export async function saveAllowRule(home: string, rule: string): Promise<string> {
  const path = join(home, 'config.json');
  const text = await readProjectFile(path, { root: null });
  const config: unknown = text === null ? {} : JSON.parse(text);
  if (!isObject(config)) throw new Error(`${path}: expected a JSON object`);
  const permissions = config.permissions ?? {};
  if (!isObject(permissions)) throw new Error(`${path}: permissions must be an object`);
  const allow = permissions.allow ?? [];
  if (!Array.isArray(allow)) throw new Error(`${path}: permissions.allow must be a list of rules`);
  if (allow.includes(rule)) return path;
  const next = `${JSON.stringify({ ...config, permissions: { ...permissions, allow: [...allow, rule] } }, null, 2)}\n`;
  readPermissionRulesSection(next, path);
  await mkdir(home, { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, next, { mode: 0o600, flag: 'wx' });
  await rename(temporary, path);
  return path;
}
