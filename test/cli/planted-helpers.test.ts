// The next start-up after a sandboxed command planted helpers in the project's PATH directories
// (an activated virtualenv's bin, node_modules/.bin): `glassbox exec` started with that PATH probes
// bubblewrap, gathers git status, runs a shell command and a grep, and none of the planted
// programs runs on the host (each would leave a marker outside the project).

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { startFakeProvider } from '../../src/testing/index.js';
import { cliEnv, jsonLines, runCli } from '../helpers/run-cli.js';
import { withTempDir } from '../helpers/temp-dir.js';

const run = promisify(execFile);

test('glassbox exec started with planted bwrap, git, rg and bash on PATH runs none of them on the host', async () => {
  await withTempDir(async (dir) => {
    const root = join(dir, 'project');
    const markers = join(dir, 'markers');
    const home = join(dir, 'home');
    await mkdir(markers);
    await mkdir(home);
    const bins = [join(root, '.venv/bin'), join(root, 'node_modules/.bin')];
    for (const bin of bins) {
      await mkdir(bin, { recursive: true });
      for (const name of ['bwrap', 'git', 'rg', 'bash']) {
        await writeFile(join(bin, name), `#!/bin/sh\ntouch '${markers}/${name}-${bin.includes('.venv') ? 'venv' : 'npm'}'\nexit 1\n`);
        await chmod(join(bin, name), 0o755);
      }
    }
    await writeFile(join(root, 'notes.txt'), 'needle\n');
    await run('git', ['init', '-q'], { cwd: root, env: { PATH: process.env.PATH, HOME: '/nonexistent' } });

    const provider = await startFakeProvider({
      script: [
        { toolCalls: [{ name: 'shell', arguments: { command: 'echo made > made.txt' } }] },
        { toolCalls: [{ name: 'grep', arguments: { pattern: 'needle' } }] },
        { text: 'done' },
      ],
    });
    try {
      const path = `${bins.join(':')}:${process.env.PATH}`;
      const result = await runCli(
        ['exec', '--json', '--sandbox', 'workspace-write', '--base-url', provider.baseURL, '-m', 'm', '-C', root, 'go'],
        cliEnv({ OPENAI_API_KEY: 'k', GLASSBOX_HOME: home, PATH: path }),
      );
      assert.equal(result.code, 0, result.stderr);
      const finished = jsonLines(result.stdout).filter((event) => event.type === 'tool_finished');
      assert.match(String(finished[0]?.output), /sandbox: workspace-write/, JSON.stringify(finished[0]));
      assert.match(String(finished[1]?.output), /notes\.txt:1:needle/, JSON.stringify(finished[1]));
      const system = JSON.parse(provider.requests[0]!.rawBody).messages[0].content as string;
      assert.match(system, /git status:/);
      assert.doesNotMatch(system, /not collected/);
      assert.deepEqual(await readdir(markers), []);
    } finally {
      await provider.close();
    }
  });
});
