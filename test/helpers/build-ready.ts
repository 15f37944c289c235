// The tests that run the built code (the CLI from bin/glassbox.js, the library through package.json
// "exports", compiled modules loaded by child processes) wait here for `npm test`'s build. The
// build runs side by side with the first test files, which need only the sources
// (scripts/run-tests.js --build); it says it is done, or failed, with a file in
// `GLASSBOX_TEST_BUILD_STATE`. Outside `npm test` (a file run on its own) there is nothing to wait for.
import { existsSync, readFileSync, watch } from 'node:fs';
import { join } from 'node:path';

export const BUILD_DONE = 'build-done';
export const BUILD_FAILED = 'build-failed';

/** Resolves once the build is in place; rejects, naming the build's own error, if it failed. */
export function buildReady(dir: string | undefined = process.env.GLASSBOX_TEST_BUILD_STATE): Promise<void> {
  if (!dir) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const check = (): boolean => {
      if (existsSync(join(dir, BUILD_DONE))) {
        resolve();
        return true;
      }
      if (existsSync(join(dir, BUILD_FAILED))) {
        reject(new Error(`the build failed, so the tests of built code cannot run:\n${readFileSync(join(dir, BUILD_FAILED), 'utf8')}`));
        return true;
      }
      return false;
    };
    // Watch first, then look: a marker written in between is still seen.
    const watcher = watch(dir, () => {
      if (check()) watcher.close();
    });
    if (check()) watcher.close();
  });
}
