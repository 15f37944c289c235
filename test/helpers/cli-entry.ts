// Runs the CLI from source (tests must exercise the current code, not a stale dist/ build).
import { main } from '../../src/cli/main.js';

await main(process.argv);
