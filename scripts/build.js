#!/usr/bin/env node
// Build: compile src/ to dist/ with tsc, copy the data files that code loads at run time (tool
// descriptions, prompts; wasm grammars stay in node_modules), then bundle the CLI into
// dist/bundle/. Runs from `npm install` via `prepare`, so a fresh clone has a runnable
// `bin/glassbox.js` right after install.
// Everything is built into a staging directory next to dist/ and renamed into place at the end:
// a build takes tens of seconds (npm install, npm pack, npm test), and a CLI started meanwhile
// must find the previous build whole rather than an emptied or half-written dist/.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, renameSync, rmSync, statSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildInputsDigest } from './build-inputs.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const dist = join(root, 'dist');
// Same file system as dist/, so the final rename is one step; a dot name keeps it out of the tools' way.
const staging = join(root, `.dist-build-${process.pid}`);
const retired = join(root, `.dist-old-${process.pid}`);

const skipWeb = process.env.GLASSBOX_SKIP_WEB === '1' || process.argv.includes('--skip-web');
// Taken before compiling, so a source edited while the build runs makes the next `npm test` rebuild.
const inputs = buildInputsDigest(root);
// A fresh directory, so deleted sources leave no stale modules. Staging dirs of builds that were
// killed are removed here too.
for (const name of readdirSync(root)) {
  const owner = /^\.dist-(?:build|old)-(\d+)/.exec(name);
  if (owner !== null && !processAlive(Number(owner[1]))) {
    rmSync(join(root, name), { recursive: true, force: true });
  }
}
mkdirSync(staging, { recursive: true });
let done = false;
process.on('exit', () => {
  if (!done) rmSync(staging, { recursive: true, force: true });
});

function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', staging], { stdio: 'inherit' });
if (result.status !== 0) {
  console.error('build: tsc failed');
  process.exit(result.status ?? 1);
}

const dataExtensions = ['.md', '.txt', '.json'];
function copyData(dir) {
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (name === 'web') continue;
    if (statSync(full).isDirectory()) copyData(full);
    else if (dataExtensions.some((ext) => name.endsWith(ext))) {
      const target = join(staging, relative(src, full));
      mkdirSync(dirname(target), { recursive: true });
      cpSync(full, target);
    }
  }
}
copyData(src);

// The CLI as a bundle (dist/bundle/), next to tsc's per-file output that the package's library
// entry points use; bin/glassbox.js runs the bundle.
const { bundleCli } = await import('./bundle-cli.js');
await bundleCli({ dist: staging });

const webBuild = join(root, 'scripts', 'build-web.js');
if (skipWeb) {
  // Tests rebuild only the server side (`--skip-web`): the workbench bundle does not change with them.
  if (existsSync(join(dist, 'web'))) cpSync(join(dist, 'web'), join(staging, 'web'), { recursive: true });
} else if (existsSync(webBuild)) {
  const web = spawnSync(process.execPath, [webBuild, '--out-dir', join(staging, 'web')], { stdio: 'inherit' });
  if (web.status !== 0) process.exit(web.status ?? 1);
}

// Recorded last, once the build is complete: `npm test` skips its own build while this matches the
// sources (scripts/build-inputs.js).
writeFileSync(join(staging, '.build-inputs'), `${inputs}\n`);
// Into place: the old build steps aside and the new one takes its name, two renames apart.
// Another build finishing at the same moment may put its dist/ back in between: step it aside too.
for (let attempt = 1; ; attempt++) {
  if (existsSync(dist)) renameSync(dist, `${retired}-${attempt}`);
  try {
    renameSync(staging, dist);
    break;
  } catch (error) {
    if (attempt >= 5 || (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST')) throw error;
  }
}
done = true;
for (const name of readdirSync(root)) {
  if (name.startsWith(`.dist-old-${process.pid}-`)) rmSync(join(root, name), { recursive: true, force: true });
}
