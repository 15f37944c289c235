// The user's own sandbox settings: `sandbox.readablePaths` in `<home>/config.json`, more host paths
// the sandbox shows read-only (a toolchain installed somewhere the built-in list does not cover).
// Only the user's file is read, never a project's `.glassbox/config.json`: a repository must not
// choose what of the host its commands can see.

import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { readProjectFile } from '../workspace/index.js';

const sandboxSectionSchema = z.strictObject({
  readablePaths: z.array(z.string().min(1)).max(256).optional(),
});

// Other parts of Glassbox keep their own keys in the same file; only ours are checked here.
const configFileSchema = z.looseObject({ sandbox: sandboxSectionSchema.optional() });

export interface SandboxConfig {
  /** Absolute paths (`~/` expanded against the home directory). */
  readablePaths: string[];
}

/** `<glassboxHome>/config.json`'s `sandbox` section; a missing file is empty, a broken one an error naming the key. */
export async function readSandboxConfig(glassboxHome: string, homeDir: string = homedir()): Promise<SandboxConfig> {
  const path = join(glassboxHome, 'config.json');
  const text = await readProjectFile(path, { root: null });
  if (text === null) return { readablePaths: [] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`${path} is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = configFileSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined ? 'sandbox' : issue.path.map(String).join('.') || 'the file';
    throw new Error(`${path}: ${where}: ${issue?.message ?? 'invalid configuration'}`);
  }
  const readablePaths = (parsed.data.sandbox?.readablePaths ?? []).map((entry) => {
    const expanded = entry === '~' ? homeDir : entry.startsWith('~/') ? join(homeDir, entry.slice(2)) : entry;
    if (!isAbsolute(expanded) || expanded.includes('\0')) {
      throw new Error(`${path}: sandbox.readablePaths: ${JSON.stringify(entry)} must be an absolute path or start with ~/.`);
    }
    return expanded;
  });
  return { readablePaths };
}
