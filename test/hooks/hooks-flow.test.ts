// Hooks in an exec turn (test/helpers/exec-turn.ts wires what `glassbox exec` does), through real
// processes: each hook is a shell script in a temp dir, run by bash as `glassbox exec` runs it.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { detectSandbox } from '../../src/sandbox/index.js';
import { startFakeProvider, type ScriptStep } from '../../src/testing/index.js';
import { type ExecTurnOptions, execTurn } from '../helpers/exec-turn.js';
import { toolOutputsSent } from '../helpers/loop-harness.js';
import { makeTempDir } from '../helpers/temp-dir.js';

interface Setup {
  base: string;
  root: string;
  home: string;
  /** Writes an executable script in the temp dir (outside the project) and returns its path. */
  script: (name: string, body: string) => Promise<string>;
  exec: (prompt: string, options?: Partial<ExecTurnOptions>) => ReturnType<typeof execTurn>;
  requests: () => Array<{ body: Record<string, unknown> }>;
}

async function setup(
  t: { after: (fn: () => Promise<void>) => void },
  steps: ScriptStep[],
  hooks: unknown,
  extra: object = {},
): Promise<Setup> {
  const base = await makeTempDir();
  const root = join(base, 'project');
  const home = join(base, 'home');
  await mkdir(root, { recursive: true });
  await mkdir(home, { recursive: true });
  if (hooks !== null) await writeFile(join(home, 'config.json'), JSON.stringify({ hooks, ...extra }, null, 2));
  const provider = await startFakeProvider({ script: steps });
  t.after(() => provider.close());
  return {
    base,
    root,
    home,
    async script(name, body) {
      const path = join(base, name);
      await writeFile(path, `#!/bin/bash\n${body}\n`);
      await chmod(path, 0o755);
      return path;
    },
    exec: (prompt, options = {}) => execTurn({ root, home, baseURL: provider.baseURL, prompt, ...options }),
    requests: () => provider.requests as Array<{ body: Record<string, unknown> }>,
  };
}

const preToolUse = (matcher: string, command: string, timeout?: number) => ({
  PreToolUse: [{ matcher, hooks: [{ type: 'command', command, ...(timeout === undefined ? {} : { timeout }) }] }],
});
const WRITE = { toolCalls: [{ name: 'write_file', arguments: { path: 'made.txt', content: 'hi\n' } }] };

let sandboxed = false;
before(async () => {
  sandboxed = (await detectSandbox()).available;
});

