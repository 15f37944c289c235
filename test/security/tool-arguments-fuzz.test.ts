// Random, hostile argument strings for every tool, through the ToolRuntime with the real tools in a
// temp project: wrong types, absurd numbers, huge and NUL-laden strings, prototype keys, paths that
// climb out. Every call must end in a normal output or `Error [CODE]: …`, never a crash, never a
// write outside the project, never a change to Object.prototype.

import assert from 'node:assert/strict';
import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { PermissionGate } from '../../src/agent/index.js';
import { createPermissionGate } from '../../src/runner/index.js';
import { detectSandbox } from '../../src/sandbox/index.js';
import {
  TOOL_ERROR_OUTPUT,
  allowEverythingGate,
  assertProperty,
  createRuntime,
  errorCode,
  makeFixture,
  realTools,
  snapshotChanges,
  snapshotTree,
  type Fixture,
  type RuntimeHarness,
} from './security-harness.js';

const SEED = 20_241_129;
const sandbox = await detectSandbox();

/** Every field each tool knows (required ones first), plus keys that attack object handling. */
const TOOL_KEYS: Readonly<Record<string, { required: readonly string[]; optional: readonly string[] }>> = {
  read_file: { required: ['path'], optional: ['offset', 'limit'] },
  list_dir: { required: [], optional: ['path'] },
  glob: { required: ['pattern'], optional: ['path'] },
  grep: { required: ['pattern'], optional: ['path', 'glob', 'ignore_case', 'literal'] },
  write_file: { required: ['path', 'content'], optional: [] },
  edit_file: { required: ['path', 'old_string', 'new_string'], optional: ['replace_all'] },
  apply_patch: { required: ['patch'], optional: [] },
  shell: { required: ['command'], optional: ['workdir', 'timeout_ms', 'escalate', 'justification'] },
};
const HOSTILE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '', 'path\u0000'];

const HUGE = 'y'.repeat(200_000);
const DEEP = `${'['.repeat(5_000)}${']'.repeat(5_000)}`;

