// The hooks around a turn's life, in Claude Code's format: Stop (the model wants to end its turn),
// PreCompact, Notification (a person is asked), SessionStart once per session, SessionEnd, and a
// prompt that UserPromptSubmit blocked, which must not reach the model later. Real runners, real
// bash scripts as hooks, the scripted provider over loopback.

import assert from 'node:assert/strict';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ApprovalRegistry, type ApprovalBroker, type RunEvent } from '../../src/agent/index.js';
import { createGateway } from '../../src/model/index.js';
import { compactSession, endSession, openRunner, runTurn, type Runner, type RunnerSettings } from '../../src/runner/index.js';
import { startFakeProvider, type CapturedRequest, type ScriptStep, type ScriptedTurn } from '../../src/testing/index.js';
import { createReadFileTool, createWriteFileTool } from '../../src/tools/index.js';
import { FAST_RETRY, bigOutputTool, scriptedWithSummaries } from '../compaction/compaction-harness.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const APPROVE_ALL: ApprovalBroker = { request: async () => ({ decision: 'approve', by: 'test', message: null }) };

interface Setup {
  root: string;
  home: string;
  log: string;
  /** An executable bash script in the temp dir that appends its stdin (one JSON line) to `log` first. */
  script(name: string, body: string): Promise<string>;
  hooks(section: Record<string, unknown>): Promise<void>;
  runner(extra?: Partial<RunnerSettings>): Promise<Runner>;
  requests: CapturedRequest[];
}

async function setup(
  t: { after: (fn: () => Promise<void>) => void },
  provider: { script?: ScriptStep[]; whenExhausted?: (request: CapturedRequest) => ScriptedTurn },
): Promise<Setup> {
  const base = await makeTempDir();
  const root = join(base, 'project');
  const home = join(base, 'home');
  const log = join(base, 'hook-inputs.jsonl');
  await mkdir(root, { recursive: true });
  await mkdir(home, { recursive: true });
  await writeFile(log, '');
  const fake = await startFakeProvider(provider);
  t.after(() => fake.close());
  return {
    root,
    home,
    log,
    async script(name, body) {
      const path = join(base, name);
      await writeFile(path, `#!/bin/bash\ninput=$(cat)\nprintf '%s\\n' "$input" >> ${JSON.stringify(log)}\n${body}\n`);
      await chmod(path, 0o755);
      return path;
    },
    hooks: (section) => writeFile(join(home, 'config.json'), JSON.stringify({ hooks: section })),
    runner: (extra = {}) =>
      openRunner({
        root,
        home,
        model: 'acme-model',
        wireApi: 'chat',
        gateway: createGateway({ wireApi: 'chat', baseURL: fake.baseURL, apiKey: 'k', retry: FAST_RETRY }),
        sandbox: 'danger-full-access',
        approvalPolicy: 'never',
        network: false,
        mcp: false,
        compaction: null,
        ...extra,
      }),
    requests: fake.requests,
  };
}

const on = (command: string, matcher?: string) => [
  { ...(matcher === undefined ? {} : { matcher }), hooks: [{ type: 'command', command }] },
];

async function turn(runner: Runner, prompt: string, options: { resume?: string | null; approvals?: ApprovalBroker } = {}) {
  const events: RunEvent[] = [];
  const result = await runTurn(runner, {
    prompt,
    resume: options.resume ?? null,
    runId: `run-${Math.random().toString(36).slice(2)}`,
    signal: new AbortController().signal,
    approvals: options.approvals ?? APPROVE_ALL,
    onEvent: (event) => events.push(event),
  });
  return { ...result, events };
}

