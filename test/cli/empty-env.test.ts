// An environment variable set to the empty string means "unset" for every variable the CLI reads
// (`GLASSBOX_WIRE_API=` used to be a usage error while `GLASSBOX_MODEL=` fell back to the default).

import assert from 'node:assert/strict';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { buildProgram } from '../../src/cli/main.js';
import { cliEnvVars } from '../../src/cli/cli-env.js';
import { ProgressPrinter } from '../../src/cli/progress-printer.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { cliEnv, jsonLines, runCli, startCli } from '../helpers/run-cli.js';

/** Every variable the CLI reads, as documented in the README. */
const DOCUMENTED = [
  'GLASSBOX_MODEL',
  'OPENAI_BASE_URL',
  'GLASSBOX_WIRE_API',
  'GLASSBOX_HOME',
  'GLASSBOX_TOKEN',
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_BASE_URL',
  'GLASSBOX_DEBUG',
  'NO_COLOR',
  'GLASSBOX_BWRAP',
  'GLASSBOX_GIT',
  'GLASSBOX_RG',
  'GLASSBOX_BASH',
];

function allEmpty(names: readonly string[]): Record<string, string> {
  return Object.fromEntries(names.map((name) => [name, '']));
}

async function project(): Promise<{ root: string; home: string }> {
  const base = await makeTempDir();
  const root = join(base, 'project');
  await mkdir(root, { recursive: true });
  await writeFile(join(root, 'README.md'), '# Sample\n');
  // HOME stands in for the user's home, so the default ~/.glassbox lands in the temp dir.
  return { root, home: join(base, 'user-home') };
}

// Side by side: the processes get their environment from the test, never from this process's
// (the NO_COLOR test sets it here, but synchronously, so nothing else runs meanwhile).
describe('empty environment variables mean unset', { concurrency: true }, () => {
  test('the CLI knows every variable it reads, so none escapes the empty-means-unset rule', () => {
    const known = cliEnvVars(buildProgram());
    for (const name of DOCUMENTED) assert.ok(known.includes(name), `${name} is not in ${known.join(', ')}`);
  });

  test('exec with every variable empty runs on the defaults: demo model, chat wire API, ~/.glassbox', async () => {
    const { root, home } = await project();
    const names = [...new Set([...DOCUMENTED, ...cliEnvVars(buildProgram())])];
    const result = await runCli(['exec', '--json', '-C', root, 'What is this project?'], cliEnv({ ...allEmpty(names), HOME: home }));
    assert.equal(result.code, 0, result.stderr);
    const started = jsonLines(result.stdout)[0]!;
    assert.equal(started.type, 'run_started');
    assert.equal(started.wireApi, 'chat');
    // No key and no base URL (both empty): the offline demo model, under its default name.
    assert.equal(started.model, 'glassbox-demo');
    assert.match(result.stderr, /offline demo model/);
    const sessions = await readdir(join(home, '.glassbox', 'sessions'));
    assert.ok(
      sessions.some((name) => name === `${String(started.sessionId)}.jsonl`),
      sessions.join(', '),
    );
  });

  test('serve with GLASSBOX_TOKEN empty starts with a fresh random token', async () => {
    const { root, home } = await project();
    const { child, done } = startCli(['serve', '--port', '0', '-C', root], cliEnv({ ...allEmpty(DOCUMENTED), HOME: home }));
    const firstLine = await new Promise<string>((resolve) => {
      let stdout = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('\n')) resolve(stdout.slice(0, stdout.indexOf('\n')));
      });
      child.on('close', () => resolve(stdout));
    });
    child.kill('SIGINT');
    const result = await done;
    assert.match(firstLine, /^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9._~-]{16,}$/, result.stderr);
    assert.equal(result.code, 0, result.stderr);
  });

  test('NO_COLOR= (empty) does not turn colour off, as https://no-color.org specifies', () => {
    const saved = process.env.NO_COLOR;
    process.env.NO_COLOR = '';
    try {
      let written = '';
      const tty = { isTTY: true, write: (text: string) => ((written += text), true) } as unknown as NodeJS.WritableStream & {
        isTTY: boolean;
      };
      new ProgressPrinter(tty).handle({ type: 'run_started', sessionId: 's', runId: 'r', model: 'm', wireApi: 'chat', resumed: false });
      assert.match(written, /\x1b\[2m/);
    } finally {
      if (saved === undefined) delete process.env.NO_COLOR;
      else process.env.NO_COLOR = saved;
    }
  });
});
