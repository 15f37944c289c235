// A session recorded by the built CLI for the export tests: `exec` against the fake provider,
// with a key-shaped token in a file the model reads and the API key's own value in its answer.

import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startFakeProvider } from '../../src/testing/index.js';
import { makeTempDir } from './temp-dir.js';
import { cliEnv, runCli } from './run-cli.js';

export const PLANTED_ENV_KEY = 'planted-env-key-ZX81-0123456789';
export const PLANTED_FILE_KEY = 'sk-proj-PLANTEDfileKEY0123456789abcdef';

/** A project and home with one recorded exec session: read_file on a file holding a key, then an answer with the env key. */
export async function recordedSession(): Promise<{ base: string; env: NodeJS.ProcessEnv; close: () => Promise<void> }> {
  const base = await makeTempDir();
  const root = join(base, 'project');
  await mkdir(root, { recursive: true });
  await writeFile(join(root, 'notes.txt'), `deploy token: ${PLANTED_FILE_KEY}\n`);
  const provider = await startFakeProvider({
    script: [
      { text: 'Reading the notes.', toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
      { text: `Exported answer: the notes hold a deploy token; your key is ${PLANTED_ENV_KEY}.` },
    ],
  });
  const env = cliEnv({ OPENAI_API_KEY: PLANTED_ENV_KEY, GLASSBOX_HOME: join(base, 'home') });
  const ran = await runCli(['exec', '--base-url', provider.baseURL, '-C', root, 'summarize notes.txt'], env);
  assert.equal(ran.code, 0, ran.stderr);
  return { base, env, close: () => provider.close() };
}
