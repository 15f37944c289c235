// What each slash command does. They reuse the runner (`compactSession`) and sessions
// (`forkSession`, the store's listing and id resolution) rather than re-implementing them, and
// report through the transcript: a command never throws into the view.

import { acceptPlan, planCommand, rejectPlan } from './plan-commands.js';
import { constants } from 'node:fs';
import { chmod, mkdir, open } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { DIALECT_LIST, lookupModel, modelCatalogEntries, providerNameOf } from '../model/index.js';
import { compactSession } from '../runner/index.js';
import { forkSession, type SessionSummary } from '../sessions/index.js';
import { paintDiffLine } from './approval-preview.js';
import type { PreparedRewind } from '../checkpoints/index.js';
import { rewindCommand } from './rewind-command.js';
import { helpText } from './help-text.js';
import type { SessionController } from './session-controller.js';
import { lastRequest, sessionSkillCost } from './session-history.js';
import type { SkillContextCost } from '../runner/index.js';
import { compactNumber, compactionText, contextText, formatCost } from './session-meter.js';
import type { SlashCommandName } from './slash-commands.js';
import type { Theme } from './theme.js';
import { oneLine, visibleText } from '../terminal-text/index.js';
import type { PromptCommand } from '../workspace/index.js';

export interface CommandContext {
  controller: SessionController;
  theme: Theme;
  /** The sessions the last `/resume` or `/sessions` listed, for `/resume <n>`. */
  listed: SessionSummary[];
  /** The project's and the home's prompt commands, for /help. */
  promptCommands?: readonly PromptCommand[];
  /** Another project's session the user was warned about: resuming it again continues it. */
  confirmForeign: string | null;
  /** The rewind whose diff `/rewind N` showed, confirmed by the same command again. */
  pendingRewind?: PreparedRewind | null;
}

export async function runCommand(context: CommandContext, name: SlashCommandName, args: string): Promise<void> {
  const { controller } = context;
  switch (name) {
    case 'help':
      return controller.note({
        kind: 'block',
        title: 'help',
        body: helpText(context.theme, process.stdout.columns || 80, context.promptCommands),
      });
    case 'status':
      return status(context);
    case 'quit':
      return controller.requestExit();
    case 'clear':
      controller.newSession();
      return controller.note({
        kind: 'notice',
        tone: 'info',
        text: 'new session: the next prompt starts it (the previous one stays resumable)',
      });
    case 'compact':
      return compact(context, args);
    case 'fork':
      return fork(context, args);
    case 'rewind': {
      const sessionId = needSession(context, 'rewind it');
      return sessionId === null ? undefined : rewindCommand(context, sessionId, args);
    }
    case 'resume':
      return resume(context, args);
    case 'sessions':
      return listSessions(context);
    case 'model':
      return model(context, args);
    case 'sandbox':
      return choose(context, 'sandbox', args, controller.options.sandboxModes);
    case 'approvals':
      return choose(context, 'approvalPolicy', args, controller.options.approvalPolicies);
    case 'diff':
      return diff(context);
    case 'debug':
      return debug(context);
    case 'plan':
      return planCommand(context, args);
    case 'accept':
      return acceptPlan(context, args);
    case 'reject':
      return rejectPlan(context);
  }
}

function needSession(context: CommandContext, what: string): string | null {
  const id = context.controller.getSnapshot().sessionId;
  if (id === null) context.controller.note({ kind: 'notice', tone: 'warning', text: `no session yet: send a prompt first, then ${what}` });
  return id;
}

async function compact(context: CommandContext, instructions: string): Promise<void> {
  const { controller } = context;
  const sessionId = needSession(context, 'compact it');
  if (sessionId === null) return;
  controller.note({
    kind: 'notice',
    tone: 'info',
    text: instructions ? `compacting (instructions: ${oneLine(instructions, 120)})…` : 'compacting…',
  });
  await controller.track('compact', async (signal) => {
    const runner = await controller.getRunner();
    await compactSession({
      runner,
      sessionId,
      instructions: instructions === '' ? undefined : instructions,
      signal,
      onEvent: (event) => controller.onRunEvent(event),
    });
  });
}

async function fork(context: CommandContext, args: string): Promise<void> {
  const { controller } = context;
  const sessionId = needSession(context, 'fork it');
  if (sessionId === null) return;
  if (args !== '' && !/^\d+$/.test(args)) {
    return controller.note({ kind: 'notice', tone: 'error', text: `/fork takes a turn number, got "${oneLine(args, 40)}"` });
  }
  await controller.track('command', async () => {
    const runner = await controller.getRunner();
    const forkId = await forkSession(runner.store, sessionId, {
      ...(args === '' ? {} : { atTurn: Number(args) }),
      glassboxVersion: controller.options.glassboxVersion,
    });
    await controller.openSession(forkId);
    controller.note({
      kind: 'notice',
      tone: 'success',
      text: `forked ${sessionId}${args === '' ? '' : ` at turn ${args}`} → ${forkId}; you are in the fork now (the parent is unchanged)`,
    });
  });
}

