// An exported session opened in real Chromium from a file, with every network request blocked
// and recorded: the transcript shows (prompt, tool call, answer), a model call's request opens
// with the messages it carried, nothing was requested but the file itself, the page logged no
// error, and neither planted key is anywhere in the page.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { runCli } from '../helpers/run-cli.js';
import { PLANTED_ENV_KEY, PLANTED_FILE_KEY, recordedSession } from '../helpers/recorded-session.js';
import { launchChromium, screenshot } from './workbench-harness.js';

describe('exported session in Chromium', () => {
  let browser: Browser;
  before(async () => {
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
  });

  test('opens offline from a file: transcript, a call request, no planted key', async (t) => {
    const { base, env, close } = await recordedSession();
    t.after(close);
    const file = join(base, 'session.html');
    const exported = await runCli(['sessions', 'export', 'last', '--format', 'html', '-o', file], env);
    assert.equal(exported.code, 0, exported.stderr);
    const context = await browser.newContext({ offline: true });
    t.after(() => context.close());
    const requested = new Set<string>();
    await context.route('**/*', async (route) => {
      requested.add(route.request().url());
      if (route.request().url().startsWith('file:')) await route.continue();
      else await route.abort();
    });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('request', (request) => requested.add(request.url()));
    const url = pathToFileURL(file).href;
    await page.goto(url);
    await page.getByText('summarize notes.txt').first().waitFor();
    await page.getByText('tool call · read_file').waitFor();
    await page.getByText(/Exported answer: the notes hold a deploy token; your key is \[redacted\]\./).waitFor();
    assert.match((await page.locator('#totals').textContent()) ?? '', /2 model calls/);
    // The second call's request: system prompt, prompt, the call and its (redacted) output.
    const request = page.locator('details.request').nth(1);
    await request.locator('summary').click();
    await request.getByText('deploy token: [redacted]').waitFor();
    await request.getByText('summarize notes.txt').waitFor();
    await screenshot(page, '90-session-export');
    assert.deepEqual([...requested], [url]);
    assert.deepEqual(errors, []);
    const html = await page.content();
    assert.ok(!html.includes(PLANTED_ENV_KEY) && !html.includes(PLANTED_FILE_KEY));
    assert.ok(!(await readFile(file, 'utf8')).includes(PLANTED_ENV_KEY));
  });
});
