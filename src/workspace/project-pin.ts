// A user's pins of a project's configuration (`projectPermissionRules`, `projectHooks` in
// `<home>/config.json`): a map from absolute project directories to the fingerprint the user
// approved. One reading for every such map, so each section only names its key and its error.

import { isAbsolute } from 'node:path';

/** `invalid` when `pins` is not such a map; otherwise the fingerprint pinned for `project`, if any. */
export function projectPin(pins: unknown, project: string): string | undefined | 'invalid' {
  if (pins === undefined) return undefined;
  const valid =
    typeof pins === 'object' &&
    pins !== null &&
    !Array.isArray(pins) &&
    Object.entries(pins).every(([dir, fingerprint]) => isAbsolute(dir) && typeof fingerprint === 'string');
  if (!valid) return 'invalid';
  const pinned = pins as Record<string, string>;
  return Object.hasOwn(pinned, project) ? pinned[project] : undefined;
}
