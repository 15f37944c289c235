// Glassbox installs as a global `glassbox` command the two ways a user installs a package: from a
// clone (`npm install -g .`) and from the tarball `npm pack` makes (what the registry would serve),
// each into a fresh prefix. `npm pack` runs `prepare`, which rebuilds dist/ of this checkout: a CLI
// started over and over meanwhile must keep working (the build is renamed into place at the end).
// Needs the npm registry for the tarball's dependencies, so it is not part of `npm test`:
// `npm run test:install` (CI runs it).

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { makeTempDir } from '../helpers/temp-dir.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** npm as the test was started with it (`npm run test:install`), else the one on PATH. */
function npm(args: string[], cwd: string): Promise<Run> {
  const cli = process.env.npm_execpath;
  return cli && /npm-cli\.[cm]?js$/.test(cli) ? run(process.execPath, [cli, ...args], { cwd }) : run('npm', args, { cwd });
}

/** `glassbox` found on PATH in the prefix's bin/, as a shell finds a globally installed command. */
async function checkCommand(prefix: string, version: string, what: string): Promise<void> {
  const base = await makeTempDir();
  const project = join(base, 'project');
  await mkdir(project, { recursive: true });
  await writeFile(join(project, 'README.md'), '# Installed\n\nA project to look at.\n');
  // No key and no base URL: the offline demo model, which drives the real tools.
  const env = {
    PATH: `${join(prefix, 'bin')}${delimiter}${process.env.PATH}`,
    HOME: base,
    GLASSBOX_HOME: join(base, 'home'),
    LANG: 'C.UTF-8',
  };
  const shown = await run('glassbox', ['--version'], { cwd: project, env });
  assert.equal(shown.code, 0, `${what}: ${shown.stderr}`);
  assert.equal(shown.stdout, `${version}\n`);
  const answer = await run('glassbox', ['exec', 'What is this project?'], { cwd: project, env });
  assert.equal(answer.code, 0, `${what}: ${answer.stderr}`);
  assert.match(answer.stdout, /A project to look at/, what);
}

test('npm install -g from the clone and from the npm pack tarball give a working glassbox; the rebuild never breaks a CLI started meanwhile', async () => {
  const version = (JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  const base = await makeTempDir();
  const packs = join(base, 'packs');
  await mkdir(packs, { recursive: true });

  // The CLI of this checkout, started back to back while `npm pack` runs `prepare` (a full build).
  const packing = npm(['pack', '--json', '--pack-destination', packs], REPO_ROOT);
  let packed = false;
  void packing.then(() => (packed = true));
  const failures: string[] = [];
  let started = 0;
  while (!packed) {
    const help = await run(process.execPath, [join(REPO_ROOT, 'bin', 'glassbox.js'), '--help'], { cwd: base });
    started += 1;
    if (help.code !== 0 || !/Usage: glassbox/.test(help.stdout)) failures.push(`exit ${help.code}: ${help.stderr.trim()}`);
  }
  const pack = await packing;
  assert.equal(pack.code, 0, pack.stderr);
  assert.deepEqual(failures, [], `${failures.length} of ${started} CLIs started during the build failed`);
  assert.ok(started > 1, 'the build ended before a second CLI started: nothing was checked');
  const { filename } = (JSON.parse(pack.stdout) as Array<{ filename: string }>)[0]!;

  const fromTarball = join(base, 'prefix-tarball');
  const fromClone = join(base, 'prefix-clone');
  const installs = await Promise.all([
    npm(['install', '-g', '--prefix', fromTarball, '--no-audit', '--no-fund', join(packs, filename)], base),
    // From the clone npm links the directory: no download, the clone's own dist/ and node_modules.
    npm(['install', '-g', '--prefix', fromClone, '--no-audit', '--no-fund', '--offline', '.'], REPO_ROOT),
  ]);
  for (const install of installs) assert.equal(install.code, 0, install.stderr);
  await checkCommand(fromTarball, version, 'from the tarball');
  await checkCommand(fromClone, version, 'from the clone');
});
