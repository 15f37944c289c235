// What the default sandbox's walks cost a command in a real-sized project (issue 30: "the default
// sandbox adds ~10 ms per command"; in a 30k-entry tree it was ~0.1 s): one workspace-write
// command through `runCommand` in a generated project of 2,000 directories and 30,000 files, with
// the process's reused directory listings (src/sandbox/directory-listings.ts) against the same
// command listing every directory afresh (what every command did before), and the same command on
// the host (`danger-full-access`, no walks, no bubblewrap). In-process: the walks are under test,
// not process start.

import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DirectoryListings } from '../../src/sandbox/directory-listings.js';
import { detectSandbox, runCommand, type SandboxSettings } from '../../src/sandbox/index.js';
import { median, withRatio, type BenchRow } from '../bench-table.js';

const quick = process.env.GLASSBOX_BENCH_QUICK === '1';
const RUNS = quick ? 5 : 15;
const DIRECTORIES = 2_000;
const FILES_PER_DIRECTORY = 15;
/** The listings trust a directory whose last change is older than this (RACY_MARGIN_MS, plus room). */
const SETTLE_MS = 2_200;

/** A tree shaped like a project with its dependencies: nested directories, a few files in each. */
function makeTree(root: string): void {
  for (let index = 0; index < DIRECTORIES; index += 1) {
    const dir = join(root, `pkg-${index % 40}`, `lib-${Math.floor(index / 40)}`);
    mkdirSync(dir, { recursive: true });
    for (let file = 0; file < FILES_PER_DIRECTORY; file += 1) writeFileSync(join(dir, `module-${file}.js`), 'export {};\n');
  }
  writeFileSync(join(root, 'README.md'), '# bench\nvalue\n');
}

export async function run(): Promise<BenchRow[]> {
  const availability = await detectSandbox();
  if (!availability.available || availability.path === null) throw new Error(`the sandbox bench needs bubblewrap: ${availability.reason}`);
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'glassbox-bench-walks-')));
  const root = join(base, 'project');
  const home = join(base, 'home');
  mkdirSync(home);
  makeTree(root);
  const made = Date.now();
  const sandbox: SandboxSettings = {
    bwrapPath: availability.path,
    mode: 'workspace-write',
    network: false,
    secretsApproved: false,
    homeDir: home,
    glassboxHome: join(home, '.glassbox'),
  };
  const shared = new DirectoryListings();
  const command = async (settings: SandboxSettings | null, listings: DirectoryListings): Promise<number> => {
    const started = performance.now();
    const result = await runCommand({
      command: 'grep -c value README.md',
      root,
      workdir: root,
      env: { PATH: process.env.PATH, HOME: home },
      sandbox: settings,
      timeoutMs: 30_000,
      listings,
    });
    if (result.exitCode !== 0) throw new Error(`bench command failed: ${result.output.text}`);
    return performance.now() - started;
  };
  try {
    const fresh: number[] = [];
    const reused: number[] = [];
    const host: number[] = [];
    // Until the tree has settled, every directory counts as just changed and is listed anyway.
    while (Date.now() - made < SETTLE_MS) fresh.push(await command(sandbox, new DirectoryListings()));
    const first = await command(sandbox, shared);
    for (let index = 0; index < RUNS; index += 1) {
      fresh.push(await command(sandbox, new DirectoryListings()));
      reused.push(await command(sandbox, shared));
      host.push(await command(null, shared));
    }
    const note = `${DIRECTORIES.toLocaleString('en-US')} directories, ${(DIRECTORIES * FILES_PER_DIRECTORY).toLocaleString('en-US')} files; median of ${RUNS}`;
    return [
      withRatio({
        group: 'sandbox walks',
        name: 'workspace-write command, listings reused',
        value: median(reused),
        unit: 'ms',
        baseline: { name: 'every directory listed afresh (before)', value: median(fresh) },
        note,
      }),
      withRatio({
        group: 'sandbox walks',
        name: 'workspace-write command, listings reused',
        value: median(reused),
        unit: 'ms',
        baseline: { name: 'the command on the host (full access)', value: median(host) },
      }),
      withRatio({
        group: 'sandbox walks',
        name: 'first command (every directory listed)',
        value: first,
        unit: 'ms',
        baseline: { name: 'listed afresh, median', value: median(fresh) },
      }),
    ];
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}
