#!/usr/bin/env node
// Entry point. `--version` answers from package.json before anything else is imported, so the
// cheapest question costs little more than starting Node. Everything else runs the bundled CLI
// (dist/bundle/, built by scripts/bundle-cli.js): a few files to compile instead of hundreds to
// resolve. Its stack traces point into the bundle; GLASSBOX_DEBUG=1 maps them back to src/.
// The interactive session's editor is painted before the CLI loads (src/tui/first-frame.ts): which
// command lines open it is read off the program at build time (dist/bundle/entry-argv.json).
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${pkg.version}\n`);
} else {
  if (process.env.GLASSBOX_DEBUG === '1') process.setSourceMapsEnabled(true);
  try {
    const firstFrame = process.stdin.isTTY && process.stdout.isTTY ? await paintFirstFrame() : null;
    const { main } = await import('../dist/bundle/cli.js');
    await main(process.argv, { firstFrame });
  } catch (error) {
    if (error && error.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/bundle/')) {
      process.stderr.write('glassbox: the build is missing. Run `npm install` (or `npm run build`) first.\n');
      process.exit(2);
    }
    throw error;
  }
}

async function paintFirstFrame() {
  let spec;
  try {
    spec = JSON.parse(readFileSync(new URL('../dist/bundle/entry-argv.json', import.meta.url), 'utf8'));
  } catch {
    return null; // an older build: the session paints when it is loaded
  }
  const frame = await import('../dist/bundle/first-frame.js');
  return frame.opensSession(args, spec) ? frame.paintFirstFrame() : null;
}
