// Runs turns against the scripted fake provider with MCP servers configured in a temporary home
// (and project), the way `glassbox exec` does, and keeps what the tests look at.

import { readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ApprovalBroker, ApprovalRequest, RunEvent } from '../../src/agent/index.js';
import { createGateway } from '../../src/model/index.js';
import { openRunner, runTurn, type RunnerSettings, type TurnResult } from '../../src/runner/index.js';
import { JsonlSessionStore, type SessionRecord } from '../../src/sessions/index.js';
import { startFakeProvider, type FakeProvider, type ScriptedTurn } from '../../src/testing/index.js';
import { withTempDir } from '../helpers/temp-dir.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
export const EVERYTHING_SERVER = join(repo, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
export const FILESYSTEM_SERVER = join(repo, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
export const BROKEN_SERVER = join(repo, 'test/fixtures/mcp/broken-server.mjs');

export interface McpWorld {
  root: string;
  home: string;
  provider: FakeProvider;
  approvals: ApprovalRequest[];
  writeUserConfig(config: unknown): Promise<void>;
  writeProjectConfig(config: unknown): Promise<void>;
  turn(options?: {
    settings?: Partial<RunnerSettings>;
    signal?: AbortSignal;
    approve?: boolean;
    onEvent?: (event: RunEvent) => void;
  }): Promise<{ result: TurnResult; events: RunEvent[]; records: SessionRecord[] }>;
}

/** The tool names in the first request the provider received (Chat Completions body). */
export function sentToolNames(provider: FakeProvider, index = 0): string[] {
  const body = JSON.parse(provider.requests[index]!.rawBody) as { tools?: { function: { name: string } }[] };
  return (body.tools ?? []).map((tool) => tool.function.name);
}

export function outputs(records: readonly SessionRecord[]): Map<string, { output: string; isError: boolean }> {
  const byName = new Map<string, { output: string; isError: boolean }>();
  for (const record of records) {
    if (record.type === 'response_item' && record.item.type === 'function_call_output')
      byName.set(record.item.name, { output: record.item.output, isError: record.item.isError });
  }
  return byName;
}

export function decisions(events: readonly RunEvent[]): Record<string, string> {
  const result: Record<string, string> = {};
  for (const event of events) if (event.type === 'tool_permission_decided') result[event.name] = `${event.decision} ${event.rule}`;
  return result;
}

export async function withMcpWorld(turns: ScriptedTurn[], run: (world: McpWorld) => Promise<void>): Promise<void> {
  await withTempDir(async (dir) => {
    const root = join(dir, 'project');
    const home = join(dir, 'home');
    await mkdir(join(root, '.glassbox'), { recursive: true });
    await mkdir(home, { recursive: true });
    await writeFile(join(root, 'README.md'), '# project\n');
    let next = 0;
    const provider = await startFakeProvider({ whenExhausted: () => turns[next++] ?? { text: 'Out of script.' } });
    const approvals: ApprovalRequest[] = [];
    try {
      const gateway = createGateway({
        wireApi: 'chat',
        baseURL: provider.baseURL,
        apiKey: 'k',
        retry: { baseDelayMs: 1, maxDelayMs: 2, maxAttempts: 1, random: () => 0.5 },
      });
      const world: McpWorld = {
        root,
        home,
        provider,
        approvals,
        writeUserConfig: (config) => writeFile(join(home, 'config.json'), JSON.stringify(config)),
        writeProjectConfig: (config) => writeFile(join(root, '.glassbox', 'config.json'), JSON.stringify(config)),
        async turn(options = {}) {
          const runner = await openRunner({
            root,
            home,
            model: 'gpt-5-mini',
            wireApi: 'chat',
            gateway,
            sandbox: 'read-only',
            approvalPolicy: 'on-request',
            network: false,
            tools: [],
            compaction: null,
            ...options.settings,
          });
          const events: RunEvent[] = [];
          const broker: ApprovalBroker = {
            request: async (request) => {
              approvals.push(request);
              return options.approve === false
                ? { decision: 'deny', by: 'test', message: null }
                : { decision: 'approve', by: 'test', message: null };
            },
          };
          const result = await runTurn(runner, {
            prompt: 'use the tools',
            runId: `run-${Date.now()}`,
            signal: options.signal ?? new AbortController().signal,
            approvals: broker,
            onEvent: (event) => {
              events.push(event);
              options.onEvent?.(event);
            },
          });
          const records = (await new JsonlSessionStore(join(home, 'sessions')).read(result.sessionId)).records;
          return { result, events, records };
        },
      };
      await run(world);
    } finally {
      await provider.close();
    }
  });
}

/** Pids a broken-server fixture wrote (its own, and a grandchild's with BROKEN_CHILD=1). */
export async function readPids(file: string): Promise<number[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  // Only the pid lines (the broken server also notes a call in flight there).
  return text
    .split('\n')
    .filter((line) => /^\d+$/.test(line))
    .map(Number);
}

/** Running (a zombie, exited but not yet reaped by init, holds nothing and counts as gone). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