async function inputs(log: string): Promise<Array<Record<string, unknown>>> {
  return (await readFile(log, 'utf8'))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const ran = (events: RunEvent[]) => events.filter((event) => event.type === 'hook_ran');
const messagesOf = (request: CapturedRequest | undefined) => JSON.stringify((request?.body as { messages?: unknown })?.messages ?? []);

describe('hooks around the turn', { concurrency: true }, () => {
  test('Stop: a hook that exits 2 keeps the turn going with its reason; stop_hook_active is set the next time', async (t) => {
    const s = await setup(t, { script: [{ text: 'Done, I think.' }, { text: 'Tests pass now. Done.' }] });
    const hook = await s.script(
      'stop.sh',
      `if printf '%s' "$input" | grep -q '"stop_hook_active":false'; then echo "run the tests before you stop" >&2; exit 2; fi`,
    );
    await s.hooks({ Stop: on(hook) });
    const result = await turn(await s.runner(), 'fix it');
    assert.equal(result.terminal.type, 'run_succeeded', JSON.stringify(result.terminal));
    assert.equal(result.terminal.type === 'run_succeeded' && result.terminal.answer, 'Tests pass now. Done.');
    assert.equal(s.requests.length, 2);
    assert.match(messagesOf(s.requests[1]), /Stop hook feedback[^"]*\\nrun the tests before you stop/);
    assert.match(messagesOf(s.requests[1]), /Done, I think\./);
    const seen = await inputs(s.log);
    assert.deepEqual(
      seen.map((input) => [input.hook_event_name, input.stop_hook_active, input.last_assistant_message]),
      [
        ['Stop', false, 'Done, I think.'],
        ['Stop', true, 'Tests pass now. Done.'],
      ],
    );
    assert.equal(seen[0]!.session_id, result.sessionId);
    assert.deepEqual(
      ran(result.events).map((event) => event.type === 'hook_ran' && event.outcome),
      ['block', 'continue'],
    );
  });

  test('Stop: a hook that always blocks ends the turn after 8 continuations with a warning; one that crashes does not block', async (t) => {
    const s = await setup(t, { whenExhausted: () => ({ text: 'Done.' }) });
    await s.hooks({ Stop: on(await s.script('always.sh', `echo '{"decision":"block","reason":"not yet"}'`)) });
    const looped = await turn(await s.runner(), 'go');
    assert.equal(looped.terminal.type, 'run_succeeded');
    assert.equal(s.requests.length, 9);
    const warning = looped.events.find((event) => event.type === 'warning' && event.code === 'STOP_HOOK_LIMIT');
    assert.ok(warning, JSON.stringify(looped.events.filter((event) => event.type === 'warning')));

    // At its round limit the turn ends with the answer; the hook's wish is a warning.
    const m = await setup(t, { whenExhausted: () => ({ text: 'Done.' }) });
    await m.hooks({ Stop: on(await m.script('always.sh', `echo '{"decision":"block","reason":"not yet"}'`)) });
    const limited = await turn(await m.runner({ maxRounds: 1 }), 'go');
    assert.equal(limited.terminal.type, 'run_succeeded', JSON.stringify(limited.terminal));
    assert.equal(m.requests.length, 1);
    assert.ok(limited.events.some((event) => event.type === 'warning' && event.code === 'STOP_HOOK_IGNORED'));

    const c = await setup(t, { script: [{ text: 'Done.' }] });
    await c.hooks({ Stop: on(await c.script('crash.sh', 'echo broken >&2; exit 1')) });
    const crashed = await turn(await c.runner(), 'go');
    assert.equal(crashed.terminal.type, 'run_succeeded');
    assert.equal(c.requests.length, 1);
    assert.deepEqual(
      ran(crashed.events).map((event) => event.type === 'hook_ran' && event.outcome),
      ['failed'],
    );
  });

  test('PreCompact: a block skips the automatic compaction (with a warning); a manual one runs anyway; the trigger is the matcher', async (t) => {
    const turns: ScriptedTurn[] = [
      { toolCalls: [{ name: 'read_big', arguments: { label: 'a' } }], usage: { input: 9000, output: 10 } },
      { text: 'Done.', usage: { input: 9500, output: 3 } },
    ];
    const s = await setup(t, {
      whenExhausted: scriptedWithSummaries(turns, () => ({ text: '## Goal\nThe summary.', usage: { input: 400, output: 30 } })),
    });
    const hook = await s.script('precompact.sh', `echo "keep everything" >&2; exit 2`);
    const manualOnly = await s.script('manual.sh', 'true');
    await s.hooks({ PreCompact: [...on(hook, 'auto'), ...on(manualOnly, 'manual')] });
    const runner = await s.runner({
      compaction: undefined,
      tools: [bigOutputTool(8_000), createReadFileTool(), createWriteFileTool()],
      compactAt: '8000',
      compactionTuning: { retryBaseDelayMs: 1, summaryAttempts: 1 },
    });
    const result = await turn(runner, 'take notes');
    assert.equal(result.terminal.type, 'run_succeeded', JSON.stringify(result.terminal));
    assert.ok(!result.events.some((event) => event.type === 'history_compacted'));
    const blocked = result.events.find((event) => event.type === 'warning' && event.code === 'COMPACTION_BLOCKED');
    assert.match(blocked?.type === 'warning' ? blocked.message : '', /keep everything/);
    assert.equal(s.requests.length, 2, 'no summary request');
    const autoInputs = await inputs(s.log);
    assert.ok(autoInputs.length >= 1);
    for (const input of autoInputs) assert.deepEqual([input.hook_event_name, input.trigger], ['PreCompact', 'auto']);

    const events: RunEvent[] = [];
    await compactSession({
      runner,
      sessionId: result.sessionId,
      instructions: 'keep the file names',
      onEvent: (event) => events.push(event),
    });
    const manual = (await inputs(s.log)).slice(autoInputs.length);
    assert.deepEqual(
      manual.map((input) => [input.trigger, input.custom_instructions]),
      [['manual', 'keep the file names']],
    );
    assert.ok(events.some((event) => event.type === 'history_compacted'));
  });

  test('Notification: a person being asked runs the permission_prompt hooks; an ask nobody sees does not', async (t) => {
    const s = await setup(t, {
      script: [{ toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'a' } }] }, { text: 'Written.' }],
    });
    const hook = await s.script('notify.sh', 'true');
    const other = await s.script('other.sh', 'true');
    await s.hooks({ Notification: [...on(hook, 'permission_prompt'), ...on(other, 'idle_prompt')] });
    const runner = await s.runner({ sandbox: 'workspace-write', approvalPolicy: 'untrusted' });
    const registry = new ApprovalRegistry();
    // Answered a moment later, as a person would: after the panel is shown.
    registry.onRequested((pending) =>
      setImmediate(() => setImmediate(() => registry.resolve(pending.runId, pending.callId, 'approve', null, 'user'))),
    );
    const result = await turn(runner, 'write it', { approvals: registry });
    assert.equal(result.terminal.type, 'run_succeeded', JSON.stringify(result.terminal));
    const seen = await inputs(s.log);
    assert.equal(seen.length, 1, JSON.stringify(seen));
    assert.equal(seen[0]!.hook_event_name, 'Notification');
    assert.equal(seen[0]!.notification_type, 'permission_prompt');
    assert.match(String(seen[0]!.message), /needs your permission to use write_file/);

    // The answer does not wait for the hook: here it outlives the turn and is stopped at its end.
    const slow = await setup(t, {
      script: [{ toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'a' } }] }, { text: 'Written.' }],
    });
    await slow.hooks({ Notification: on(await slow.script('slow.sh', 'sleep 30')) });
    const quick = new ApprovalRegistry();
    quick.onRequested((pending) =>
      setImmediate(() => setImmediate(() => quick.resolve(pending.runId, pending.callId, 'approve', null, 'user'))),
    );
    const waited = await turn(await slow.runner({ sandbox: 'workspace-write', approvalPolicy: 'untrusted' }), 'write it', {
      approvals: quick,
    });
    assert.equal(waited.terminal.type, 'run_succeeded');
    const order = waited.events.map((event) => event.type).filter((type) => ['tool_started', 'hook_ran', 'run_succeeded'].includes(type));
    assert.ok(order.indexOf('tool_started') < order.indexOf('hook_ran'), JSON.stringify(order));
    const stopped = ran(waited.events)[0];
    assert.equal(stopped?.type === 'hook_ran' && stopped.outcome, 'failed');

    const quiet = new ApprovalRegistry();
    quiet.onRequested((pending) => quiet.resolve(pending.runId, pending.callId, 'deny', 'no terminal', 'no-tty'));
    const s2 = await setup(t, {
      script: [{ toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'a' } }] }, { text: 'Not written.' }],
    });
    await s2.hooks({ Notification: on(await s2.script('notify.sh', 'true')) });
    await turn(await s2.runner({ sandbox: 'workspace-write', approvalPolicy: 'untrusted' }), 'write it', { approvals: quiet });
    assert.deepEqual(await inputs(s2.log), []);
  });

  test('SessionStart runs once per session in a process; SessionEnd runs when the session is left and is recorded in it', async (t) => {
    const s = await setup(t, { whenExhausted: () => ({ text: 'ok' }) });
    const start = await s.script('start.sh', 'echo "The build uses pnpm."');
    const end = await s.script('end.sh', 'true');
    await s.hooks({ SessionStart: on(start), SessionEnd: on(end, 'clear|other') });
    const runner = await s.runner();
    const first = await turn(runner, 'one');
    await turn(runner, 'two', { resume: first.sessionId });
    await turn(runner, 'three', { resume: first.sessionId });
    const starts = (await inputs(s.log)).filter((input) => input.hook_event_name === 'SessionStart');
    assert.deepEqual(
      starts.map((input) => input.source),
      ['startup'],
    );
    // Another runner in the same process (the terminal's /model opens one): the session has started.
    await turn(await s.runner(), 'four', { resume: first.sessionId });
    const again = (await inputs(s.log)).filter((input) => input.hook_event_name === 'SessionStart');
    assert.deepEqual(
      again.map((input) => input.source),
      ['startup'],
    );
    assert.equal(messagesOf(s.requests.at(-1)).split('The build uses pnpm.').length - 1, 1, 'the start context, once');

    const events: RunEvent[] = [];
    await endSession({ runner, sessionId: first.sessionId, reason: 'other', onEvent: (event) => events.push(event) });
    await endSession({ runner, sessionId: first.sessionId, reason: 'prompt_input_exit' });
    const ends = (await inputs(s.log)).filter((input) => input.hook_event_name === 'SessionEnd');
    assert.deepEqual(
      ends.map((input) => [input.reason, input.session_id]),
      [['other', first.sessionId]],
      'the matcher selects the reason',
    );
    assert.equal(ran(events).length, 1);
    const file = await readFile(join(s.home, 'sessions', `${first.sessionId}.jsonl`), 'utf8').catch(async () => {
      const { JsonlSessionStore } = await import('../../src/sessions/index.js');
      return readFile(new JsonlSessionStore(join(s.home, 'sessions')).sessionPath(first.sessionId), 'utf8');
    });
    const audits = file
      .split('\n')
      .filter((line) => line.includes('"hook_ran"'))
      .map((line) => JSON.parse(line) as { event: { event: string } });
    assert.deepEqual(
      audits.map((record) => record.event.event),
      ['SessionStart', 'SessionEnd'],
    );
  });

  test('a prompt UserPromptSubmit blocked stays in the file and never reaches the model', async (t) => {
    const s = await setup(t, { whenExhausted: () => ({ text: 'ok' }) });
    const guard = await s.script('guard.sh', `printf '%s' "$input" | grep -q 'password' && { echo "no passwords" >&2; exit 2; }; true`);
    await s.hooks({ UserPromptSubmit: on(guard) });
    const runner = await s.runner();
    const first = await turn(runner, 'hello');
    const blocked = await turn(runner, 'my password is hunter2', { resume: first.sessionId });
    assert.equal(blocked.terminal.type === 'run_failed' && blocked.terminal.error.code, 'PROMPT_BLOCKED');
    await turn(runner, 'what did I say?', { resume: first.sessionId });
    assert.equal(s.requests.length, 2);
    assert.doesNotMatch(messagesOf(s.requests[1]), /hunter2/);
    assert.match(messagesOf(s.requests[1]), /hello[\s\S]*what did I say\?/);
    // A new session whose first prompt is blocked keeps its system message.
    const fresh = await turn(runner, 'password please');
    assert.equal(fresh.terminal.type, 'run_failed');
    await turn(runner, 'start over', { resume: fresh.sessionId });
    const last = JSON.parse(messagesOf(s.requests.at(-1))) as Array<{ role: string; content: unknown }>;
    assert.deepEqual(
      last.map((message) => message.role),
      ['system', 'user'],
    );
  });
});
