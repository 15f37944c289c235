import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, it, test } from 'node:test';
import { glob } from 'tinyglobby';
import { SECRET_FILE_EXCEPTIONS, SECRET_FILE_GLOBS, isSecretPath, maySecretFileName } from '../../src/workspace/index.js';
import { withTempDir } from '../helpers/temp-dir.js';

const SECRET = [
  '.env',
  '.env.local',
  '.env.production',
  'apps/web/.env',
  '/home/u/project/.env.test',
  'certs/server.pem',
  'tls/private.key',
  'keys/id_rsa',
  'keys/id_ed25519',
  'id_ecdsa',
  '.npmrc',
  '.pypirc',
  '.netrc',
  '.git-credentials',
  'credentials.json',
  'gcp/credentials-prod.json',
  '.aws/credentials',
  'home/.aws/config',
  '.docker/config.json',
  'store.p12',
  'C:\\Users\\me\\project\\.env',
  'CONFIG/.ENV',
];

const NOT_SECRET = [
  '',
  'env',
  'src/env.ts',
  '.envrc.d/readme.md',
  'keys/id_rsa.pub',
  'keys/id_ed25519.pub',
  'docs/keys.md',
  'key.ts',
  'config.json',
  '.docker/daemon.json',
  'credentials.md',
  'aws/credentials',
  'package.json',
];

describe('isSecretPath', () => {
  for (const path of SECRET) it(`recognises ${path}`, () => assert.equal(isSecretPath(path), true));
  for (const path of NOT_SECRET) it(`leaves ${JSON.stringify(path)} alone`, () => assert.equal(isSecretPath(path), false));

  it('agrees with a glob over a real tree using the exported patterns', async () => {
    await withTempDir(async (dir) => {
      const files = [
        ...SECRET.filter((path) => !path.startsWith('/') && !path.includes('\\')),
        ...NOT_SECRET.filter((path) => path !== ''),
      ];
      for (const file of files) {
        await mkdir(dirname(join(dir, file)), { recursive: true });
        await writeFile(join(dir, file), 'x');
      }
      const found = await glob([...SECRET_FILE_GLOBS], {
        cwd: dir,
        dot: true,
        caseSensitiveMatch: false,
        ignore: [...SECRET_FILE_EXCEPTIONS],
      });
      const expected = files.filter((file) => isSecretPath(file)).sort();
      assert.deepEqual(found.sort(), expected);
      assert.ok(expected.length > 10);
    });
  });
});

test('the name prefilter never rejects a name whose path the full matcher calls secret', () => {
  // Every glob's own last component, in several cases, plus names built from their pieces.
  const pieces = SECRET_FILE_GLOBS.map((glob) => glob.slice(glob.lastIndexOf('/') + 1).replace(/\*/g, 'x'));
  const names = new Set<string>();
  for (const piece of pieces) {
    for (const variant of [piece, piece.toUpperCase(), `${piece}.bak`, `a${piece}`, `${piece}.pub`]) names.add(variant);
  }
  for (const name of ['README.md', 'index.js', 'config.yml', 'package.json', '.gitignore', 'Credentials.Json']) names.add(name);
  let secret = 0;
  for (const name of names) {
    for (const dir of ['', 'src/', '.aws/', '.docker/', '.kube/', 'deep/.aws/']) {
      if (!isSecretPath(`${dir}${name}`)) continue;
      secret += 1;
      assert.equal(maySecretFileName(name), true, `${dir}${name}`);
    }
  }
  assert.ok(secret > 50, 'the check saw secret paths');
  assert.equal(maySecretFileName('index.js'), false);
  assert.equal(maySecretFileName('README.md'), false);
});
