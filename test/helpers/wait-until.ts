// Polls an asynchronous condition until it holds: for what only a file, a page or another
// process can say (a hook that has run, a page that has drawn), instead of a fixed sleep.

export async function waitUntil(condition: () => Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