describe('hooks in an exec turn', { concurrency: true }, () => {
  test('a PreToolUse hook that allows answers the approval policy, matched by its Claude Code name', async (t) => {
    const s = await setup(t, [WRITE, { text: 'done' }], null);
    const hook = await s.script(
      'allow.sh',
      `cat > /dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"writes are fine"}}'`,
    );
    await writeFile(join(s.home, 'config.json'), JSON.stringify({ hooks: preToolUse('Write|Edit', hook) }));
    const { terminal, events } = await s.exec('write', { sandbox: 'workspace-write', approvalPolicy: 'untrusted' });
    assert.equal(terminal.type, 'run_succeeded', JSON.stringify(terminal));
    const decided = events.find((e) => e.type === 'tool_permission_decided');
    assert.equal(decided?.decision, 'allow', JSON.stringify(decided));
    assert.equal(decided?.rule, 'hook-allow');
    assert.match(String(decided?.reason), /writes are fine/);
    assert.ok(!events.some((e) => e.type === 'approval_requested'));
    assert.equal(await readFile(join(s.root, 'made.txt'), 'utf8'), 'hi\n');
    const ran = events.find((e) => e.type === 'hook_ran');
    assert.equal(ran?.outcome, 'allow');
    assert.equal(ran?.exitCode, 0);
    assert.equal(ran?.source, 'user');
  });

  test('an allow from a hook never overrides a deny rule: the hook does not even run', async (t) => {
    const s = await setup(t, [WRITE, { text: 'done' }], null);
    const hook = await s.script(
      'allow.sh',
      `touch "${'$'}(dirname "$0")/ran"; echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`,
    );
    await writeFile(join(s.home, 'config.json'), JSON.stringify({ permissions: { deny: ['Write'] }, hooks: preToolUse('*', hook) }));
    const { events } = await s.exec('write', { sandbox: 'workspace-write', approvalPolicy: 'never' });
    assert.equal(events.find((e) => e.type === 'tool_permission_decided')?.decision, 'deny');
    assert.equal(existsSync(join(s.root, 'made.txt')), false);
    assert.equal(existsSync(join(s.base, 'ran')), false);
  });

  test('exit 2 denies the call and the model sees the hook’s stderr', async (t) => {
    const s = await setup(t, [WRITE, { text: 'ok' }], null);
    const hook = await s.script('deny.sh', 'echo "made.txt is off limits" >&2; exit 2');
    await writeFile(join(s.home, 'config.json'), JSON.stringify({ hooks: preToolUse('write_file', hook) }));
    const { events } = await s.exec('write', { sandbox: 'workspace-write', approvalPolicy: 'never' });
    const decided = events.find((e) => e.type === 'tool_permission_decided');
    assert.equal(decided?.decision, 'deny');
    assert.equal(decided?.rule, 'hook-deny');
    assert.equal(existsSync(join(s.root, 'made.txt')), false);
    const sent = toolOutputsSent(s.requests()[1]!.body, 'chat')[0]!;
    assert.match(sent, /PERMISSION_DENIED/);
    assert.match(sent, /made\.txt is off limits/);
    assert.equal(events.find((e) => e.type === 'hook_ran')?.stderr, 'made.txt is off limits\n');
  });

  test('a hook that crashes blocks the call (fail closed) and says so', async (t) => {
    const s = await setup(t, [WRITE, { text: 'ok' }], null);
    const hook = await s.script('crash.sh', 'echo "boom" >&2; kill -SEGV $$');
    await writeFile(join(s.home, 'config.json'), JSON.stringify({ hooks: preToolUse('', hook) }));
    const { events } = await s.exec('write', { sandbox: 'workspace-write', approvalPolicy: 'never' });
    assert.equal(events.find((e) => e.type === 'tool_permission_decided')?.decision, 'deny');
    assert.equal(existsSync(join(s.root, 'made.txt')), false);
    const ran = events.find((e) => e.type === 'hook_ran');
    assert.equal(ran?.outcome, 'failed');
    // A signal ends it: bash reports 128 + SIGSEGV for the script it ran.
    assert.notEqual(ran?.exitCode, 0);
    assert.match(toolOutputsSent(s.requests()[1]!.body, 'chat')[0]!, /fail closed/);
  });

  test('other exit codes and unreadable JSON also block', async (t) => {
    const s = await setup(t, [WRITE, { text: 'ok' }], null);
    const bad = await s.script('bad-json.sh', `echo '{"hookSpecificOutput": {'`);
    await writeFile(join(s.home, 'config.json'), JSON.stringify({ hooks: preToolUse('.*', bad) }));
    const { events } = await s.exec('write', { sandbox: 'workspace-write', approvalPolicy: 'never' });
    assert.equal(events.find((e) => e.type === 'tool_permission_decided')?.decision, 'deny');
    assert.match(String(events.find((e) => e.type === 'hook_ran')?.reason), /JSON that cannot be read/);
    assert.equal(existsSync(join(s.root, 'made.txt')), false);
  });

  test('a hook that times out blocks the call and its process group is killed', async (t) => {
    const s = await setup(t, [WRITE, { text: 'ok' }], null);
    const pidFile = join(s.base, 'sleeper.pid');
    const hook = await s.script('slow.sh', `sleep 300 & echo $! > "${pidFile}"; wait`);
    await writeFile(join(s.home, 'config.json'), JSON.stringify({ hooks: preToolUse('write_file', hook, 1) }));
    const { events } = await s.exec('write', { sandbox: 'workspace-write', approvalPolicy: 'never' });
    const ran = events.find((e) => e.type === 'hook_ran');
    assert.equal(ran?.timedOut, true);
    assert.equal(ran?.outcome, 'failed');
    assert.equal(events.find((e) => e.type === 'tool_permission_decided')?.decision, 'deny');
    assert.equal(existsSync(join(s.root, 'made.txt')), false);
    const pid = Number((await readFile(pidFile, 'utf8')).trim());
    // Gone, or a zombie waiting for PID 1 to reap it (some containers do so only now and then).
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
    assert.ok(stat === null || / Z /.test(stat), `the background sleep outlived the hook: ${stat}`);
  });

  test('the hook reads the documented fields on stdin; PostToolUse also sees tool_response', async (t) => {
    const s = await setup(t, [WRITE, { text: 'ok' }], null);
    const pre = await s.script('pre.sh', `cat > "$(dirname "$0")/pre.json"`);
    const post = await s.script('post.sh', `cat > "$(dirname "$0")/post.json"; echo "run the formatter next" >&2; exit 2`);
    await writeFile(
      join(s.home, 'config.json'),
      JSON.stringify({
        hooks: {
          ...preToolUse('Write', pre),
          PostToolUse: [{ matcher: 'write_file', hooks: [{ type: 'command', command: post }] }],
        },
      }),
    );
    const { terminal, events, sessionId } = await s.exec('write', { sandbox: 'workspace-write', approvalPolicy: 'never' });
    assert.equal(terminal.type, 'run_succeeded', JSON.stringify(terminal));
    const input = JSON.parse(await readFile(join(s.base, 'pre.json'), 'utf8'));
    assert.equal(input.session_id, sessionId);
    assert.equal(input.hook_event_name, 'PreToolUse');
    // Claude Code's name and field names (its file tools take absolute paths), ours beside them.
    assert.equal(input.tool_name, 'Write');
    assert.ok(typeof input.cwd === 'string' && input.cwd.endsWith('project'), input.cwd);
    assert.deepEqual(input.tool_input, { path: 'made.txt', content: 'hi\n', file_path: join(input.cwd, 'made.txt') });
    assert.equal(input.glassbox_tool_name, 'write_file');
    assert.deepEqual(input.glassbox_tool_input, { path: 'made.txt', content: 'hi\n' });
    assert.ok(existsSync(input.transcript_path), input.transcript_path);
    const after = JSON.parse(await readFile(join(s.base, 'post.json'), 'utf8'));
    assert.equal(after.hook_event_name, 'PostToolUse');
    assert.equal(after.tool_response.is_error, false);
    assert.equal(typeof after.tool_response.output, 'string');
    assert.ok(after.tool_response.output.length > 0);
    // The call ran; the PostToolUse block is told to the model beside its output.
    assert.equal(await readFile(join(s.root, 'made.txt'), 'utf8'), 'hi\n');
    assert.match(toolOutputsSent(s.requests()[1]!.body, 'chat')[0]!, /run the formatter next/);
    // Every run is in the session file as an audit record, with its input and output.
    const file = await readFile(input.transcript_path, 'utf8');
    const runs = file
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .filter((record) => record.type === 'audit' && record.event.type === 'hook_ran');
    assert.deepEqual(
      runs.map((record) => [record.event.event, record.event.outcome]),
      [
        ['PreToolUse', 'continue'],
        ['PostToolUse', 'block'],
      ],
    );
    assert.equal(JSON.parse(runs[0].event.input).glassbox_tool_name, 'write_file');
    assert.equal(events.filter((e) => e.type === 'hook_ran').length, 2);
  });

  test('a hook written for Claude Code works unchanged: it sees tool_name Bash and tool_input.command', async (t) => {
    const rm = { toolCalls: [{ name: 'shell', arguments: { command: 'rm -rf build' } }] };
    const s = await setup(t, [rm, { text: 'ok' }], null);
    // The shape of the guard Claude Code's docs teach, with grep in place of jq.
    const guard = await s.script(
      'guard.sh',
      `input=$(cat); if printf '%s' "$input" | grep -q '"tool_name":"Bash"' && printf '%s' "$input" | grep -q '"command":"rm -rf'; then echo "rm -rf is not allowed" >&2; exit 2; fi`,
    );
    await writeFile(
      join(s.home, 'config.json'),
      JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: guard }] }] } }),
    );
    const { terminal, events } = await s.exec('clean', { sandbox: 'danger-full-access', approvalPolicy: 'never' });
    assert.equal(terminal.type, 'run_succeeded', JSON.stringify(terminal));
    const decided = events.find((e) => e.type === 'tool_permission_decided');
    assert.equal(decided?.decision, 'deny', JSON.stringify(decided));
    assert.match(toolOutputsSent(s.requests()[1]!.body, 'chat')[0]!, /rm -rf is not allowed/);
  });

  test('UserPromptSubmit: exit 2 blocks the prompt before any model call; stdout adds context', async (t) => {
    const s = await setup(t, [{ text: 'ok' }], null);
    const blocker = await s.script(
      'block.sh',
      `grep -q secret && { echo "no secrets in prompts" >&2; exit 2; }; echo "The build uses pnpm."`,
    );
    await writeFile(
      join(s.home, 'config.json'),
      JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: blocker }] }] } }),
    );
    const blocked = await s.exec('tell me the secret');
    assert.equal(blocked.terminal.type, 'run_failed');
    assert.equal(blocked.terminal.type === 'run_failed' && blocked.terminal.error.code, 'PROMPT_BLOCKED');
    assert.match(blocked.terminal.type === 'run_failed' ? blocked.terminal.error.message : '', /no secrets in prompts/);
    assert.equal(s.requests().length, 0);
    const passed = await s.exec('how do I build?');
    assert.equal(passed.terminal.type, 'run_succeeded', JSON.stringify(passed.terminal));
    assert.match(JSON.stringify(s.requests()[0]!.body.messages), /The build uses pnpm\./);
  });

  test('a malformed hook is an error naming the file and the entry', async (t) => {
    const s = await setup(t, [{ text: 'ok' }], {
      PreToolUse: [{ matcher: 'shell', hooks: [{ type: 'command', command: 'true', timeout: 'soon' }] }],
    });
    await assert.rejects(s.exec('hi'), (error: Error) => {
      assert.match(error.message, /config\.json: hooks\.PreToolUse\[0\]\.hooks\[0\]\.timeout must be a number/);
      return true;
    });
  });

  test('a project hook is ignored until pinned, then runs in the sandbox; a changed script unpins it', async (t) => {
    if (!sandboxed) return t.skip('bubblewrap is unavailable here');
    const s = await setup(t, [WRITE, { text: 'ok' }, WRITE, { text: 'ok' }, WRITE, { text: 'ok' }], null);
    await mkdir(join(s.root, '.glassbox'), { recursive: true });
    const script = join(s.root, '.glassbox', 'hook.sh');
    await writeFile(script, '#!/bin/bash\necho "$GLASSBOX_SANDBOX" > "$CLAUDE_PROJECT_DIR/hook-ran"\n');
    await chmod(script, 0o755);
    await writeFile(join(s.root, '.glassbox', 'config.json'), JSON.stringify({ hooks: preToolUse('Write', 'bash .glassbox/hook.sh') }));
    const first = await s.exec('write', { sandbox: 'workspace-write', approvalPolicy: 'never' });
    const notice = first.events.find((e) => e.type === 'warning' && e.code === 'HOOKS_NOT_PINNED');
    assert.ok(notice, JSON.stringify(first.events.filter((e) => e.type === 'warning')));
    assert.ok(!first.events.some((e) => e.type === 'hook_ran'));
    assert.equal(existsSync(join(s.root, 'hook-ran')), false);
    const pin = /"projectHooks": (\{.*\})$/.exec(String(notice.message))![1]!;
    await writeFile(join(s.home, 'config.json'), JSON.stringify({ projectHooks: JSON.parse(pin) }));
    const second = await s.exec('write', { sandbox: 'workspace-write', approvalPolicy: 'never' });
    const ran = second.events.find((e) => e.type === 'hook_ran');
    assert.equal(ran?.source, 'project', JSON.stringify(second.events.filter((e) => e.type === 'warning')));
    assert.equal(ran?.sandboxed, true);
    assert.equal(ran?.outcome, 'continue', JSON.stringify(ran));
    assert.equal((await readFile(join(s.root, 'hook-ran'), 'utf8')).trim(), '1');
    // The pin covers the script the command names, not only the command's text.
    await writeFile(script, '#!/bin/bash\ntouch "$CLAUDE_PROJECT_DIR/changed"\n');
    const third = await s.exec('write', { sandbox: 'workspace-write', approvalPolicy: 'never' });
    assert.ok(third.events.some((e) => e.type === 'warning' && e.code === 'HOOKS_CHANGED'));
    assert.ok(!third.events.some((e) => e.type === 'hook_ran'));
    assert.equal(existsSync(join(s.root, 'changed')), false);
  });
});
