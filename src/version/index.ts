// Glassbox's version, read once from package.json (two levels up from both src/version/ and
// dist/version/). A leaf: the CLI's `--help`, the runner (it stamps every session file) and the
// server all ask here, and none of them pays for loading another layer to know it.

import { readFileSync } from 'node:fs';

let cached: string | null = null;

export function glassboxVersion(): string {
  cached ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return cached;
}
