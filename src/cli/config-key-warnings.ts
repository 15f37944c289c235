// Unknown top-level keys in the config files. Each part of Glassbox reads only its own section
// (`models`, `compaction`, `mcpServers`, `sandbox`…) and leaves the rest alone, so a key nobody
// reads — a typo, or a setting from another tool such as Codex's `"model": "gpt-5"` — would do
// nothing without a word. Warned about before a run, naming the file and the nearest known key.
// Only warnings: a file that cannot be read or parsed is reported by the readers themselves.

import { join } from 'node:path';
import { visibleText } from '../terminal-text/index.js';
import { readProjectFile } from '../workspace/index.js';

/** Every top-level key of `<home>/config.json` some part of Glassbox reads (docs: README, Configuration). */
export const USER_CONFIG_KEYS: readonly string[] = [
  'models',
  'modelSettings',
  'compaction',
  'mcpServers',
  'projectMcpServers',
  'sandbox',
  'permissions',
  'projectPermissionRules',
  'database',
  'server',
];

/** A project's `.glassbox/config.json` may only add MCP servers and permission rules (docs/permissions.md). */
export const PROJECT_CONFIG_KEYS: readonly string[] = ['mcpServers', 'permissions'];

/** What a key written for another tool means here, where the nearest key alone would mislead. */
const HINTS: Readonly<Record<string, string>> = {
  model: 'the model itself is chosen with -m/--model or GLASSBOX_MODEL; "models" overrides catalog entries',
};

/** The warnings for both files; never rejects. */
export async function configKeyWarnings(home: string, root: string): Promise<string[]> {
  const userPath = join(home, 'config.json');
  const projectPath = join(root, '.glassbox', 'config.json');
  const [user, project] = await Promise.all([topLevelKeys(userPath, null), topLevelKeys(projectPath, root)]);
  const warnings: string[] = [];
  const userKeys = USER_CONFIG_KEYS;
  for (const key of user) {
    if (!userKeys.includes(key)) warnings.push(unknownKey(userPath, key, userKeys));
  }
  for (const key of project) {
    if (PROJECT_CONFIG_KEYS.includes(key)) continue;
    warnings.push(
      userKeys.includes(key)
        ? `${projectPath}: "${key}" is read only from ${userPath}, never from a project's config; it is ignored here`
        : unknownKey(projectPath, key, PROJECT_CONFIG_KEYS),
    );
  }
  // Keys are the file's text (a repository's, for the project file): shown, never obeyed.
  return warnings.map((warning) => visibleText(warning));
}

function unknownKey(path: string, key: string, known: readonly string[]): string {
  const nearest = nearestKey(key, known);
  const suggestion = nearest === null ? `known settings: ${known.join(', ')}` : `did you mean "${nearest}"?`;
  const hint = Object.hasOwn(HINTS, key) ? `; ${HINTS[key]}` : '';
  return `${path}: unknown setting ${JSON.stringify(key)} is ignored (${suggestion}${hint})`;
}

async function topLevelKeys(path: string, root: string | null): Promise<string[]> {
  try {
    const text = await readProjectFile(path, { root });
    if (text === null) return [];
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.keys(value) : [];
  } catch {
    return [];
  }
}

/** Case, `_` and `-` aside: `mcp_servers` is `mcpServers` written another way. */
function fold(key: string): string {
  return key.toLowerCase().replace(/[_-]/g, '');
}

/** The known key closest in edit distance, when it is close enough to be what was meant. */
export function nearestKey(key: string, known: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of known) {
    const distance = editDistance(fold(key), fold(candidate));
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  // A third of the longer name: `sandbx` → `sandbox`, but `approval_policy` → nothing.
  return best !== null && bestDistance <= Math.max(1, Math.floor(Math.max(key.length, best.length) / 3)) ? best : null;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
