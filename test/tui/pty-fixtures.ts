// What the terminal tests share: a project with one file, a terminal user's environment, the
// session file read back, and the rule that a missing tmux fails in CI instead of skipping.

import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { makeTempDir } from '../helpers/temp-dir.js';
import { tmuxAvailable } from './tmux-screen.js';

export const hasTmux = tmuxAvailable();

/** Registers a failing test when tmux is missing in CI; returns the `skip` option for the suite. */
export function requireTmux(): false | string {
  if (!hasTmux && process.env.CI) {
    test('CI has tmux for the terminal tests', () => assert.fail('tmux is not on PATH (apt-get install tmux)'));
  }
  return hasTmux ? false : 'tmux is not installed';
}

export async function ptyProject(): Promise<{ root: string; home: string }> {
  const base = await makeTempDir();
  const root = join(base, 'project');
  await mkdir(root, { recursive: true });
  await writeFile(join(root, 'notes.txt'), 'remember the milk\n');
  return { root, home: join(base, 'home') };
}

/** The environment of a terminal user: a real TERM, and only the settings the test gives. */
export function ptyEnv(extra: Record<string, string | undefined>): Record<string, string | undefined> {
  return { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', TERM: 'xterm-256color', OPENAI_API_KEY: 'k', ...extra };
}

export async function sessionRecords(home: string, sessionId: string): Promise<Array<Record<string, unknown>>> {
  const text = await readFile(join(home, 'sessions', `${sessionId}.jsonl`), 'utf8');
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The session id the farewell message names. */
export function farewellSessionId(screen: string): string {
  const match = /continue it with:\s+glassbox --resume (\S+)/.exec(screen);
  assert.ok(match, `no farewell on screen:\n${screen}`);
  return match[1]!;
}
