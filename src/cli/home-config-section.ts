// One section of the user's `<home>/config.json` (never a project's): the settings the CLI reads
// before anything else loads, such as `database.url` and `server.token`.

import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from './usage-error.js';

/** The section named `name`, or undefined when the file or the section is absent; `example` shows its shape in the error. */
export function homeConfigSection(
  home: string,
  name: string,
  example: string,
): { path: string; section: Record<string, unknown> } | undefined {
  const path = join(home, 'config.json');
  let parsed: unknown;
  try {
    if (!statSync(path).isFile()) return undefined;
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    // A missing file is no setting; a broken one is reported by the config's other readers.
    return undefined;
  }
  const section = (parsed as Record<string, unknown> | null)?.[name];
  if (section === undefined) return undefined;
  if (typeof section !== 'object' || section === null || Array.isArray(section)) {
    throw new UsageError(`${path}: ${name} must be an object, e.g. ${example}`);
  }
  return { path, section: section as Record<string, unknown> };
}
