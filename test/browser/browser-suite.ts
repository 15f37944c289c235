// What every browser test file shares: one web build and one Chromium per file (set up by
// `useBrowser`), a fresh server and page per test (`withWorkbench`), and small page helpers —
// including axe-core, injected into the page to check accessibility.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { after, before } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { makeTempDir } from '../helpers/temp-dir.js';
import {
  buildWorkbench,
  launchChromium,
  openPage,
  startWorkbench,
  TOKEN,
  type Workbench,
  type WorkbenchOptions,
} from './workbench-harness.js';

export { waitUntil } from '../helpers/wait-until.js';

export interface BrowserSuite {
  withWorkbench(
    options: WorkbenchOptions,
    body: (page: Page, workbench: Workbench) => Promise<void>,
    view?: { size?: { width: number; height: number }; expectedErrors?: RegExp; colorScheme?: 'light' | 'dark' },
  ): Promise<void>;
  browser(): Browser;
  webRoot(): string;
}

/** Registers the file's before/after hooks; call at the top level of a test file. */
export function useBrowser(): BrowserSuite {
  let browser: Browser;
  let webRoot: string;
  before(async () => {
    webRoot = await makeTempDir();
    buildWorkbench(webRoot);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    if (webRoot !== undefined) await rm(webRoot, { recursive: true, force: true });
  });
  return {
    browser: () => browser,
    webRoot: () => webRoot,
    async withWorkbench(options, body, view = {}) {
      const workbench = await startWorkbench({ ...options, webRoot });
      const { context, page, errors } = await openPage(browser, view.size, view.colorScheme);
      page.setDefaultTimeout(10_000);
      try {
        await body(page, workbench);
        const expected = view.expectedErrors;
        assert.deepEqual(
          errors.filter((error) => expected === undefined || !expected.test(error)),
          [],
          'the page logged errors',
        );
      } finally {
        await context.close();
        await workbench.close();
      }
    },
  };
}

export async function startRun(page: Page, prompt: string, settings: { approvalPolicy?: string; sandbox?: string } = {}): Promise<void> {
  await page.getByRole('textbox', { name: 'Prompt' }).fill(prompt);
  if (settings.sandbox !== undefined) await page.getByLabel('Sandbox').selectOption(settings.sandbox);
  if (settings.approvalPolicy !== undefined) await page.getByLabel('Approval').selectOption(settings.approvalPolicy);
  await page.getByRole('textbox', { name: 'Prompt' }).press('Control+Enter');
}

/** Starts a run through the API (as another client would) and reads its stream to the end. */
export async function runThroughApi(workbench: Workbench, prompt: string, extra: Record<string, unknown> = {}): Promise<string> {
  const response = await fetch(`${workbench.origin}/api/runs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt, ...extra }),
  });
  assert.equal(response.status, 200, await response.clone().text());
  const text = await response.text();
  const started = /"type":"run_started","sessionId":"([^"]+)"/.exec(text);
  assert.ok(started, 'the stream has run_started');
  assert.match(text, /event: run_(succeeded|failed|cancelled)/);
  return started[1]!;
}

/** Starts a run through the API and returns as soon as its session is known (the run goes on). */
export async function startThroughApi(
  workbench: Workbench,
  prompt: string,
  extra: Record<string, unknown> = {},
): Promise<{ sessionId: string; runId: string }> {
  const controller = new AbortController();
  const response = await fetch(`${workbench.origin}/api/runs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt, ...extra }),
    signal: controller.signal,
  });
  assert.equal(response.status, 200);
  const reader = response.body!.getReader();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
    const started = /"type":"run_started","sessionId":"([^"]+)","runId":"([^"]+)"/.exec(text);
    if (started) {
      controller.abort();
      return { sessionId: started[1]!, runId: started[2]! };
    }
  }
  throw new Error('the run never started');
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * Runs axe-core in the page (evaluated through the DevTools protocol, so the page's CSP, which
 * forbids inline scripts, does not stop it) and returns serious and critical violations.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  const all = await axeViolations(page);
  return all.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

/** Every axe-core violation in the page, of any impact (moderate and minor too). */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  const injected = await page.evaluate('typeof window.axe');
  if (injected === 'undefined') await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(
            context: Document,
            options: unknown,
          ): Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }> }>;
        };
      }
    ).axe;
    const run = await axe.run(document, { resultTypes: ['violations'] });
    return run.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      nodes: violation.nodes.slice(0, 5).map((node) => JSON.stringify(node.target)),
    }));
  });
  return result;
}

export async function assertAccessible(page: Page, screen: string): Promise<void> {
  const violations = await seriousViolations(page);
  assert.deepEqual(violations, [], `serious axe-core violations on ${screen}`);
}
