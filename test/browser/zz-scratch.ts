import { buildWorkbench, launchChromium, openPage, startWorkbench, screenshot } from '/work/main/test/browser/workbench-harness.ts';
buildWorkbench();
const wb = await startWorkbench({ script: [
  { toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }, { name: 'grep', arguments: { pattern: 'hello', path: '.' } }], text: 'Let me look around.' },
  { text: '# Summary\n\nThis project prints **hello**.\n\n```ts\nconst greeting: string = "hello";\nconsole.log(greeting);\n```\n\n| file | lines |\n|---|---|\n| README.md | 1 |\n', chunkDelayMs: 10, chunkSize: 6 },
], files: { 'README.md': 'hello world\n' } });
const browser = await launchChromium();
const { page, errors, context } = await openPage(browser);
await page.goto(wb.url);
await page.getByRole('textbox', { name: 'Prompt' }).fill('What is this project?');
await page.getByRole('button', { name: 'Start run' }).click();
await page.getByText('Done in').waitFor({ timeout: 10000 });
await screenshot(page, 'scratch-1');
console.log('errors', errors, wb.log);
await context.close(); await browser.close(); await wb.close();
