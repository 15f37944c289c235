// One list of secret-file patterns, shared by the permission decision (reads of these files need
// approval), the command classifier (a literal secret path makes a command not known-safe) and the
// shell sandbox (which masks these files unless the call was approved). Keeping the globs as data
// lets the sandbox enumerate the same files the matcher recognises.

import picomatch from 'picomatch';

/**
 * Glob patterns (picomatch syntax, matched case-insensitively, dotfiles included) for files that
 * usually hold credentials. Each is anchored with `**\/` so it matches at any depth.
 */
export const SECRET_FILE_GLOBS: readonly string[] = [
  '**/.env',
  '**/.env.*',
  '**/*.pem',
  '**/*.key',
  '**/*.p12',
  '**/*.pfx',
  '**/*.jks',
  '**/*.keystore',
  '**/id_rsa*',
  '**/id_dsa*',
  '**/id_ecdsa*',
  '**/id_ed25519*',
  '**/.npmrc',
  '**/.pypirc',
  '**/.netrc',
  '**/_netrc',
  '**/.pgpass',
  '**/.htpasswd',
  '**/.git-credentials',
  '**/credentials*.json',
  '**/.aws/credentials',
  '**/.aws/config',
  '**/.docker/config.json',
  '**/.kube/config',
];

/** Public halves of key pairs match `id_rsa*` but are not secret. */
export const SECRET_FILE_EXCEPTIONS: readonly string[] = ['**/*.pub'];

const matcher = picomatch([...SECRET_FILE_GLOBS], {
  dot: true,
  nocase: true,
  ignore: [...SECRET_FILE_EXCEPTIONS],
});

/**
 * True when `path` (absolute or relative, `/` or `\` separators) names a likely secret file.
 * Only the name is inspected; nothing is read from disk.
 */
export function isSecretPath(path: string): boolean {
  if (path === '') return false;
  const normalized = path.replace(/\\/g, '/').replace(/\/+$/, '');
  return normalized !== '' && matcher(normalized);
}

/**
 * Each glob's last component as one case-insensitive regular expression: a name that fails it
 * cannot make its path a secret, whatever the directories above. The sandbox's scan reads every
 * entry of the project (node_modules too) and tests names with this before the full matcher,
 * which costs ten times as much. Derived from the globs, so it cannot fall behind them.
 */
const lastComponent = new RegExp(
  SECRET_FILE_GLOBS.map((glob) => {
    const name = glob.slice(glob.lastIndexOf('/') + 1);
    return `(?:${picomatch.makeRe(name, { dot: true, nocase: true }).source})`;
  }).join('|'),
  'i',
);

/** False when no path ending in this file name can be a secret file (see `isSecretPath`). */
export function maySecretFileName(name: string): boolean {
  return lastComponent.test(name);
}

/** Credential stores (and shell histories, which hold typed passwords) relative to $HOME, masked wherever they are shown. */
export const HOME_SECRET_PATHS: readonly string[] = [
  // .NET's per-user certificate store (the ASP.NET dev certificate's private key), uv's index tokens.
  '.dotnet/corefx/cryptography',
  '.local/share/uv/credentials',
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.kube',
  '.oci',
  '.config/gcloud',
  '.config/gh',
  '.config/hub',
  '.config/github-copilot',
  '.config/git/credentials',
  '.config/op',
  '.config/rclone/rclone.conf',
  '.docker',
  '.netrc',
  '.npmrc',
  '.yarnrc.yml',
  '.pypirc',
  '.pgpass',
  '.my.cnf',
  '.mylogin.cnf',
  '.s3cfg',
  '.boto',
  '.databrickscfg',
  '.git-credentials',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.gem/credentials',
  '.m2/settings.xml',
  '.m2/settings-security.xml',
  '.gradle/gradle.properties',
  '.ivy2/.credentials',
  '.sbt/.credentials',
  '.terraform.d/credentials.tfrc.json',
  '.terraformrc',
  '.password-store',
  '.local/share/keyrings',
  '.vault-token',
  '.codex',
  '.claude',
  '.claude.json',
  '.cache/huggingface/token',
  '.huggingface/token',
  '.bash_history',
  '.zsh_history',
  '.history',
  '.python_history',
  '.node_repl_history',
  '.psql_history',
  '.mysql_history',
  '.sqlite_history',
  '.local/share/fish/fish_history',
];
