// Commands run by the model inherit nothing from Glassbox's own environment except a short list of
// variables that programs need to behave normally. API keys, tokens and cloud credentials live in
// process.env of the harness; passing the environment through wholesale would hand them to any
// command the model writes.

const ALLOWED_NAMES: ReadonlySet<string> = new Set([
  'PATH',
  'HOME',
  'LANG',
  'LANGUAGE',
  'TERM',
  'TZ',
  'TMPDIR',
  'USER',
  'LOGNAME',
  'SHELL',
  'PWD',
]);

const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

// Without these, `git log`, `man` and friends open a pager and wait forever on a closed stdin,
// and colour codes waste the model's context.
const NON_INTERACTIVE: Readonly<Record<string, string>> = {
  NO_COLOR: '1',
  GIT_PAGER: 'cat',
  PAGER: 'cat',
  // `git status` and `git diff` otherwise refresh the index when a tracked file's stat data
  // changed: a write to .git by a command known to write nothing (in the sandbox .git is
  // read-only anyway; outside it the user's own index would change under them).
  GIT_OPTIONAL_LOCKS: '0',
};

const NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

function isAllowed(name: string): boolean {
  return ALLOWED_NAMES.has(name) || name.startsWith('LC_');
}

/**
 * The environment for a child command: the allowlisted variables from `env`, the non-interactive
 * settings, `GLASSBOX_SANDBOX` (`0` unless `extra` says otherwise), then `extra` on top (e.g.
 * `{ PWD: workdir, GLASSBOX_SANDBOX: '1' }`).
 */
export function buildChildEnvironment(env: NodeJS.ProcessEnv, extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && isAllowed(name)) result[name] = value;
  }
  if (result.PATH === undefined || result.PATH === '') result.PATH = DEFAULT_PATH;
  Object.assign(result, NON_INTERACTIVE);
  result.GLASSBOX_SANDBOX = '0';
  for (const [name, value] of Object.entries(extra)) {
    if (!NAME_PATTERN.test(name)) throw new Error(`Invalid environment variable name: ${JSON.stringify(name)}.`);
    if (typeof value !== 'string' || value.includes('\0')) {
      throw new Error(`Environment variable ${name} must be a string without NUL bytes.`);
    }
    result[name] = value;
  }
  if (result.GLASSBOX_SANDBOX !== '0' && result.GLASSBOX_SANDBOX !== '1') {
    throw new Error(`GLASSBOX_SANDBOX must be "0" or "1", got ${JSON.stringify(result.GLASSBOX_SANDBOX)}.`);
  }
  return result;
}
