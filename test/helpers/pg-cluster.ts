// A throwaway PostgreSQL cluster for one test file: `initdb` into a temp dir and `pg_ctl start`
// listening only on a unix socket in that dir (no TCP port to collide on). PostgreSQL refuses to
// run as root, so as root the cluster belongs to the `postgres` system user (Debian's package makes
// one). Missing binaries skip the test on a laptop and fail it under CI=1 (.ci/run installs them).

import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface PgCluster {
  /** Socket directory; the URL of a database is `postgres://glassbox@/<db>?host=<dir>`. */
  readonly socketDir: string;
  /** A fresh, empty database in the cluster, for one test. */
  newDatabase(): Promise<string>;
  /** The URL of a database by name. */
  urlFor(database: string): string;
  stop(): Promise<void>;
  /** Stop the server as a crash would (`pg_ctl stop -m immediate`), keeping the data: every connection drops. */
  pause(): Promise<void>;
  /** Start the paused server again on the same socket. */
  resume(): Promise<void>;
}

function findBinDir(): string | null {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir !== '' && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  }
  // Debian keeps the server binaries off PATH, one directory per major version.
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((name) => existsSync(join(root, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? null : join(root, versions[0], 'bin');
}

async function userIds(name: string): Promise<{ uid: number; gid: number } | null> {
  try {
    const uid = Number((await run('id', ['-u', name])).stdout.trim());
    const gid = Number((await run('id', ['-g', name])).stdout.trim());
    return { uid, gid };
  } catch {
    return null;
  }
}

/**
 * Start a cluster, stopped in `t.after`; null when PostgreSQL is not installed (the test is then
 * skipped, except under CI where that is a failure).
 */
export async function startPgCluster(t: TestContext): Promise<PgCluster | null> {
  const binDir = findBinDir();
  if (binDir === null) {
    const why = 'PostgreSQL (initdb, pg_ctl) is not installed: apt-get install postgresql';
    if (process.env.CI) throw new Error(why);
    t.skip(why);
    return null;
  }
  const cluster = await launchPgCluster(binDir, (stop) => t.after(stop));
  return cluster;
}

/** The bench's way in: a cluster, or null without PostgreSQL; the caller stops it. */
export async function launchPgCluster(
  binDir: string | null = findBinDir(),
  onStarting: (stop: () => Promise<void>) => void = () => {},
): Promise<PgCluster | null> {
  if (binDir === null) return null;
  const asRoot = process.getuid?.() === 0;
  const dir = await mkdtemp(join(tmpdir(), 'gb-pg-'));
  const data = join(dir, 'data');
  let prefix: string[] = [];
  if (asRoot) {
    const ids = await userIds('postgres');
    if (ids === null) throw new Error('running as root and no `postgres` user to run PostgreSQL as (initdb refuses root)');
    await chown(dir, ids.uid, ids.gid);
    prefix = ['runuser', '-u', 'postgres', '--'];
  }
  const exec = (bin: string, args: string[]) => {
    const command = [...prefix, join(binDir, bin), ...args];
    return run(command[0]!, command.slice(1), { cwd: dir });
  };
  const cleanup = () => rm(dir, { recursive: true, force: true });
  let started = false;
  const stop = async () => {
    if (started) {
      started = false;
      await exec('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
    }
    await cleanup();
  };
  onStarting(stop);
  await exec('initdb', ['-D', data, '-A', 'trust', '-U', 'glassbox', '-E', 'UTF8', '--no-locale', '--no-sync']);
  // No TCP (listen_addresses empty), the socket in our own dir, fsync off: a test cluster.
  const startServer = async () => {
    await exec('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-o', `-c listen_addresses= -k ${dir} -F`, 'start']);
    started = true;
  };
  await startServer();

  const urlFor = (database: string) => `postgres://glassbox@/${database}?host=${encodeURIComponent(dir)}`;
  let databases = 0;
  return {
    socketDir: dir,
    urlFor,
    async newDatabase() {
      databases += 1;
      const name = `test_${databases}`;
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString: urlFor('postgres') });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return urlFor(name);
    },
    stop,
    async pause() {
      started = false;
      await exec('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    },
    resume: startServer,
  };
}
