// `glassbox sessions`, `sessions show`, `sessions export`, `sessions import` and `glassbox fork`:
// looking at, moving and branching sessions. Read-only except for import and fork, which only
// create a new session. A session holds text others chose (the model's answers, tool output, a
// pasted prompt, a repository's path), so every line printed goes through terminal-text/: control
// sequences are shown, never obeyed.

import { join } from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { escapeControls, terminalJson } from '../terminal-text/index.js';
// Types only at the top: the store (zod schemas, the model layer) loads when a command runs, so
// `glassbox --help` stays cheap.
import type { AuditEvent, ResponseItemRecord, SessionRecord, SessionStore, SessionSummary } from '../sessions/index.js';
import { hookRunText } from '../views/index.js';
import { databaseUrlOption } from './session-store-option.js';

export interface SessionCommandDeps {
  /** The Glassbox home; sessions live in `<home>/sessions`. `option` is the command's --home. */
  resolveHome(option?: string): string;
  /** Recorded in the meta of sessions that `fork` creates; default: the parent's. */
  glassboxVersion?: string;
  /** Defaults to process.stdout / process.stderr; tests capture them instead. */
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
}

interface Output {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** One line of a session's text for the terminal: every control character shown, none obeyed. */
function line(text: string): string {
  return `${escapeControls(text)}\n`;
}

const DEFAULT_LIST_LIMIT = 20;

function parsePositiveInteger(value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || number < 1) {
    throw new InvalidArgumentError('expected a positive integer');
  }
  return number;
}

function parseTurnNumber(value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number)) throw new InvalidArgumentError('expected a turn number (0 or more)');
  return number;
}

// ---------------------------------------------------------------------------------------------
// Formatting

function pad(value: number): string {
  return String(value).padStart(2, '0');
}

/** Local time, minute precision: enough to tell sessions apart in a table. */
function formatDateTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

function formatTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${String(date.getMilliseconds()).padStart(3, '0')}`;
}

/** One line, at most `max` characters, cut at the end. */
function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const chars = Array.from(flat);
  return chars.length <= max ? flat : `${chars.slice(0, max - 1).join('')}…`;
}

/** Cut at the start: the end of a path says more than its beginning. */
function clipStart(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `…${chars.slice(chars.length - max + 1).join('')}`;
}

function formatTable(headers: string[], rawRows: string[][]): string {
  // Escaped before measuring: the escapes are what the terminal shows.
  const rows = rawRows.map((row) => row.map(escapeControls));
  const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => Array.from(row[column]!).length)));
  const tableLine = (cells: string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell + ' '.repeat(widths[column]! - Array.from(cell).length)))
      .join('  ')
      .trimEnd();
  return `${[tableLine(headers), ...rows.map(tableLine)].join('\n')}\n`;
}

function summaryRow(summary: SessionSummary): string[] {
  return [
    summary.sessionId,
    formatDateTime(summary.createdAt),
    formatDateTime(summary.updatedAt),
    String(summary.turns),
    summary.totalTokens.toLocaleString('en-US'),
    summary.model,
    clipStart(summary.cwd, 32),
    clip(summary.title, 60) || '(no prompt yet)',
  ];
}

function describeAudit(event: AuditEvent): string {
  switch (event.type) {
    case 'tool_permission_decided':
      return `${event.name} ${event.callId}: ${event.decision} by ${event.rule}${event.reason ? ` (${clip(event.reason, 80)})` : ''}`;
    case 'approval_requested':
      return `${event.name} ${event.callId}: asked "${clip(event.summary, 80)}"`;
    case 'approval_resolved':
      return `${event.name} ${event.callId}: ${event.decision} by ${event.by}${event.message ? ` (${clip(event.message, 60)})` : ''}`;
    case 'tool_started':
      return `${event.name} ${event.callId}: started`;
    case 'tool_finished':
      return `${event.name} ${event.callId}: finished in ${event.durationMs} ms${event.isError ? ' with an error' : ''}`;
    case 'hook_ran':
      return hookRunText(event);
  }
}

function describeItem(record: ResponseItemRecord): string {
  const item = record.item;
  switch (item.type) {
    case 'reasoning':
      return `reasoning (${item.format}${item.state === null ? '' : ', with provider state'}): ${clip(item.text === '' ? '(hidden)' : item.text, 100)}`;
    case 'message':
      return item.role === 'assistant'
        ? `assistant (${item.runtimeRole === 'final_response' ? 'final' : 'working'}): ${clip(item.content, 100)}`
        : `${item.role}: ${clip(item.content, 100)}`;
    case 'function_call':
      return `call ${item.name} ${item.callId} ${clip(item.arguments, 80)}`;
    case 'function_call_output':
      return `output ${item.name} ${item.callId}${item.isError ? ' [error]' : ''}${record.repaired ? ' [repaired]' : ''}: ${clip(item.output, 80)}`;
    case 'compaction_summary':
      return `compaction summary ${item.compactionId}: ${clip(item.summary, 80)}`;
  }
}

/** A short, human summary of one record, for `sessions show`. */
export function describeRecord(record: SessionRecord): string {
  switch (record.type) {
    case 'session_meta': {
      const parent = record.parent ? ` · forked from ${record.parent.sessionId} at turn ${record.parent.atTurn}` : '';
      return `session ${record.sessionId} · ${record.model} (${record.wireApi}) · ${record.cwd} · glassbox ${record.glassboxVersion}${parent}`;
    }
    case 'turn_started':
      return `turn ${record.turn} · ${record.model} · approval ${record.policy.approvalPolicy} · sandbox ${record.policy.sandbox} · "${clip(record.prompt, 80)}"`;
    case 'response_item':
      return describeItem(record);
    case 'model_call': {
      const usage = record.usage ? ` · ${record.usage.inputTokens} in / ${record.usage.outputTokens} out` : '';
      const outcome = record.error
        ? `failed [${record.error.code}] ${clip(record.error.message, 80)}`
        : (record.finishReason ?? 'no finish reason');
      return `turn ${record.turn} round ${record.round} (${record.stage}) · ${record.durationMs} ms${usage} · ${outcome}`;
    }
    case 'audit':
      return `${record.event.type} ${describeAudit(record.event)}`;
    case 'warning':
      return `[${record.code}] ${clip(record.message, 120)}`;
    case 'turn_completed':
      return `turn ${record.turn} completed · ${record.rounds} rounds · ${record.usage.total.totalTokens.toLocaleString('en-US')} tokens`;
    case 'turn_failed':
      return `turn ${record.turn} failed [${record.error.code}] ${clip(record.error.message, 100)} · ${record.rounds} rounds`;
    case 'turn_cancelled':
      return `turn ${record.turn} cancelled: ${clip(record.reason, 100)} · ${record.rounds} rounds`;
    case 'compaction':
      return `turn ${record.turn} · ${record.kind} (${record.trigger}) · ${record.tokensBefore.toLocaleString('en-US')} → ${record.tokensAfter.toLocaleString('en-US')} tokens · ${record.compactionId}`;
    case 'file_checkpoint':
      return `turn ${record.turn} · ${record.tool} changed ${record.path} (${record.before.kind} → ${record.after.kind})`;
    case 'rewind': {
      const files = record.files ? `${record.files.length} file${record.files.length === 1 ? '' : 's'} restored` : 'files untouched';
      return `rewound to before turn ${record.toTurn} · ${files}${record.forkId ? ` · continues in ${record.forkId}` : ''}`;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Commands

interface OpenStore {
  store: SessionStore;
  /** Where a session's lines are, for problem messages: its file, or the database's session. */
  where(sessionId: string): string;
  close(): Promise<void>;
}

/** The file store under <home>/sessions, or PostgreSQL with --database-url (docs/team-server.md). */
async function storeFor(deps: SessionCommandDeps, options: { home?: string; databaseUrl?: string }): Promise<OpenStore> {
  const home = deps.resolveHome(options.home);
  const { forgetDatabaseUrlVariable, openSessionStore, resolveDatabaseUrl } = await import('./session-store-option.js');
  const databaseUrl = resolveDatabaseUrl(options.databaseUrl, home);
  forgetDatabaseUrlVariable();
  const opened = await openSessionStore(databaseUrl);
  if (opened.store !== undefined) {
    const store = opened.store;
    return { store, where: (sessionId) => `${store.location} session ${sessionId}`, close: opened.close };
  }
  const { JsonlSessionStore: Store } = await import('../sessions/index.js');
  const store = new Store(join(home, 'sessions'));
  return { store, where: (sessionId) => store.sessionPath(sessionId), close: async () => {} };
}

export async function withStore<T>(
  deps: SessionCommandDeps,
  options: { home?: string; databaseUrl?: string },
  task: (opened: OpenStore) => Promise<T>,
): Promise<T> {
  const opened = await storeFor(deps, options);
  try {
    return await task(opened);
  } finally {
    await opened.close();
  }
}

async function listSessions(
  deps: SessionCommandDeps,
  io: Output,
  options: { json?: boolean; limit?: number; query?: string; home?: string; databaseUrl?: string },
): Promise<void> {
  await withStore(deps, options, ({ store }) => printList(store, io, options));
}

async function printList(store: SessionStore, io: Output, options: { json?: boolean; limit?: number; query?: string }): Promise<void> {
  const list = await store.list({ limit: options.limit ?? DEFAULT_LIST_LIMIT, query: options.query });
  for (const problem of list.problems) {
    io.err(line(problem.sessionId === null ? `warning: ${problem.message}` : `warning: session ${problem.sessionId}: ${problem.message}`));
  }
  if (options.json) {
    io.out(`${terminalJson(list.sessions, 2)}\n`);
    return;
  }
  if (list.sessions.length === 0) {
    io.out(line(options.query ? `No sessions match "${options.query}" in ${store.location}.` : `No sessions yet in ${store.location}.`));
    return;
  }
  io.out(formatTable(['ID', 'CREATED', 'UPDATED', 'TURNS', 'TOKENS', 'MODEL', 'CWD', 'TITLE'], list.sessions.map(summaryRow)));
  if (list.nextCursor !== null) io.err(`(more sessions not shown; use --limit to see more)\n`);
}

async function showSession(
  deps: SessionCommandDeps,
  io: Output,
  reference: string,
  json: boolean,
  options: { home?: string; databaseUrl?: string },
): Promise<void> {
  await withStore(deps, options, ({ store, where }) => printSession(store, where, io, reference, json));
}

async function printSession(
  store: SessionStore,
  where: (sessionId: string) => string,
  io: Output,
  reference: string,
  json: boolean,
): Promise<void> {
  const sessionId = await store.resolveId(reference);
  // Stream: a long session is printed without holding all of its records.
  let pending: string[] = [];
  const scan = await store.scan(sessionId, (record) => {
    pending.push(
      json ? `${terminalJson(record)}\n` : line(`${formatTime(record.ts)}  ${record.type.padEnd(14)}  ${describeRecord(record)}`),
    );
    if (pending.length >= 500) {
      io.out(pending.join(''));
      pending = [];
    }
  });
  if (pending.length > 0) io.out(pending.join(''));
  const path = where(sessionId);
  for (const problem of scan.problems) io.err(line(`${path}:${problem.line}: ${problem.message}`));
  if (scan.tornTail !== null) {
    io.err(line(`${path}:${scan.tornTail.line}: unfinished last line (${scan.tornTail.bytes} bytes) ignored; the next resume removes it`));
  }
}

async function exportCommand(
  deps: SessionCommandDeps,
  io: Output,
  reference: string,
  format: 'html' | 'md' | 'jsonl' | 'raw',
  output: string | undefined,
  options: { home?: string; databaseUrl?: string },
): Promise<void> {
  if (format === 'raw') {
    const { exportRawSession } = await import('./session-transfer.js');
    return withStore(deps, options, ({ store }) => exportRawSession(store, io, reference, output));
  }
  const records = await withStore(deps, options, async ({ store }) => {
    const sessionId = await store.resolveId(reference);
    return (await store.read(sessionId)).records;
  });
  const { createRedactor, exportSession } = await import('../telemetry/index.js');
  // The same redactor as trace content: the key variables' values and known token shapes.
  const text = exportSession(records, format, createRedactor());
  if (output === undefined) return io.out(text);
  const { writeFile } = await import('node:fs/promises');
  // Readable by the owner only until they choose to share it: it holds prompts and tool output.
  await writeFile(output, text, { mode: 0o600 });
  io.err(line(`wrote ${output} (${format}, ${records.length} records, secrets redacted)`));
}

async function forkCommand(
  deps: SessionCommandDeps,
  io: Output,
  reference: string,
  atTurn: number | undefined,
  options: { home?: string; databaseUrl?: string },
): Promise<void> {
  await withStore(deps, options, async ({ store }) => {
    const sessionId = await store.resolveId(reference);
    const { forkSession } = await import('../sessions/index.js');
    const forkId = await forkSession(store, sessionId, { atTurn, glassboxVersion: deps.glassboxVersion });
    io.out(`${forkId}\n`);
  });
}

export function registerSessionCommands(program: Command, deps: SessionCommandDeps): void {
  const io: Output = {
    out: deps.stdout ?? ((text) => process.stdout.write(text)),
    err: deps.stderr ?? ((text) => process.stderr.write(text)),
  };

  const sessions = program
    .command('sessions')
    .description('list recorded sessions, newest first')
    .option('--json', 'print JSON instead of a table')
    .option('--limit <n>', `show at most N sessions (default ${DEFAULT_LIST_LIMIT})`, parsePositiveInteger)
    .option('--query <text>', 'only sessions whose id, title, cwd or model contains this text')
    .addOption(new Option('--home <dir>', 'Glassbox home (default ~/.glassbox)').env('GLASSBOX_HOME'))
    .addOption(databaseUrlOption())
    .action(async (options: { json?: boolean; limit?: number; query?: string; home?: string; databaseUrl?: string }) => {
      await listSessions(deps, io, options);
    });

  sessions
    .command('show')
    .description('print the records of a session')
    .argument('<id>', 'session id, unique prefix, or "last"')
    .option('--json', 'print the raw JSONL records')
    .action(async (reference: string, _options: unknown, command: Command) => {
      // The parent command also has --json and commander hands it the flag wherever it appears,
      // so read the merged options.
      const { json, home, databaseUrl } = command.optsWithGlobals<{ json?: boolean; home?: string; databaseUrl?: string }>();
      await showSession(deps, io, reference, json === true, { home, databaseUrl });
    });

  sessions
    .command('export')
    .description(
      'write a session for someone else: html (one self-contained file), md (a readable transcript) or jsonl, secrets redacted; ' +
        'or raw: the stored lines exactly, not redacted, for backups and `sessions import`',
    )
    .argument('<id>', 'session id, unique prefix, or "last"')
    .addOption(new Option('--format <format>', 'html | md | jsonl | raw').choices(['html', 'md', 'jsonl', 'raw']).default('html'))
    .option('-o, --output <file>', 'write to this file (default: stdout)')
    .addOption(databaseUrlOption())
    .action(async (reference: string, _options: unknown, command: Command) => {
      const { format, output, home, databaseUrl } = command.optsWithGlobals<{
        format: 'html' | 'md' | 'jsonl' | 'raw';
        output?: string;
        home?: string;
        databaseUrl?: string;
      }>();
      await exportCommand(deps, io, reference, format, output, { home, databaseUrl });
    });

  sessions
    .command('import')
    .description('store a session from a raw export (JSONL lines as `sessions export --format raw` writes them) and print its id')
    .argument('<file>', 'the .jsonl file, or - for stdin')
    .addOption(databaseUrlOption())
    .action(async (file: string, _options: unknown, command: Command) => {
      const { home, databaseUrl } = command.optsWithGlobals<{ home?: string; databaseUrl?: string }>();
      const { importSessionFile } = await import('./session-transfer.js');
      await withStore(deps, { home, databaseUrl }, ({ store }) => importSessionFile(store, io, file));
    });

  program
    .command('fork')
    .description('start a new session from an existing one, up to a turn, and print its id')
    .argument('<id>', 'session id, unique prefix, or "last"')
    .option('--at-turn <n>', 'last turn to keep (default: the last turn that ended)', parseTurnNumber)
    .addOption(new Option('--home <dir>', 'Glassbox home (default ~/.glassbox)').env('GLASSBOX_HOME'))
    .addOption(databaseUrlOption())
    .action(async (reference: string, options: { atTurn?: number; home?: string; databaseUrl?: string }) => {
      await forkCommand(deps, io, reference, options.atTurn, options);
    });
}
