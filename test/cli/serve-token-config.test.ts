// The deployment's shared access token from `"server": {"token": …}` in <home>/config.json,
// through the built CLI: used when neither --token nor GLASSBOX_TOKEN is given, beaten by either,
// never taken from a project's own `.glassbox/config.json` (a repository does not choose the
// secret of the server that runs it), and a bad one is exit 2 naming the file, not the token.

import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cliEnv, runCli, startCli } from '../helpers/run-cli.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const HOME_TOKEN = 'home-config-token-000000000001';
const PROJECT_TOKEN = 'project-config-token-0000000002';

/** A project whose own config names a token, and a home whose config names another. */
async function setUp(homeToken: unknown): Promise<{ root: string; home: string }> {
  const base = await makeTempDir();
  const root = join(base, 'project');
  const home = join(base, 'home');
  await mkdir(join(root, '.glassbox'), { recursive: true });
  await mkdir(home, { recursive: true });
  await writeFile(join(root, '.glassbox', 'config.json'), JSON.stringify({ server: { token: PROJECT_TOKEN } }));
  await writeFile(join(home, 'config.json'), JSON.stringify({ server: { token: homeToken } }), { mode: 0o600 });
  return { root, home };
}

/** Start `serve`, read the URL it prints, stop it; returns the URL and its stderr. */
async function firstUrl(
  args: string[],
  env: NodeJS.ProcessEnv,
  t: { after(fn: () => void): void },
): Promise<{ url: string; stderr: string }> {
  const { child, done } = startCli(['serve', '--port', '0', '--demo', ...args], env);
  t.after(() => child.kill('SIGKILL'));
  let stdout = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('\n')) resolve(stdout.slice(0, stdout.indexOf('\n')));
    });
    void done.then((result) => reject(new Error(`serve exited ${result.code}: ${result.stderr}`)));
  });
  child.kill('SIGINT');
  const result = await done;
  assert.equal(result.code, 0, result.stderr);
  return { url, stderr: result.stderr };
}

describe('serve reads the shared token from the home config only', { concurrency: true }, () => {
  test('the home config token is used; the project config token is ignored with a warning', async (t) => {
    const { root, home } = await setUp(HOME_TOKEN);
    const { url, stderr } = await firstUrl(['-C', root, '--home', home], cliEnv({}), t);
    assert.match(url, new RegExp(`\\?token=${HOME_TOKEN}$`));
    assert.match(
      stderr,
      /\.glassbox\/config\.json: "server" is read only from .*config\.json, never from a project's config; it is ignored here/,
    );
    assert.ok(!stderr.includes(PROJECT_TOKEN) && !stderr.includes(HOME_TOKEN), 'stderr names no token');
  });

  test('GLASSBOX_TOKEN and --token beat the config', async (t) => {
    const { root, home } = await setUp(HOME_TOKEN);
    const fromEnv = await firstUrl(['-C', root, '--home', home], cliEnv({ GLASSBOX_TOKEN: 'environment-token-0000000003' }), t);
    assert.match(fromEnv.url, /\?token=environment-token-0000000003$/);
    const fromFlag = await firstUrl(['-C', root, '--home', home, '--token', 'flag-token-00000000000004'], cliEnv({}), t);
    assert.match(fromFlag.url, /\?token=flag-token-00000000000004$/);
  });

  test('without any, a project config token still does not count: a new random token', async (t) => {
    const { root, home } = await setUp(undefined);
    const { url } = await firstUrl(['-C', root, '--home', home], cliEnv({}), t);
    assert.match(url, /\?token=[A-Za-z0-9_-]{32}$/);
    assert.ok(!url.includes(PROJECT_TOKEN));
  });

  test('a bad token in the config is exit 2 naming the file and the key, not the value', async () => {
    const { root, home } = await setUp('short');
    const result = await runCli(['serve', '--port', '0', '--demo', '-C', root, '--home', home], cliEnv({}));
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /home\/config\.json: server\.token: the access token must be 16 to 256 characters/);
    const notString = await setUp(12345);
    const typed = await runCli(['serve', '--port', '0', '--demo', '-C', notString.root, '--home', notString.home], cliEnv({}));
    assert.equal(typed.code, 2, typed.stderr);
    assert.match(typed.stderr, /server\.token must be a string/);
  });
});