async function resume(context: CommandContext, args: string): Promise<void> {
  const { controller } = context;
  if (args === '') return pickSession(context);
  await controller.track('command', async () => {
    const runner = await controller.getRunner();
    const listed =
      /^\d+$/.test(args) && Number(args) >= 1 && Number(args) <= context.listed.length ? context.listed[Number(args) - 1]!.sessionId : null;
    const sessionId = listed ?? (await runner.store.resolveId(args));
    // Another project's session continued here runs its tools in this project, where the paths it
    // read and wrote may name other files: said first, and done only when asked again.
    const { meta } = await runner.store.read(sessionId);
    if (!sameDirectory(meta.cwd, runner.root) && context.confirmForeign !== sessionId) {
      context.confirmForeign = sessionId;
      return controller.note({
        kind: 'notice',
        tone: 'warning',
        text: `session ${sessionId} was recorded in ${meta.cwd}, not in this project (${controller.root}): continued here, its tools run here, where the paths it used may name other files. /resume ${args} again to continue it here anyway`,
      });
    }
    context.confirmForeign = null;
    await controller.openSession(sessionId);
    controller.note({ kind: 'notice', tone: 'success', text: `resumed ${sessionId}: the next prompt continues it` });
  });
}

function sameDirectory(a: string, b: string): boolean {
  return resolve(a) === resolve(b);
}

/** `/resume` alone: this project's sessions, then a few of other projects', as a picker. */
async function pickSession(context: CommandContext): Promise<void> {
  const { controller } = context;
  await controller.track('command', async () => {
    const runner = await controller.getRunner();
    const { here, elsewhere } = await projectSessions(runner.store, runner.root);
    context.listed = [...here, ...elsewhere];
    if (context.listed.length === 0) return controller.note({ kind: 'notice', tone: 'info', text: 'no sessions yet' });
    const current = controller.getSnapshot().sessionId;
    const item = (s: SessionSummary, where: string | undefined) => ({
      label: `${s.sessionId === current ? '●' : ' '} ${s.sessionId.slice(0, 13)} ${s.updatedAt.slice(0, 16).replace('T', ' ')} ${s.turns}t ${oneLine(s.title || '(no prompt)', 40)}`,
      detail: where,
    });
    controller.setPicker({
      title: `resume a session · this project (${oneLine(controller.root, 80)}) first, then others (continuing one asks first)`,
      items: [...here.map((s) => item(s, undefined)), ...elsewhere.map((s) => item(s, `· ${s.cwd}`))],
      selected: 0,
      onPick: (index) => void resume(context, String(index + 1)),
    });
  });
}

async function projectSessions(store: Awaited<ReturnType<SessionController['getRunner']>>['store'], root: string) {
  const { sessions } = await store.list({ limit: 200 });
  return {
    here: sessions.filter((s) => sameDirectory(s.cwd, root)).slice(0, LISTED_HERE),
    elsewhere: sessions.filter((s) => !sameDirectory(s.cwd, root)).slice(0, LISTED_ELSEWHERE),
  };
}

/** Sessions listed: this project's first (newest first), then a few of other projects'. */
const LISTED_HERE = 10;
const LISTED_ELSEWHERE = 5;

async function listSessions(context: CommandContext, hint = '/resume <n> continues one'): Promise<void> {
  const { controller, theme } = context;
  await controller.track('command', async () => {
    const runner = await controller.getRunner();
    const { here, elsewhere } = await projectSessions(runner.store, runner.root);
    context.listed = [...here, ...elsewhere];
    if (context.listed.length === 0) return controller.note({ kind: 'notice', tone: 'info', text: 'no sessions yet' });
    const current = controller.getSnapshot().sessionId;
    const line = (s: SessionSummary, i: number, where: string) => {
      const mark = s.sessionId === current ? theme.tone('accent', '●') : ' ';
      const when = s.updatedAt.slice(0, 16).replace('T', ' ');
      return `${mark} ${String(i + 1).padStart(2)}. ${theme.dim(s.sessionId.slice(0, 13))} ${when} ${s.turns}t ${oneLine(s.title || '(no prompt)', 40)}${where}`;
    };
    const lines = [
      theme.dim(`this project · ${oneLine(controller.root, 100)}${here.length === 0 ? ': none yet' : ''}`),
      ...here.map((s, i) => line(s, i, '')),
    ];
    if (elsewhere.length > 0)
      lines.push(
        theme.dim('other projects (continuing one asks first)'),
        ...elsewhere.map((s, i) => line(s, here.length + i, theme.dim(` · ${oneLine(s.cwd, 100)}`))),
      );
    controller.note({ kind: 'block', title: 'sessions', body: [...lines, theme.dim(hint)].join('\n') });
  });
}

