// A digest of everything the server-side build (scripts/build.js --skip-web) reads: the sources,
// the build scripts and configs, and the locked dependency versions. build.js records it in dist/
// when a build succeeds; `npm test` (scripts/run-tests.js --build) compares it and rebuilds only
// when something changed, so a test run right after `npm install` or `npm run build` (what CI does)
// does not compile and bundle the same sources a second time.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

const INPUT_FILES = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'scripts/build.js',
  'scripts/build-inputs.js',
  'scripts/bundle-cli.js',
];

/** Where a successful build records the digest of its inputs. */
export function recordedInputsFile(root) {
  return join(root, 'dist', '.build-inputs');
}

function filesUnder(dir) {
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...filesUnder(full));
    else if (entry.isFile()) files.push(full);
  }
  return files;
}

/** The digest of the build's inputs as they are now (names and contents, in a fixed order). */
export function buildInputsDigest(root) {
  const files = [...filesUnder(join(root, 'src')), ...INPUT_FILES.map((name) => join(root, name)).filter((file) => existsSync(file))];
  const names = files.map((file) => relative(root, file).split(sep).join('/')).sort();
  const hash = createHash('sha256');
  for (const name of names) {
    const content = readFileSync(join(root, name));
    // Lengths delimit the fields, so no two different trees hash the same stream of bytes.
    hash.update(`${name.length}:${name}:${content.length}:`);
    hash.update(content);
  }
  return hash.digest('hex');
}

/** Whether dist/ holds a complete build of exactly the current inputs. */
export function buildIsCurrent(root) {
  const recorded = recordedInputsFile(root);
  if (!existsSync(recorded) || !existsSync(join(root, 'dist', 'bundle', 'cli.js'))) return false;
  return readFileSync(recorded, 'utf8').trim() === buildInputsDigest(root);
}
