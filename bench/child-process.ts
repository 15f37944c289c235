// Runs a command as a child process and measures wall time and peak RSS. Peak RSS comes from the
// child itself (a preload writes process.resourceUsage().maxRSS at exit), which is exact, unlike
// polling /proc.

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const RSS_PRELOAD = fileURLToPath(new URL('./report-rss.cjs', import.meta.url));

export interface ChildResult {
  code: number | null;
  ms: number;
  peakRssKb: number | null;
  stdout: string;
  stderr: string;
}

export function runChild(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; measureRss?: boolean } = {},
): Promise<ChildResult> {
  const dir = mkdtempSync(join(tmpdir(), 'glassbox-bench-'));
  const rssFile = join(dir, 'rss');
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env };
  if (options.measureRss) {
    env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ''} --require ${RSS_PRELOAD}`.trim();
    env.GLASSBOX_BENCH_RSS_FILE = rssFile;
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
      try {
        peakRssKb = Number(readFileSync(rssFile, 'utf8'));
      } catch {
        peakRssKb = null;
      }
      rmSync(dir, { recursive: true, force: true });
      resolve({ code, ms, peakRssKb, stdout, stderr });
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
