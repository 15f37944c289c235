// Codex's own command-safety cases (test/fixtures/peers/codex-command-safety.json names the
// source). Glassbox may be stricter than Codex anywhere; it may call a command known safe where
// Codex asks only for a difference the fixture writes down, and that difference is checked too.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { loadCommandClassifier } from '../../src/permissions/index.js';

interface PeerCase {
  command: string;
  codex: 'safe' | 'needs-approval';
  difference?: string;
  stricter?: string;
}

const fixture = JSON.parse(readFileSync(new URL('../fixtures/peers/codex-command-safety.json', import.meta.url), 'utf8')) as {
  glassboxDifferences: Record<string, string>;
  glassboxStricter: Record<string, string>;
  cases: PeerCase[];
};
const root = '/work/project';

describe("Codex's command-safety cases", () => {
  test('no case Codex asks for is known safe here without a written difference', async () => {
    const classifier = await loadCommandClassifier();
    const unexplained: string[] = [];
    for (const { command, codex, difference } of fixture.cases) {
      const verdict = classifier.classify(command, { root });
      if (codex !== 'needs-approval' || !verdict.safe) continue;
      if (difference === undefined || fixture.glassboxDifferences[difference] === undefined) unexplained.push(command);
    }
    assert.deepEqual(unexplained, []);
    assert.ok(fixture.cases.length >= 60, `only ${fixture.cases.length} cases`);
  });

  test('the written difference holds: outside the sandbox Glassbox asks for git like Codex', async () => {
    const classifier = await loadCommandClassifier();
    for (const { command } of fixture.cases.filter((entry) => entry.difference === 'git')) {
      const verdict = classifier.classify(command, { root });
      assert.equal(verdict.safe, true, command);
      assert.equal(verdict.outsideSandbox?.safe, false, command);
    }
  });

  test('what Codex runs without asking, Glassbox does too, except where the fixture says why not', async () => {
    const classifier = await loadCommandClassifier();
    const stricter = fixture.cases
      .filter((entry) => entry.codex === 'safe' && (entry.stricter === undefined || fixture.glassboxStricter[entry.stricter] === undefined))
      .filter(({ command }) => !classifier.classify(command, { root }).safe)
      .map(({ command }) => command);
    assert.deepEqual(stricter, []);
  });
});
