// What the browser tests share: one web build, one Chromium, and per test a real Glassbox server
// (in process, `createServer`) backed by the scripted fake provider, with a temporary home and
// project. Everything started here is stopped by the returned `close`.

import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createGateway } from '../../src/model/index.js';
import { createServer, type GlassboxServer } from '../../src/server/index.js';
import { startFakeProvider, type FakeProvider, type ScriptStep } from '../../src/testing/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { REPO_ROOT } from '../helpers/run-cli.js';

/** Screenshots of each screen (git-ignored). */
export const ARTIFACTS = join(REPO_ROOT, 'test', 'browser', 'artifacts');
export const TOKEN = 'browser-test-token-0123456789';

/**
 * Builds the workbench into `outDir`: the tests must see the current source, and a private copy
 * cannot be emptied under them by a concurrent `npm run build`.
 */
export function buildWorkbench(outDir: string): void {
  const result = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts', 'build-web.js'), '--out-dir', outDir], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`web build failed:\n${result.stdout}\n${result.stderr}`);
  mkdirSync(ARTIFACTS, { recursive: true });
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

export interface WorkbenchOptions {
  script?: ScriptStep[];
  /** Answers every request once the script is used up (default: an error). */
  whenExhausted?: ScriptStep;
  sandbox?: 'read-only' | 'workspace-write' | 'danger-full-access';
  approvalPolicy?: 'untrusted' | 'on-request' | 'never';
  compactAt?: string;
  contextWindow?: string;
  /** The server's `--max-rounds`. */
  maxRounds?: number;
  /** Files to create in the project root before the server starts. */
  files?: Record<string, string>;
  /** The built workbench the server serves (only pages need it). */
  webRoot?: string;
  /** Listen on this port (to restart a server where a page expects it). */
  port?: number;
  /** Reuse this project and home (a restarted server). */
  base?: string;
  /** Leave project and home on close (the test restarts the server on them). */
  keepFiles?: boolean;
}

export interface Workbench {
  /** The temporary directory holding project and home. */
  base: string;
  port: number;
  url: string;
  origin: string;
  root: string;
  home: string;
  provider: FakeProvider;
  server: GlassboxServer;
  log: string[];
  close(): Promise<void>;
}

export async function startWorkbench(options: WorkbenchOptions = {}): Promise<Workbench> {
  const base = options.base ?? (await makeTempDir());
  const root = join(base, 'project');
  const home = join(base, 'home');
  await mkdir(root, { recursive: true });
  await mkdir(home, { recursive: true });
  for (const [path, content] of Object.entries(options.files ?? {})) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), content);
  }
  const provider = await startFakeProvider({ script: options.script ?? [], whenExhausted: options.whenExhausted });
  const log: string[] = [];
  const sandbox = options.sandbox ?? 'read-only';
  const approvalPolicy = options.approvalPolicy ?? 'on-request';
  let server: GlassboxServer | null = null;
  try {
    server = createServer({
      root,
      home,
      model: 'fake-model',
      wireApi: 'chat',
      gatewayFor: (wireApi) => createGateway({ wireApi, baseURL: provider.baseURL, apiKey: 'test-key', retry: { maxAttempts: 1 } }),
      demo: false,
      caps: { sandbox, approvalPolicy },
      defaults: { sandbox, approvalPolicy },
      network: false,
      port: options.port ?? 0,
      token: TOKEN,
      webRoot: options.webRoot ?? join(base, 'no-web-build'),
      compactAt: options.compactAt,
      contextWindow: options.contextWindow,
      ...(options.maxRounds === undefined ? {} : { maxRounds: options.maxRounds }),
      log: (message) => log.push(message),
    });
    const address = await server.listen();
    const running = server;
    return {
      base,
      port: address.port,
      url: address.url,
      origin: address.origin,
      root,
      home,
      provider,
      server: running,
      log,
      async close() {
        await running.close();
        await provider.close();
        if (!options.keepFiles) await rm(base, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await server?.close();
    await provider.close();
    await rm(base, { recursive: true, force: true });
    throw error;
  }
}

/** A fresh browser context (own cookies) at a fixed size, with page errors collected. */
export async function openPage(
  browser: Browser,
  size = { width: 1280, height: 800 },
  colorScheme: 'light' | 'dark' = 'light',
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: size, colorScheme });
  // The copy buttons use the clipboard; headless Chromium asks for the permission.
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  return { context, page, errors };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
}
