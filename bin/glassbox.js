#!/usr/bin/env node
// Entry point. `--version` answers from package.json before anything else is imported, so the
// cheapest question costs little more than starting Node. Everything else runs the bundled CLI
// (dist/bundle/, built by scripts/bundle-cli.js): a few files to compile instead of hundreds to
// resolve. Its stack traces point into the bundle; GLASSBOX_DEBUG=1 maps them back to src/.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${pkg.version}\n`);
} else {
  if (process.env.GLASSBOX_DEBUG === '1') process.setSourceMapsEnabled(true);
  try {
    const { main } = await import('../dist/bundle/cli.js');
    await main(process.argv);
  } catch (error) {
    if (error && error.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/bundle/cli.js')) {
      process.stderr.write('glassbox: the build is missing. Run `npm install` (or `npm run build`) first.\n');
      process.exit(2);
    }
    throw error;
  }
}
