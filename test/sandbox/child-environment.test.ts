import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildChildEnvironment } from '../../src/sandbox/index.js';

const hostEnvironment: NodeJS.ProcessEnv = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/someone',
  LANG: 'en_US.UTF-8',
  LC_ALL: 'C.UTF-8',
  LC_TIME: 'de_DE.UTF-8',
  TERM: 'xterm',
  USER: 'someone',
  OPENAI_API_KEY: 'sk-live-should-not-leak',
  ANTHROPIC_API_KEY: 'key',
  GITHUB_TOKEN: 'ghp_x',
  AWS_SECRET_ACCESS_KEY: 'aws',
  NODE_OPTIONS: '--require /tmp/evil.js',
  LD_PRELOAD: '/tmp/evil.so',
  PWD: '/somewhere/else',
};

test('buildChildEnvironment keeps only the allowlist', () => {
  const env = buildChildEnvironment(hostEnvironment, { PWD: '/work/project' });
  assert.deepEqual(env, {
    PATH: '/usr/bin:/bin',
    HOME: '/home/someone',
    LANG: 'en_US.UTF-8',
    LC_ALL: 'C.UTF-8',
    LC_TIME: 'de_DE.UTF-8',
    TERM: 'xterm',
    USER: 'someone',
    PWD: '/work/project',
    NO_COLOR: '1',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
    GIT_OPTIONAL_LOCKS: '0',
    GLASSBOX_SANDBOX: '0',
  });
});

test('buildChildEnvironment supplies a PATH when the host has none', () => {
  const env = buildChildEnvironment({});
  assert.match(env.PATH!, /\/usr\/bin/);
  assert.equal(env.GLASSBOX_SANDBOX, '0');
});

test('buildChildEnvironment lets extra override and marks the sandbox', () => {
  const env = buildChildEnvironment(hostEnvironment, { GLASSBOX_SANDBOX: '1', TMPDIR: '/tmp' });
  assert.equal(env.GLASSBOX_SANDBOX, '1');
  assert.equal(env.TMPDIR, '/tmp');
  assert.equal(env.PWD, '/somewhere/else');
});

test('buildChildEnvironment rejects bad extra variables', () => {
  assert.throws(() => buildChildEnvironment({}, { 'BAD-NAME': 'x' }), /Invalid environment variable name/);
  assert.throws(() => buildChildEnvironment({}, { OK: 'a\0b' }), /NUL/);
  assert.throws(() => buildChildEnvironment({}, { GLASSBOX_SANDBOX: 'yes' }), /GLASSBOX_SANDBOX/);
});
