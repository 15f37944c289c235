// Every command runs with per-process memory (RLIMIT_DATA) and CPU (RLIMIT_CPU) bounds, inside the
// sandbox and out, which the command cannot raise again (issue 10, item 8: `jq -n '[range(1e10)]'`
// and friends were known safe and unbounded but for time). The wrapper that sets them must not
// change what the command sees: positional parameters, $0, exit codes, syntax errors.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { release } from 'node:os';
import {
  defaultProcessLimit,
  defaultResourceLimits,
  detectSandbox,
  runCommand,
  sandboxTaskLimit,
  type ResourceLimits,
  type SandboxSettings,
} from '../../src/sandbox/index.js';
import { withTempDir } from '../helpers/temp-dir.js';

const MIB = 1024 * 1024;
const SMALL: ResourceLimits = { dataBytes: 256 * MIB, cpuSeconds: 7, processes: 512 };

async function sandboxFor(root: string): Promise<SandboxSettings> {
  const availability = await detectSandbox();
  assert.ok(availability.available && availability.path !== null, `bubblewrap must work here (CI installs it): ${availability.reason}`);
  return {
    bwrapPath: availability.path,
    mode: 'workspace-write',
    network: false,
    secretsApproved: false,
    homeDir: root,
    glassboxHome: `${root}/.glassbox-home`,
  };
}

for (const where of ['unsandboxed', 'sandboxed'] as const) {
  describe(`resource limits (${where})`, () => {
    const exec = async (root: string, command: string, limits?: ResourceLimits) =>
      runCommand({
        command,
        root,
        workdir: root,
        env: { PATH: process.env.PATH },
        sandbox: where === 'sandboxed' ? await sandboxFor(root) : null,
        timeoutMs: 60_000,
        limits,
      });

    test('the command runs under the limits, soft and hard, and cannot raise them', async () => {
      await withTempDir(async (root) => {
        const result = await exec(
          root,
          'ulimit -S -d; ulimit -H -d; ulimit -S -t; ulimit -H -t; ulimit -d unlimited || echo refused',
          SMALL,
        );
        assert.equal(
          result.output.text
            .trim()
            .split('\n')
            .filter((line) => !line.includes('cannot modify'))
            .join(' '),
          '262144 262144 7 7 refused',
        );
      });
    });

    test('a runaway allocation fails at the memory limit instead of taking the machine', async () => {
      await withTempDir(async (root) => {
        const result = await exec(root, `node -e 'const a = []; for (;;) a.push(Buffer.alloc(${MIB}).fill(1))'`, SMALL);
        assert.notEqual(result.exitCode, 0);
        assert.equal(result.timedOut, false);
        assert.match(result.output.text, /memory|allocation failed|Cannot allocate/i);
      });
    });

    test('defaults apply when no limits are given', async () => {
      await withTempDir(async (root) => {
        const expected = defaultResourceLimits(60_000);
        const result = await exec(root, 'ulimit -d; ulimit -t; ulimit -u');
        const [data, cpu, tasks] = result.output.text.trim().split('\n');
        assert.deepEqual([data, cpu], [String(Math.floor(expected.dataBytes / 1024)), String(expected.cpuSeconds)]);
        if (where === 'sandboxed') {
          // The user's other tasks are added only on kernels before 5.14 (sandboxTaskLimit).
          const perNamespace = sandboxTaskLimit(1, release(), () => 1) === 1;
          if (perNamespace) assert.equal(tasks, String(expected.processes));
          else assert.ok(Number(tasks) > expected.processes, tasks);
        }
      });
    });

    test('the command sees what bash -c would give it', async () => {
      await withTempDir(async (root) => {
        assert.equal((await exec(root, 'echo "$#:$0:$1:$*"', SMALL)).output.text, '0:bash::\n');
        assert.equal((await exec(root, 'exit 7', SMALL)).exitCode, 7);
        const syntax = await exec(root, 'echo a; if', SMALL);
        assert.equal(syntax.exitCode, 2);
        assert.doesNotMatch(syntax.output.text, /^a$/m, 'like bash -c, nothing runs when the string does not parse');
        assert.equal((await exec(root, 'cat <<EOF\n$((1+2)) "q" \'s\'\nEOF', SMALL)).output.text, '3 "q" \'s\'\n');
        assert.equal((await exec(root, '# only a comment\necho after', SMALL)).output.text, 'after\n');
      });
    });
  });
}

test('limits must be positive whole numbers', async () => {
  await withTempDir(async (root) => {
    await assert.rejects(
      runCommand({
        command: 'true',
        root,
        workdir: root,
        env: {},
        sandbox: null,
        timeoutMs: 1000,
        limits: { dataBytes: 0, cpuSeconds: 1, processes: 1 },
      }),
      /dataBytes must be a positive whole number/,
    );
  });
});

test("RLIMIT_NPROC: the task limit itself since Linux 5.14 (per user namespace), plus the user's tasks before", () => {
  assert.equal(
    sandboxTaskLimit(300, '6.18.44-fc-v1045', () => 1000),
    300,
  );
  assert.equal(
    sandboxTaskLimit(300, '5.14.0-70.el9.x86_64', () => 1000),
    300,
  );
  assert.equal(
    sandboxTaskLimit(300, '5.13.19', () => 1000),
    1300,
  );
  assert.equal(
    sandboxTaskLimit(300, '4.18.0-553.el8_10.x86_64', () => 1000),
    1300,
  );
  assert.equal(
    sandboxTaskLimit(300, 'unknown', () => 7),
    307,
    'an unreadable release is treated as old',
  );
  assert.ok(defaultProcessLimit() >= 1024 && defaultProcessLimit() <= 8192);
});
