// `npm run test:faults`: every fault test in one process. GLASSBOX_FAULTS_NIGHTLY=1 runs the
// nightly-size variants (more kill points, a 1 GB session, more SSE clients).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
for (const name of readdirSync(here).sort()) {
  if (name.endsWith('.test.ts') && name !== 'all.test.ts') await import(pathToFileURL(join(here, name)).href);
}
