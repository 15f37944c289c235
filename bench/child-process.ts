// Runs a command as a child process and measures wall time, peak RSS and CPU time. RSS and CPU come
// from the child itself (a preload writes them at exit), which is exact, unlike polling /proc; the
// CPU time is the child's own, not its children's (bash, bwrap, git).

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const USAGE_PRELOAD = fileURLToPath(new URL('./report-usage.cjs', import.meta.url));

export interface ChildResult {
  code: number | null;
  ms: number;
  peakRssKb: number | null;
  /** User + system CPU of the child process (all its threads), when measured. */
  cpuMs: number | null;
  stdout: string;
  stderr: string;
}

export function runChild(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; measureUsage?: boolean } = {},
): Promise<ChildResult> {
  const dir = mkdtempSync(join(tmpdir(), 'glassbox-bench-'));
  const usageFile = join(dir, 'usage');
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env };
  if (options.measureUsage) {
    env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ''} --require ${USAGE_PRELOAD}`.trim();
    env.GLASSBOX_BENCH_USAGE_FILE = usageFile;
  }
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { env, cwd: options.cwd ?? REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - started;
      let peakRssKb: number | null = null;
      let cpuMs: number | null = null;
      try {
        const [rss, cpuMicros] = readFileSync(usageFile, 'utf8').split(' ').map(Number);
        peakRssKb = rss ?? null;
        cpuMs = cpuMicros === undefined ? null : cpuMicros / 1000;
      } catch {
        // Not measured, or the child died before its exit handler ran.
      }
      rmSync(dir, { recursive: true, force: true });
      resolve({ code, ms, peakRssKb, cpuMs, stdout, stderr });
    });
  });
}

/**
 * Compile a bench TypeScript file to plain ESM next to the repo's node_modules, so a baseline child
 * process pays no TypeScript loader at start-up (Glassbox itself runs from compiled dist/).
 */
export async function compileForChild(tsFile: string): Promise<string> {
  const { buildSync } = await import('esbuild');
  const outfile = join(REPO_ROOT, 'bench', '.build', `${tsFile.split('/').pop()!.replace(/\.ts$/, '')}.mjs`);
  buildSync({ entryPoints: [tsFile], outfile, format: 'esm', platform: 'node', bundle: false, logLevel: 'error' });
  return outfile;
}
