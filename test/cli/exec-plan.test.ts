// `glassbox exec --plan` as a real process against the scripted provider: the turn is read-only
// (the read-only sandbox whatever --sandbox says, no file-writing tool offered, the plan-mode
// instructions in the prompt), the model's plan is printed as a checklist before its answer, the
// project is left as it was, and the session records the turn as a plan-mode turn.

import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startFakeProvider } from '../../src/testing/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';

const PLAN = {
  explanation: 'The parser is in src/parse.ts',
  plan: [
    { step: 'Fix the off-by-one in parse()', status: 'pending' },
    { step: 'Add a test for the empty input', status: 'pending' },
  ],
};

describe('exec --plan', () => {
  test('offers no writing tool, runs read-only, prints the plan and changes nothing', async (t) => {
    const base = await makeTempDir();
    const root = join(base, 'project');
    const home = join(base, 'home');
    await mkdir(root, { recursive: true });
    await writeFile(join(root, 'parse.ts'), 'export const parse = 1;\n');
    const provider = await startFakeProvider({
      script: [
        { toolCalls: [{ name: 'write_file', arguments: { path: 'parse.ts', content: 'changed\n' } }] },
        { toolCalls: [{ name: 'update_plan', arguments: PLAN }] },
        { text: 'Two steps: fix parse(), then test it.' },
      ],
    });
    t.after(() => provider.close());
    const result = await runCli(
      [
        'exec',
        '--plan',
        '--sandbox',
        'workspace-write',
        '--approval-policy',
        'never',
        '--base-url',
        provider.baseURL,
        '-C',
        root,
        'fix the parser',
      ],
      cliEnv({ GLASSBOX_HOME: home }),
    );
    assert.equal(result.code, 0, result.stderr);
    assert.equal(
      result.stdout,
      'The parser is in src/parse.ts\n[ ] Fix the off-by-one in parse()\n[ ] Add a test for the empty input\n\nTwo steps: fix parse(), then test it.\n',
    );
    assert.equal(await readFile(join(root, 'parse.ts'), 'utf8'), 'export const parse = 1;\n');

    const first = provider.requests[0]!.body as { tools: Array<{ function: { name: string } }>; messages: Array<{ content: unknown }> };
    const names = first.tools.map((tool) => tool.function.name).sort();
    assert.deepEqual(names, ['glob', 'grep', 'list_dir', 'read_file', 'shell', 'update_plan']);
    assert.match(JSON.stringify(first.messages.at(-1)), /fix the parser\\n\\n<plan_mode>/);
    // The write the model tried anyway was no tool of this turn.
    assert.match(JSON.stringify(provider.requests[1]!.body), /UNKNOWN_TOOL/);

    const [file] = (await readdir(join(home, 'sessions'))).filter((name) => name.endsWith('.jsonl'));
    const records = (await readFile(join(home, 'sessions', file!), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const started = records.find((record) => record.type === 'turn_started')!;
    assert.equal(started.mode, 'plan');
    assert.equal(started.prompt, 'fix the parser');
    assert.deepEqual(started.policy, { approvalPolicy: 'never', sandbox: 'read-only' });
  });
  test('the offline demo model in plan mode: proposes a plan, echoes only the request, changes nothing', async () => {
    const base = await makeTempDir();
    const root = join(base, 'project');
    await mkdir(root, { recursive: true });
    await writeFile(join(root, 'README.md'), '# A sample project\n');
    const result = await runCli(['exec', '--plan', '-C', root, 'fix the parser'], cliEnv({ GLASSBOX_HOME: join(base, 'home') }));
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^A demo plan for: fix the parser\n\[ \] Read what the request touches \(README\.md first\)\n/);
    assert.match(result.stdout, /You asked: _fix the parser_ \(in plan mode/);
    assert.doesNotMatch(result.stdout, /plan_mode/);
    assert.deepEqual(await readdir(root), ['README.md']);
  });
});