async function model(context: CommandContext, name: string): Promise<void> {
  const { controller } = context;
  const current = controller.getSnapshot();
  if (name === '') {
    const provider = providerNameOf(current.wireApi);
    const known = modelCatalogEntries()
      .filter((entry) => entry.provider === provider)
      .map((entry) => entry.name);
    const names = known.includes(current.model) ? known : [current.model, ...known];
    return controller.setPicker({
      title: `model · this session speaks ${provider}'s API (${current.wireApi}); /model <name> takes any other name`,
      items: names.map((each) => ({ label: each, detail: each === current.model ? '(current)' : undefined })),
      selected: Math.max(0, names.indexOf(current.model)),
      onPick: (index) => void model(context, names[index]!),
    });
  }
  const looked = lookupModel(name);
  const refused = otherProvider(looked.matched === null ? null : looked.entry.provider, current.wireApi);
  if (refused !== null)
    return controller.note({ kind: 'notice', tone: 'error', text: `model not changed: ${oneLine(name, 80)} ${refused}` });
  await controller.track('command', async () => {
    await controller.changeSettings({ model: name });
    controller.note({
      kind: 'notice',
      tone: 'success',
      text: `model: ${name}${looked.matched !== null ? '' : ' (not in the model catalog: default limits, no price)'}`,
    });
  });
}

/**
 * Why a model cannot be switched to: the catalog knows it as the model of a provider that has an
 * API of its own (Anthropic's Claude), and the session speaks another one's (an OpenAI endpoint),
 * which would refuse it at the next turn. Models of providers the catalog knows no API of its own
 * for (DeepSeek, Qwen, open weights…) are served over the OpenAI-compatible APIs, so they pass.
 */
function otherProvider(modelProvider: string | null, wireApi: string): string | null {
  const speaks = providerNameOf(wireApi);
  if (modelProvider === null || modelProvider === speaks) return null;
  const wires = DIALECT_LIST.filter((dialect) => dialect.provider.name === modelProvider).map((dialect) => `--wire-api ${dialect.name}`);
  if (wires.length === 0) return null;
  return `is ${modelProvider}'s model, but this session speaks ${speaks}'s API (${wireApi}), whose endpoint would refuse it: start glassbox with ${wires.join(' or ')} and that provider's endpoint (or -m with a router that serves it)`;
}

async function choose<K extends 'sandbox' | 'approvalPolicy'>(
  context: CommandContext,
  key: K,
  value: string,
  choices: readonly string[],
): Promise<void> {
  const { controller } = context;
  const label = key === 'sandbox' ? 'sandbox' : 'approvals';
  const current = controller.getSnapshot()[key];
  if (value === '') return controller.note({ kind: 'notice', tone: 'info', text: `${label}: ${current} (choices: ${choices.join(', ')})` });
  if (!choices.includes(value))
    return controller.note({ kind: 'notice', tone: 'error', text: `unknown ${label} "${oneLine(value, 40)}"; use ${choices.join(', ')}` });
  await controller.track('command', async () => {
    await controller.changeSettings({ [key]: value } as Partial<Record<K, never>>);
    controller.note({ kind: 'notice', tone: 'success', text: `${label}: ${value} (from the next turn on)` });
  });
}

/** /diff shows at most this many diff lines; the rest is counted. */
export const MAX_DIFF_LINES = 400;

async function diff(context: CommandContext): Promise<void> {
  const { controller, theme } = context;
  let report: Awaited<ReturnType<typeof controller.changes.changes>>;
  try {
    report = await controller.changes.changes();
  } catch (error) {
    return controller.note({
      kind: 'notice',
      tone: 'error',
      text: `/diff failed: ${oneLine(String((error as Error)?.message ?? error), 200)}`,
    });
  }
  const { files, since, truncated, earlierPaths } = report;
  const lines: string[] = [];
  let hidden = 0;
  for (const file of files) {
    const note = file.note === null ? '' : theme.dim(` (${file.note})`);
    lines.push(theme.bold(`${file.status.padEnd(9)} ${visibleText(file.path)}`) + note);
    for (const line of file.lines) {
      if (lines.length >= MAX_DIFF_LINES) hidden += 1;
      else lines.push(paintDiffLine(visibleText(line), theme));
    }
  }
  if (hidden > 0) lines.push(theme.dim(`… ${hidden} more diff lines not shown`));
  if (files.length === 0) lines.push('no file in the workspace changed in this session yet');
  if (earlierPaths.length > 0)
    lines.push(
      theme.dim(`written in earlier runs of this session (no baseline here): ${earlierPaths.map((p) => visibleText(p)).join(', ')}`),
    );
  const when = since === null ? 'the session start' : since.toTimeString().slice(0, 8);
  lines.push(
    theme.dim(
      `compared with the workspace at ${when} (any change counts, yours too; node_modules, dist, .git and similar folders are not compared${truncated ? '; only the first 20 000 files' : ''})`,
    ),
  );
  controller.note({ kind: 'block', title: 'diff', body: lines.join('\n') });
}

