// What of the host a sandboxed command sees. The sandbox starts from an empty root and shows an
// allowlist, read-only: the system trees programs run from, the toolchain directories under the
// home directory, the PATH and Node directories that lie elsewhere, and what the user's own
// config adds. Everything else (the rest of the home directory, other users' homes, other
// projects, /run and $XDG_RUNTIME_DIR with their sockets, /var, /srv, /mnt) is simply absent, so a
// new credential store or a new host socket is hidden without anyone listing it. Finding what to
// show needs the file system (realpath, lstat); turning it into bwrap arguments stays pure.

import { lstat, readFile, readdir, readlink, realpath, stat } from 'node:fs/promises';
import { basename, delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { isInside } from '../workspace/index.js';
import { HOME_SECRET_PATHS, presentUnder } from './protected-paths.js';

export type HostMount =
  /** A host file or directory bound read-only at its own real path. */
  | { kind: 'ro-bind'; path: string }
  /** A symlink made in the sandbox, pointing where the host's does. */
  | { kind: 'symlink'; path: string; target: string };

export interface HostView {
  /** The system trees (/usr, /etc, …) and the top-level links between them (/bin → usr/bin). */
  system: HostMount[];
  /** Empty read-only tmpfs mounts before the extras: the home directory (by name, and by real path inside a system tree). */
  covered: string[];
  /** Toolchain, PATH, Node and configured directories at their real paths, linked from the names they are known by. */
  extras: HostMount[];
  /**
   * The git work tree the root lies in, when it is larger than the root (a package of a monorepo)
   * and shown read-only so git sees the whole repository; its secret files need masking too.
   */
  enclosingWorkTree: string | null;
}

/** Read-only as a whole: what programs, their libraries and the system configuration are made of. */
export const SYSTEM_TREES: readonly string[] = [
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/etc',
  '/opt',
  '/sys',
  '/nix',
  '/gnu',
];

/** Private, empty and writable in every sandbox; the host's are never shown. */
export const PRIVATE_DIRECTORIES: readonly string[] = ['/tmp', '/var/tmp'];

/** An empty, read-only tmpfs: the host's /run (and /var/run, a link to it) holds the sockets of host services. */
export const RUNTIME_DIRECTORY = '/run';

/**
 * Shown read-only under the home directory when they exist: what compilers, interpreters, package
 * managers and version managers run from or read their caches from, so `npm test`, `cargo test`,
 * `pytest` and `go test` work as on the host. Each is a tool's own tree, not a place people keep
 * documents or keys; the credential files some of them can hold (`.cargo/credentials.toml`,
 * `.m2/settings.xml`, `.gradle/gradle.properties`, …) are in HOME_SECRET_PATHS and stay masked.
 * `~/.gitconfig` is shown because git needs `safe.directory` and the user's aliases; a token
 * written into it (url.*.insteadOf, http.extraHeader) is therefore visible (docs/permissions.md).
 */
export const HOME_TOOLCHAIN_PATHS: readonly string[] = [
  // git
  '.gitconfig',
  '.config/git',
  // JavaScript
  '.nvm',
  '.volta',
  '.fnm',
  '.local/share/fnm',
  '.npm',
  '.local/share/pnpm',
  '.yarn',
  '.cache/yarn',
  '.bun',
  '.deno',
  '.cache/deno',
  '.cache/node',
  '.cache/node-gyp',
  '.cache/ms-playwright',
  '.cache/puppeteer',
  '.cache/Cypress',
  // Python
  '.pyenv',
  '.local/bin',
  '.local/lib',
  '.local/share/pipx',
  '.local/share/uv',
  '.local/share/virtualenvs',
  '.cache/pip',
  '.cache/uv',
  '.cache/pypoetry',
  '.cache/pre-commit',
  '.conda',
  'miniconda3',
  'miniforge3',
  'anaconda3',
  // Rust, Go
  '.cargo',
  '.rustup',
  'go',
  '.cache/go-build',
  // JVM
  '.gradle',
  '.m2',
  '.sdkman',
  '.ivy2',
  '.sbt',
  '.cache/coursier',
  // Ruby, .NET, Haskell, Lean, version managers
  '.rbenv',
  '.rvm',
  '.gem',
  '.local/share/gem',
  '.dotnet',
  '.nuget/packages',
  '.ghcup',
  '.elan',
  '.asdf',
  '.local/share/mise',
  '.proto',
];

/** Never shown, nor anything in them or containing them: where host services keep their sockets. */
const SOCKET_TREES: readonly string[] = ['/run', '/var/run', '/var/lock', '/proc', '/dev'];

/** Never shown, nor anything that contains them: every user's home directory. */
const HOME_TREES: readonly string[] = ['/home', '/root'];

export interface HostViewOptions {
  /** Real path of the project root (shown separately, writable or not by the mode). */
  root: string;
  homeDir: string;
  glassboxHome: string;
  /** The PATH the command gets. */
  searchPath: string;
  /** The Node binary running Glassbox (`process.execPath`). */
  nodeBinary: string;
  /** The host's $XDG_RUNTIME_DIR, if set. */
  runtimeDir?: string;
  network: boolean;
  /** Absolute paths from the user's config (`sandbox.readablePaths`); a refused one is an error. */
  readablePaths: readonly string[];
}

async function realOrNull(path: string): Promise<string | null> {
  try {
    return await realpath(path);
  } catch {
    return null;
  }
}

/** The length of the longest entry of `list` containing `path`, or -1. */
function deepest(path: string, list: readonly string[]): number {
  let best = -1;
  for (const entry of list) if (entry.length > best && isInside(entry, path)) best = entry.length;
  return best;
}

interface Guard {
  home: string;
  /** SOCKET_TREES and $XDG_RUNTIME_DIR, by name and by real path. */
  sockets: string[];
  glassboxHome: string;
  secrets: string[];
}

/** Why `real` (the real path of `name`) must not be shown, or null. Checked after realpath, so no link can dodge it. */
function refusal(real: string, guard: Guard, name: string): string | null {
  if (real === '/') return 'it is the whole file system';
  if (isInside(real, guard.home)) return 'it is or contains the home directory';
  if (HOME_TREES.some((tree) => isInside(real, tree))) return "it is or contains users' home directories";
  for (const tree of guard.sockets) {
    if (isInside(real, tree) || isInside(tree, real)) return `it is, contains or lies in ${tree}, where host services keep sockets`;
  }
  // A directory of its own inside a shared temporary directory is allowed (the socket check below
  // still applies); the shared directory itself holds other programs' sockets (X11, tmux, ssh-agent).
  for (const tree of PRIVATE_DIRECTORIES) if (isInside(real, tree)) return `it is or contains ${tree}`;
  if (isInside(real, guard.glassboxHome) || isInside(guard.glassboxHome, real)) return "it is, contains or lies in Glassbox's home";
  if (guard.secrets.some((secret) => isInside(secret, real) || isInside(secret, name))) return 'it lies in a credential store';
  return null;
}

/** A Unix socket directly in `real`, named in the refusal; null when there is none. */
async function socketRefusal(real: string): Promise<string | null> {
  const info = await stat(real).catch(() => null);
  if (info?.isDirectory()) {
    const entries = await readdir(real, { withFileTypes: true }).catch(() => []);
    const socket = entries.find((entry) => entry.isSocket());
    if (socket !== undefined) return `it holds a Unix socket (${socket.name})`;
  }
  return null;
}

class ViewBuilder {
  readonly system: HostMount[] = [];
  readonly covered: string[] = [];
  readonly extras: HostMount[] = [];
  /** Real paths bound read-only. */
  private readonly shown: string[] = [];
  /** Tmpfs mounts that hide what is below them. */
  private readonly hidden: string[] = [...PRIVATE_DIRECTORIES, RUNTIME_DIRECTORY];
  /** Links made in the sandbox: name → real target. */
  private readonly links = new Map<string, string>();

  constructor(private readonly root: string) {}

  showSystem(path: string): void {
    this.system.push({ kind: 'ro-bind', path });
    this.shown.push(path);
  }

  linkSystem(path: string, target: string, realTarget: string): void {
    this.system.push({ kind: 'symlink', path, target });
    this.links.set(path, realTarget);
  }

  cover(path: string): void {
    if (this.covered.includes(path)) return;
    this.covered.push(path);
    this.hidden.push(path);
  }

  /** A real path the sandbox shows as on the host. */
  visible(real: string): boolean {
    if (isInside(this.root, real)) return true;
    return deepest(real, this.shown) > deepest(real, this.hidden);
  }

  /** A name (as in PATH or $HOME) that already leads somewhere in the sandbox. */
  resolvable(name: string): boolean {
    if (this.visible(name)) return true;
    for (const [link, target] of this.links) {
      if (isInside(link, name) && this.visible(join(target, name.slice(link.length)))) return true;
    }
    return false;
  }

  /** Show `real` at its own path and, when it is known by another name, link that name to it. */
  addExtra(name: string, real: string): void {
    if (!this.visible(real)) {
      this.extras.push({ kind: 'ro-bind', path: real });
      this.shown.push(real);
    }
    if (name !== real && !this.resolvable(name) && !isInside(this.root, name)) {
      this.extras.push({ kind: 'symlink', path: name, target: real });
      this.links.set(name, real);
    }
  }
}

interface SystemLayout {
  trees: Array<{ tree: string; link: null } | { tree: string; link: { target: string; real: string; shownToo: boolean } }>;
  /** SOCKET_TREES by name and by real path. */
  socketTrees: string[];
}

let systemLayout: Promise<SystemLayout> | null = null;

/** The system trees and where the socket trees really are: the same for every command of a process, so looked up once. */
function findSystemLayout(): Promise<SystemLayout> {
  systemLayout ??= (async () => {
    const trees = await Promise.all(
      SYSTEM_TREES.map(async (tree): Promise<SystemLayout['trees'][number] | null> => {
        const info = await lstat(tree).catch(() => null);
        if (info?.isDirectory()) return { tree, link: null };
        if (!info?.isSymbolicLink()) return null;
        // Merged /usr: /bin → usr/bin. Made as a link, so the tree behind it is not bound twice.
        const [target, real] = await Promise.all([readlink(tree), realOrNull(tree)]);
        if (real === null) return null;
        const inTree = SYSTEM_TREES.some((other) => other !== tree && isInside(other, real));
        return { tree, link: { target, real, shownToo: !inTree && (await socketRefusal(real)) === null } };
      }),
    );
    const socketTrees = new Set(SOCKET_TREES);
    for (const real of await Promise.all(SOCKET_TREES.map(realOrNull))) if (real !== null) socketTrees.add(real);
    return { trees: trees.filter((entry) => entry !== null), socketTrees: [...socketTrees] };
  })();
  return systemLayout;
}

interface Inspection {
  real: string | null;
  why: string | null;
  /** Whether it directly holds a Unix socket (looked up only for what is not in a system tree). */
  socket: Promise<string | null>;
}

/** What to show of the host for one command. Throws only for a refused `readablePaths` entry. */
export async function findHostView(options: HostViewOptions): Promise<HostView> {
  const builder = new ViewBuilder(options.root);
  const homeDir = resolve(options.homeDir);
  const runtimeDir = options.runtimeDir !== undefined && isAbsolute(options.runtimeDir) ? resolve(options.runtimeDir) : null;
  const names = pathDirectories(options.searchPath, options.nodeBinary);
  // Every lookup at once (each is a trip to the thread pool, and every sandboxed command waits).
  const [layout, home, glassboxHome, runtimeReal, toolchains, repository] = await Promise.all([
    findSystemLayout(),
    realOrNull(homeDir),
    realOrNull(options.glassboxHome),
    runtimeDir === null ? null : realOrNull(runtimeDir),
    presentUnder(homeDir, HOME_TOOLCHAIN_PATHS),
    findRepository(options.root),
  ]);
  const realHome = home ?? homeDir;
  const guard: Guard = {
    home: realHome,
    sockets: [...layout.socketTrees, ...(runtimeDir === null ? [] : [runtimeDir]), ...(runtimeReal === null ? [] : [runtimeReal])],
    glassboxHome: glassboxHome ?? resolve(options.glassboxHome),
    // By name under both the home directory's name and its real path; a store that is itself a
    // link elsewhere is still masked wherever it is shown (protected-paths.ts).
    secrets: HOME_SECRET_PATHS.flatMap((entry) => [join(homeDir, entry), join(realHome, entry)]),
  };
  const inSystemTree = (real: string): boolean => SYSTEM_TREES.some((tree) => isInside(tree, real));
  const inspections = new Map<string, Promise<Inspection>>();
  const inspect = (name: string): Promise<Inspection> => {
    let found = inspections.get(name);
    if (found === undefined) {
      found = realOrNull(name).then((real) => {
        const why = real === null ? null : refusal(real, guard, name);
        const socket = real === null || why !== null || inSystemTree(real) ? Promise.resolve(null) : socketRefusal(real);
        return { real, why, socket };
      });
      inspections.set(name, found);
    }
    return found;
  };
  for (const entry of toolchains) void inspect(join(homeDir, entry));
  // A PATH directory in a system tree or a toolchain directory is shown with it: not looked up.
  const shownByName = [...SYSTEM_TREES, ...toolchains.map((entry) => join(homeDir, entry))];
  for (const name of names) if (!shownByName.some((tree) => isInside(tree, name))) void inspect(name);

  for (const { tree, link } of layout.trees) {
    if (link === null) {
      builder.showSystem(tree);
    } else {
      if (link.shownToo && !builder.visible(link.real) && refusal(link.real, guard, tree) === null) builder.showSystem(link.real);
      builder.linkSystem(tree, link.target, link.real);
    }
  }
  // The home directory is an empty, read-only tmpfs with the toolchains shown on top: hidden even
  // where it lies inside a system tree (HOME=/opt/app) or a private /tmp. Never over a system tree
  // itself or the project.
  const coverable = (dir: string): boolean => !isInside(options.root, dir) && !SYSTEM_TREES.some((tree) => isInside(dir, tree));
  if (coverable(realHome) && inSystemTree(realHome)) builder.cover(realHome);
  if (coverable(homeDir) && !builder.resolvable(homeDir)) builder.cover(homeDir);

  const tryAdd = async (name: string): Promise<string | null> => {
    if (isInside(options.root, name) || builder.resolvable(name)) return null;
    const { real, why, socket } = await inspect(name);
    if (real === null) return null;
    const refused = why ?? (builder.visible(real) ? null : await socket);
    if (refused === null) builder.addExtra(name, real);
    return refused;
  };

  let enclosingWorkTree: string | null = null;
  if (repository !== null) {
    // A worktree's or submodule's git directory lives elsewhere (`.git` is a `gitdir:` file), and
    // so may the root's repository: git in the sandbox needs them, read-only like any .git.
    const refused = repository.workTree === options.root ? null : await tryAdd(repository.workTree);
    if (refused === null) {
      if (repository.workTree !== options.root) enclosingWorkTree = repository.workTree;
      for (const dir of repository.gitDirs) await tryAdd(dir);
    }
  }
  for (const entry of toolchains) await tryAdd(join(homeDir, entry));
  for (const name of names) await tryAdd(name);
  for (const path of options.readablePaths) {
    if (!isAbsolute(path)) throw new Error(`sandbox.readablePaths: ${JSON.stringify(path)} is not an absolute path.`);
    const why = await tryAdd(resolve(path));
    if (why !== null) throw new Error(`sandbox.readablePaths: ${path} cannot be shown in the sandbox: ${why}.`);
  }
  if (options.network) await addResolver(builder);
  return { system: builder.system, covered: builder.covered, extras: builder.extras, enclosingWorkTree };
}

interface Repository {
  /** Real path of the work tree (the directory holding `.git`). */
  workTree: string;
  /** Where a `gitdir:` file leads, and that git directory's common directory (worktrees). */
  gitDirs: string[];
}

/**
 * The repository git finds from `root`, the way it finds it: the nearest `.git` at or above it.
 * A `gitdir:` file is followed only when the git directory names this work tree back (a
 * worktree's `gitdir` file, a submodule's `core.worktree`), since the project can write the
 * pointer and must not choose what of the host the sandbox shows.
 */
async function findRepository(root: string): Promise<Repository | null> {
  for (let dir = root; ; dir = dirname(dir)) {
    const dotGit = join(dir, '.git');
    const info = await lstat(dotGit).catch(() => null);
    // A symlinked `.git` ends the search too (git would follow it; the sandbox shows nothing for it).
    if (info?.isDirectory() || info?.isSymbolicLink()) return { workTree: dir, gitDirs: [] };
    if (info?.isFile()) {
      const pointer = /^gitdir:\s*(.+)$/m.exec(await readSmallFile(dotGit));
      if (pointer === null) return { workTree: dir, gitDirs: [] };
      const gitDir = (await realOrNull(resolve(dir, pointer[1]!.trim()))) ?? '';
      // A git directory inside the project is the project's own writing (a planted `.git` file
      // and the directory it names): it is shown as part of the project, and nothing it names
      // (`commondir`) decides what else of the host the sandbox shows.
      if (gitDir === '' || isInside(root, gitDir) || !(await namesWorkTree(gitDir, dir))) return { workTree: dir, gitDirs: [] };
      const common = (await readSmallFile(join(gitDir, 'commondir'))).trim();
      const named = common === '' ? null : await realOrNull(resolve(gitDir, common));
      // A worktree's git directory lives in its repository's (`<common>/worktrees/<name>`).
      const commonDir = named !== null && isInside(named, gitDir) ? named : null;
      // The common directory first: it contains a worktree's git directory, which it then shows too.
      return { workTree: dir, gitDirs: commonDir === null ? [gitDir] : [commonDir, gitDir] };
    }
    if (dirname(dir) === dir) return null;
  }
}

async function namesWorkTree(gitDir: string, workTree: string): Promise<boolean> {
  const same = async (path: string): Promise<boolean> => (await realOrNull(path)) === (await realOrNull(workTree));
  const back = (await readSmallFile(join(gitDir, 'gitdir'))).trim();
  if (back !== '' && (await same(dirname(resolve(gitDir, back))))) return true;
  const worktree = /^\s*worktree\s*=\s*(.+?)\s*$/m.exec(await readSmallFile(join(gitDir, 'config')));
  return worktree !== null && (await same(resolve(gitDir, worktree[1]!)));
}

/** The start of a small git pointer file; empty when it cannot be read. */
async function readSmallFile(path: string): Promise<string> {
  const info = await stat(path).catch(() => null);
  if (info === null || !info.isFile() || info.size > 65_536) return '';
  return readFile(path, 'utf8').catch(() => '');
}

/** PATH's absolute directories and the Node binary's, with the `lib/node_modules` beside it where npm lives. */
function pathDirectories(searchPath: string, nodeBinary: string): string[] {
  const names = searchPath.split(delimiter).filter((entry) => isAbsolute(entry));
  if (isAbsolute(nodeBinary)) {
    const bin = dirname(nodeBinary);
    names.push(bin);
    if (basename(bin) === 'bin') names.push(join(dirname(bin), 'lib', 'node_modules'));
  }
  return [...new Set(names.map((name) => resolve(name)))];
}

/**
 * With network on, DNS needs /etc/resolv.conf, which on systemd-resolved and NetworkManager hosts
 * is a link into /run. Only that one regular file is shown, never its directory (systemd-resolved
 * keeps its varlink socket beside it).
 */
async function addResolver(builder: ViewBuilder): Promise<void> {
  const real = await realOrNull('/etc/resolv.conf');
  if (real === null || builder.visible(real)) return;
  const info = await stat(real).catch(() => null);
  if (info?.isFile()) builder.addExtra(real, real);
}