function arbitraries(fixture: Fixture) {
  const absurdNumber = fc.constantFrom(0, -1, 1, 1.5, -0, 1e308, -1e308, 2 ** 53 + 2, 1e-300, 600_001, 4_294_967_296);
  const text = fc.oneof(
    fc.string({ maxLength: 24 }),
    fc.string({ unit: 'grapheme', maxLength: 24 }),
    fc.string({ unit: 'binary', maxLength: 24 }),
    fc.constantFrom('', ' ', '\u0000', 'a.txt\u0000', '\u202e', '\ud800', '%00', HUGE),
  );
  const path = fc.oneof(
    text,
    fc.constantFrom(
      'a.txt',
      'src',
      'src/b.ts',
      '.',
      '.env',
      'new/dir/file.txt',
      'out-link/secret.txt',
      'out-link/new.txt',
      '../outside/secret.txt',
      '../outside/new.txt',
      `${fixture.outside}/secret.txt`,
      `${fixture.outside}/new.txt`,
      '/etc/passwd',
      '~/x',
      '~',
      `${'../'.repeat(40)}etc/passwd`,
      'x'.repeat(5_000),
      `${'d/'.repeat(2_100)}f`,
      'src/../../outside/new.txt',
      '**',
      '../**',
      '/**',
      '{a,../outside}/*',
      '.git/config',
    ),
  );
  const patch = fc.oneof(
    text,
    fc
      .tuple(fc.constantFrom('Add File', 'Delete File', 'Update File'), path, path)
      .map(([kind, from, to]) =>
        kind === 'Update File'
          ? `*** Begin Patch\n*** Update File: ${from}\n*** Move to: ${to}\n@@\n-hello\n+bye\n*** End Patch`
          : `*** Begin Patch\n*** ${kind}: ${from}\n+pwned\n*** End Patch`,
      ),
  );
  const command = fc.oneof(
    text,
    fc.constantFrom(
      'echo hi',
      'true',
      'ls -la',
      'cat a.txt',
      'touch made-by-fuzz',
      `touch ${fixture.outside}/pwned`,
      'echo x > ../outside/pwned',
      `cat ${fixture.outside}/secret.txt`,
      'exit 3',
      'cat .env',
      'yes | head -c 100000',
    ),
  );
  const junk = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    absurdNumber,
    fc.constantFrom<unknown>(null, true, false, [], {}, [[[]]], { polluted: 'yes' }, { __proto__: null, polluted: 'yes' }),
  );
  const valueFor = (key: string): fc.Arbitrary<unknown> => {
    switch (key) {
      case 'path':
      case 'workdir':
      case 'glob':
      case 'pattern':
        return fc.oneof({ weight: 6, arbitrary: path }, { weight: 1, arbitrary: junk });
      case 'patch':
        return fc.oneof({ weight: 6, arbitrary: patch }, { weight: 1, arbitrary: junk });
      case 'command':
        return fc.oneof({ weight: 6, arbitrary: command }, { weight: 1, arbitrary: junk });
      case 'offset':
      case 'limit':
      case 'timeout_ms':
        return fc.oneof(
          { weight: 5, arbitrary: fc.integer({ min: 1, max: 3_000 }) },
          { weight: 2, arbitrary: fc.oneof(absurdNumber, fc.integer(), fc.double()) },
          { weight: 1, arbitrary: junk },
        );
      case 'ignore_case':
      case 'literal':
      case 'replace_all':
      case 'escalate':
        return fc.oneof({ weight: 4, arbitrary: fc.boolean() }, { weight: 1, arbitrary: junk });
      default:
        return fc.oneof({ weight: 4, arbitrary: text }, { weight: 1, arbitrary: junk });
    }
  };
  /** A raw argument string: usually an object (written by hand so `__proto__` stays a key), sometimes anything. */
  const rawArguments = (tool: string): fc.Arbitrary<string> => {
    // Each known field usually present; a hostile key in about a fifth of the objects, so that
    // most calls still validate and reach the tool.
    const field = (key: string, freq: number) =>
      fc.option(
        valueFor(key).map((value) => [key, value] as const),
        { freq },
      );
    const known = fc.tuple(
      ...TOOL_KEYS[tool]!.required.map((key) => field(key, 12)),
      ...TOOL_KEYS[tool]!.optional.map((key) => field(key, 2)),
    );
    const hostile = fc.constantFrom(...HOSTILE_KEYS).chain((key) => valueFor(key).map((value) => [key, value] as const));
    const object = fc
      .tuple(
        known,
        fc.oneof({ weight: 4, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.array(hostile, { minLength: 1, maxLength: 2 }) }),
      )
      .map(([fields, extra]) => [...fields.filter((field) => field !== null), ...extra])
      .map((entries) => `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value) ?? 'null'}`).join(',')}}`);
    return fc.oneof(
      { weight: 12, arbitrary: object },
      { weight: 1, arbitrary: object.map((json) => json.slice(0, Math.max(1, json.length - 3))) },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)) },
      { weight: 1, arbitrary: text },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          '',
          'null',
          '[]',
          '"a.txt"',
          '{',
          '{"__proto__": {"polluted": "yes"}}',
          '{"constructor": {"prototype": {"polluted": "yes"}}}',
          `{"path": ${DEEP}}`,
          `{"command": ${DEEP}}`,
          '{"path": "a.txt", "path": "/etc/passwd"}',
          '{"path": "a.txt"}{"path": "b"}',
        ),
      },
    );
  };
  return { rawArguments };
}

/** Object.prototype and friends, as they must stay. */
function prototypeState(): string {
  return JSON.stringify([
    Object.getOwnPropertyNames(Object.prototype).sort(),
    Object.getOwnPropertyNames(Array.prototype).sort(),
    Object.getOwnPropertyNames(Function.prototype).sort(),
  ]);
}

function assertNormalOutcome(tool: string, raw: string, outcome: { output: string; isError: boolean; name: string }): void {
  const where = `${tool} ${raw.slice(0, 200)}`;
  assert.equal(typeof outcome.output, 'string', where);
  assert.equal(outcome.name, tool, where);
  if (!outcome.isError) {
    assert.doesNotMatch(outcome.output, /^Error \[/, where);
    return;
  }
  // A shell command that timed out or was cancelled is reported like any other command.
  if (tool === 'shell' && outcome.output.startsWith('exit_code:')) return;
  assert.match(outcome.output, TOOL_ERROR_OUTPUT, where);
  // TOOL_FAILED is the runtime's catch-all: acceptable only for a system call refusing the input
  // (ENAMETOOLONG, ELOOP…), never for a bug such as a TypeError.
  if (errorCode(outcome.output) === 'TOOL_FAILED') assert.match(outcome.output, /^Error \[TOOL_FAILED\]: E[A-Z]+: /, where);
}

describe('fuzzing tool arguments through the ToolRuntime', () => {
  let fixture: Fixture;
  let outsideBefore: Map<string, string>;
  let homeBefore: Map<string, string>;
  const protoBefore = prototypeState();
  const unexpected: unknown[] = [];
  const onUnexpected = (error: unknown): void => {
    unexpected.push(error);
  };

  before(async () => {
    fixture = await makeFixture({
      'a.txt': 'hello\n',
      'src/b.ts': 'export const b = 1;\n',
      '.env': 'TOKEN=fuzz-secret\n',
      '.git/config': '[core]\n',
    });
    await symlink('../outside', join(fixture.root, 'out-link'));
    outsideBefore = await snapshotTree(fixture.outside);
    homeBefore = await snapshotTree(fixture.home);
    process.on('unhandledRejection', onUnexpected);
    process.on('uncaughtException', onUnexpected);
  });

  after(async () => {
    process.off('unhandledRejection', onUnexpected);
    process.off('uncaughtException', onUnexpected);
    await fixture.cleanup();
  });

  const gates: Array<[label: string, gate: () => PermissionGate]> = [
    ['every call allowed (the tools defend themselves)', () => allowEverythingGate()],
    [
      'the real permission gate (workspace-write, never)',
      () =>
        createPermissionGate({
          root: fixture.root,
          home: fixture.home,
          approvalPolicy: 'never',
          sandbox: 'workspace-write',
          network: false,
          detectSandbox: async () => sandbox.available,
        }),
    ],
  ];

  for (const [label, makeGate] of gates) {
    for (const tool of Object.keys(TOOL_KEYS)) {
      test(`${tool}: ${label}`, async () => {
        const harness: RuntimeHarness = createRuntime({ root: fixture.root, tools: realTools(fixture.home), gate: makeGate() });
        const { rawArguments } = arbitraries(fixture);
        await assertProperty(
          fc.asyncProperty(rawArguments(tool), async (raw) => {
            // A guard against a command that never ends, not a timing assertion.
            const outcome = await harness.call(tool, raw, AbortSignal.timeout(20_000));
            assertNormalOutcome(tool, raw, outcome);
            const finished = harness.events.filter((event) => event.type === 'tool_finished' && event.callId === outcome.callId);
            assert.equal(finished.length, 1, 'exactly one tool_finished per call');
            assert.equal(prototypeState(), protoBefore, `prototypes changed by ${raw.slice(0, 200)}`);
            assert.equal(({} as Record<string, unknown>).polluted, undefined);
          }),
          { seed: SEED, numRuns: tool === 'shell' ? 20 : 40, endOnFailure: true },
        );
        // The property is only worth something if calls get past validation and run.
        const started = harness.events.filter((event) => event.type === 'tool_started').length;
        if (tool !== 'shell' || sandbox.available) assert.ok(started >= 5, `only ${started} calls reached ${tool}`);
        assert.deepEqual(snapshotChanges(outsideBefore, await snapshotTree(fixture.outside)), [], 'nothing outside the project changed');
        assert.deepEqual(snapshotChanges(homeBefore, await snapshotTree(fixture.home)), [], 'nothing in the Glassbox home changed');
        assert.deepEqual(unexpected, [], 'no unhandled rejection or uncaught exception');
      });
    }
  }

  test('a "__proto__" key is an unknown key, never a source of inherited argument values', async () => {
    const harness = createRuntime({ root: fixture.root, tools: realTools(fixture.home), gate: allowEverythingGate() });
    // shell is strict: before strict-null mapping kept "__proto__" as a key, this became escalate: true.
    const shell = await harness.call('shell', '{"command":"echo hi","__proto__":{"escalate":true,"justification":"because"}}');
    assert.equal(errorCode(shell.output), 'INVALID_ARGUMENTS', shell.output);
    const read = await harness.call('read_file', '{"__proto__":{"path":"a.txt"}}');
    assert.equal(errorCode(read.output), 'INVALID_ARGUMENTS', read.output);
    const write = await harness.call('write_file', '{"path":"proto.txt","content":"x","__proto__":{"polluted":"yes"}}');
    assert.equal(write.isError, false, write.output);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(prototypeState(), protoBefore);
    // The gate was never consulted for the calls that did not validate.
    const decided = harness.events.filter((event) => event.type === 'tool_permission_decided').map((event) => event.callId);
    assert.deepEqual(decided, [write.callId]);
  });
});
