// What judging a shell command costs (issue 22: "the classifier stays under 1 ms per command"):
// the classifier on the commands of a coding session — known safe, needing the sandbox, and
// refused at the first character — against the bash grammar's parse of the same strings alone,
// which every classification includes.

import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { loadCommandClassifier } from '../../src/permissions/index.js';
import { median, withRatio, type BenchRow } from '../bench-table.js';
import { REPO_ROOT } from '../child-process.js';

const COMMANDS = [
  'ls -la',
  'cat README.md',
  'rg -n "loadCommandClassifier" src',
  'git status',
  'git diff HEAD~1 --stat',
  'git log --oneline -20',
  'grep -rn "TODO" --include="*.ts" src | head -20',
  "find src -name '*.test.ts' -type f | wc -l",
  'sed -n 1,80p src/permissions/literal-command.ts',
  'npm test',
  'npm run build && node bin/glassbox.js --help',
  'cd src && ls -R | head -50',
  'echo "$HOME" $(date) > out.txt',
  "cat <<'EOF' > notes.md\nsome text\nEOF",
];
const quick = process.env.GLASSBOX_BENCH_QUICK === '1';
const ROUNDS = quick ? 200 : 2_000;

export async function run(): Promise<BenchRow[]> {
  const classifier = await loadCommandClassifier();
  const { Language, Parser } = await import('web-tree-sitter');
  const require = createRequire(import.meta.url);
  const language = await Language.load(join(dirname(require.resolve('tree-sitter-bash/package.json')), 'tree-sitter-bash.wasm'));
  const parser = new Parser();
  parser.setLanguage(language);
  const measure = (fn: (command: string) => void): number => {
    const samples: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const started = performance.now();
      for (const command of COMMANDS) fn(command);
      samples.push(((performance.now() - started) * 1000) / COMMANDS.length);
    }
    return median(samples);
  };
  // Interleaved halves, so a noisy moment hits both.
  const classify = (command: string): void => void classifier.classify(command, { root: REPO_ROOT });
  const parse = (command: string): void => parser.parse(command)?.delete();
  const classifyUs = median([measure(classify), measure(classify)]);
  const parseUs = median([measure(parse), measure(parse)]);
  const worst = Math.max(
    ...COMMANDS.map((command) => {
      const started = performance.now();
      for (let index = 0; index < 200; index++) classify(command);
      return ((performance.now() - started) * 1000) / 200;
    }),
  );
  const row = withRatio({
    group: 'classifier',
    name: 'classify one command (median over a session mix)',
    value: classifyUs,
    unit: 'µs',
    baseline: { name: 'the bash grammar parsing the same string', value: parseUs },
    target: '< 1,000 µs',
    note: `the slowest command of the mix: ${worst.toFixed(0)} µs`,
  });
  return [{ ...row, met: classifyUs < 1_000 && worst < 1_000 }];
}
