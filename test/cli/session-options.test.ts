// The interactive session takes every option of `exec` that is not about exec's output (issue 25
// item 11: the README says "every exec option works here"), on `glassbox` itself and on `chat`.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/main.js';

// Exec's own output (JSON lines on stdout, the offline demo's first lines), `--command`, which
// the session spells `/name args`, and the headless controls for CI (docs/ci.md), which the README
// names as exec's own.
const EXEC_ONLY = new Set(['--json', '--demo-intro', '--command', '--output-schema', '--max-budget-usd', '--fallback-model']);

function longNames(command: Command): string[] {
  return command.options.map((option) => option.long ?? '').filter((name) => name !== '');
}

test('glassbox and glassbox chat know every exec option but its output ones', () => {
  const program = buildProgram();
  const exec = program.commands.find((command) => command.name() === 'exec')!;
  const chat = program.commands.find((command) => command.name() === 'chat')!;
  const wanted = longNames(exec).filter((name) => !EXEC_ONLY.has(name));
  assert.ok(wanted.includes('--otlp-endpoint') && wanted.includes('--trace-content'));
  for (const face of [program, chat]) {
    const known = new Set(longNames(face));
    assert.deepEqual(
      wanted.filter((name) => !known.has(name)),
      [],
      `${face.name()} lacks exec's options`,
    );
  }
});