async function debug(context: CommandContext): Promise<void> {
  const { controller, theme } = context;
  const sessionId = needSession(context, 'look at its requests');
  if (sessionId === null) return;
  await controller.track('command', async () => {
    const runner = await controller.getRunner();
    const request = await lastRequest(runner.store, sessionId);
    if (request === null) return controller.note({ kind: 'notice', tone: 'info', text: 'no model request in this session yet' });
    const dir = join(controller.home, 'debug');
    const file = join(dir, `${sessionId}-last-request.json`);
    const tools = runner.tools.map((tool) => tool.name);
    await writePrivateFile(dir, file, `${JSON.stringify({ model: request.model, messages: request.messages, tools }, null, 2)}\n`);
    const lines = [
      `turn ${request.turn}, round ${request.round} · ${request.model} · ${request.messages.length} messages · tools: ${tools.join(', ')}`,
    ];
    for (const message of request.messages) {
      const calls =
        message.role === 'assistant' && message.toolCalls.length > 0
          ? ` → ${message.toolCalls.map((c) => oneLine(c.name, 60)).join(', ')}`
          : '';
      lines.push(`${theme.bold(message.role.padEnd(9))} ${oneLine(message.content, 60)}${calls}`);
    }
    lines.push(theme.dim(`full request: ${file}`));
    controller.note({ kind: 'block', title: 'debug: last request as sent', body: lines.join('\n') });
  });
}

/**
 * The whole request holds what the session holds (file contents, command output): private to the
 * user, as the session files are (0600 in a 0700 folder). A file written before, or a folder made
 * by an older version, is narrowed too; a symlink in the file's place is not followed.
 */
async function writePrivateFile(dir: string, file: string, text: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const handle = await open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o600);
  try {
    await handle.chmod(0o600);
    await handle.writeFile(text);
  } finally {
    await handle.close();
  }
}

async function status(context: CommandContext): Promise<void> {
  const { controller } = context;
  const sessionId = controller.getSnapshot().sessionId;
  let skills: SkillContextCost | null = null;
  if (sessionId !== null) {
    // A session that cannot be read still gets its status, without the skills line.
    skills = await controller
      .getRunner()
      .then((runner) => sessionSkillCost(runner.store, sessionId))
      .catch(() => null);
  }
  controller.note({ kind: 'block', title: 'status', body: statusText(context, skills) });
}

/** `2 listed ~120 tokens · loaded: review ~800, review/checklist.md ~200` */
export function skillsText(cost: SkillContextCost): string {
  const loaded = cost.loaded.map(
    (each) => `${each.file === null ? each.name : `${each.name}/${each.file}`} ~${compactNumber(each.tokens)}`,
  );
  return `${cost.listed} listed ~${compactNumber(cost.listTokens)} tokens · ${loaded.length === 0 ? 'none loaded' : `loaded: ${loaded.join(', ')}`}`;
}

function statusText(context: CommandContext, skills: SkillContextCost | null): string {
  const { controller, theme } = context;
  const s = controller.getSnapshot();
  const settings = controller.currentSettings;
  const rows: Array<[string, string]> = [
    ['model', `${s.model} (${s.wireApi})`],
    ['project', settings.root],
    [
      'sandbox',
      `${s.sandbox}${settings.network ? ' + network' : ''}${
        controller.options.sandboxUnavailable && s.sandbox !== 'danger-full-access'
          ? ` — UNAVAILABLE here (${controller.options.sandboxUnavailable}); only literal read-only commands run unasked`
          : ''
      }`,
    ],
    ['approvals', s.approvalPolicy],
    ['session', s.sessionId ?? '(new: starts with the next prompt)'],
    ['context', contextText(s.meter, s.limits).replace(/^context /, '')],
    ['compaction', compactionText(s.limits)],
    ...(skills === null || (skills.listed === 0 && skills.loaded.length === 0) ? [] : [['skills', skillsText(skills)] as [string, string]]),
    [
      'usage',
      `${compactNumber(s.meter.sessionTokens)} tokens in ${s.meter.calls} model call(s) · ${formatCost(s.meter.cost, s.meter.costPartial)}`,
    ],
  ];
  return rows.map(([k, v]) => `${theme.dim(k.padEnd(11))}${visibleText(v)}`).join('\n');
}
