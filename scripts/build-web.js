#!/usr/bin/env node
// Builds the workbench (src/web) into dist/web with Vite. Called by scripts/build.js; runs
// offline (everything comes from node_modules) and takes a few seconds.
// `--out-dir <dir>` builds elsewhere (the browser tests use a private copy).
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const configFile = join(root, 'src', 'web', 'vite.config.ts');

function outDirArgument(argv) {
  const index = argv.findIndex((arg) => arg === '--out-dir' || arg.startsWith('--out-dir='));
  if (index === -1) return null;
  const value = argv[index].includes('=') ? argv[index].slice('--out-dir='.length) : argv[index + 1];
  if (!value) {
    console.error('build-web: --out-dir needs a directory');
    process.exit(2);
  }
  return resolve(value);
}

const outDir = outDirArgument(process.argv.slice(2));

let vite;
try {
  vite = await import('vite');
} catch {
  // A production install has no dev dependencies; the package ships dist/web already built.
  if (outDir === null && existsSync(join(root, 'dist', 'web', 'index.html'))) process.exit(0);
  console.error('build-web: vite is not installed (it is a dev dependency); run npm install first');
  process.exit(1);
}

try {
  await vite.build({
    configFile,
    logLevel: process.env.GLASSBOX_WEB_LOG ?? 'warn',
    ...(outDir === null ? {} : { build: { outDir, emptyOutDir: true } }),
  });
} catch (error) {
  console.error(`build-web: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
