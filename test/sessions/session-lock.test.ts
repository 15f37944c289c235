import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { JsonlSessionStore, SessionLockedError } from '../../src/sessions/index.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { META, itemRecord, user } from './session-fixtures.js';
import { buildReady } from '../helpers/build-ready.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
// The holder is another process, so it loads the compiled store (`npm test` rebuilds dist/, and this file waits for it):
// starting one through tsx would compile the sources again, about three times the CPU.
const storeModule = new URL('../../dist/sessions/index.js', import.meta.url).href;
await buildReady();

// The child opens the session for append (taking the lock), says so, then either waits for its
// stdin to close (and closes the writer), exits without closing, or dies by SIGKILL.
const HOLDER = `
const { JsonlSessionStore } = await import(process.env.STORE_MODULE);
const store = new JsonlSessionStore(process.env.SESSIONS_DIR);
const writer = await store.openForAppend(process.env.SESSION_ID);
process.stdout.write('locked\\n');
if (process.env.MODE === 'crash') process.kill(process.pid, 'SIGKILL');
if (process.env.MODE === 'exit') process.exit(0);
process.stdin.on('data', () => {});
process.stdin.on('end', () => { writer.close().then(() => process.stdout.write('closed\\n')); });
`;

interface Holder {
  child: ChildProcess;
  exited: Promise<number | null>;
  output: () => string;
}

async function startHolder(dir: string, sessionId: string, mode: 'hold' | 'exit' | 'crash'): Promise<Holder> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', HOLDER], {
    cwd: repoRoot,
    env: { ...process.env, STORE_MODULE: storeModule, SESSIONS_DIR: dir, SESSION_ID: sessionId, MODE: mode },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const onData = () => {
      if (stdout.includes('locked\n')) {
        child.stdout?.off('data', onData);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    void exited.then(() => (stdout.includes('locked\n') ? resolve() : reject(new Error(`holder exited early: ${stderr}`))));
  });
  return { child, exited, output: () => stdout };
}

async function createSession(dir: string): Promise<string> {
  const store = new JsonlSessionStore(dir);
  const writer = await store.create(META);
  await writer.append(itemRecord(1, user('hi')));
  await writer.close();
  return writer.sessionId;
}

describe('session lock', () => {
  it('lets one process write and makes a second writer fail fast, naming the holder', async () => {
    await withTempDir(async (dir) => {
      const sessionId = await createSession(dir);
      const holder = await startHolder(dir, sessionId, 'hold');
      try {
        const store = new JsonlSessionStore(dir);
        await assert.rejects(store.openForAppend(sessionId), (error: unknown) => {
          assert.ok(error instanceof SessionLockedError);
          assert.equal(error.owner?.pid, holder.child.pid);
          assert.equal(error.owner?.host, hostname());
          assert.match(error.message, new RegExp(`in use by pid ${holder.child.pid} on host `));
          return true;
        });
      } finally {
        holder.child.stdin?.end();
        assert.equal(await holder.exited, 0);
      }
      assert.match(holder.output(), /closed/);
      assert.equal(existsSync(join(dir, `${sessionId}.lock`)), false);
      const writer = await new JsonlSessionStore(dir).openForAppend(sessionId);
      await writer.close();
    });
  });

  it('releases the lock when the holding process exits without closing', async () => {
    await withTempDir(async (dir) => {
      const sessionId = await createSession(dir);
      const holder = await startHolder(dir, sessionId, 'exit');
      assert.equal(await holder.exited, 0);
      assert.equal(existsSync(join(dir, `${sessionId}.lock`)), false);
    });
  });

  it('takes over a stale lock left by a process that died', async () => {
    await withTempDir(async (dir) => {
      const sessionId = await createSession(dir);
      const holder = await startHolder(dir, sessionId, 'crash');
      await holder.exited;
      const lockPath = join(dir, `${sessionId}.lock`);
      const stale = JSON.parse(await readFile(lockPath, 'utf8')) as { pid: number };
      assert.equal(stale.pid, holder.child.pid, 'SIGKILL left the lock behind');

      const writer = await new JsonlSessionStore(dir).openForAppend(sessionId);
      try {
        const current = JSON.parse(await readFile(lockPath, 'utf8')) as { pid: number; host: string };
        assert.deepEqual([current.pid, current.host], [process.pid, hostname()]);
        await writer.append(itemRecord(1, user('after takeover')));
      } finally {
        await writer.close();
      }
    });
  });

  it('never takes over a lock from another host', async () => {
    await withTempDir(async (dir) => {
      const sessionId = await createSession(dir);
      const owner = { pid: 1234567, host: 'elsewhere.invalid', startedAt: '2025-01-01T00:00:00.000Z' };
      await writeFile(join(dir, `${sessionId}.lock`), JSON.stringify(owner));
      await assert.rejects(new JsonlSessionStore(dir).openForAppend(sessionId), (error: unknown) => {
        assert.ok(error instanceof SessionLockedError);
        assert.deepEqual(error.owner, owner);
        assert.match(error.message, /pid 1234567 on host elsewhere\.invalid/);
        return true;
      });
    });
  });

  it('waits out an unreadable lock that may still be being written, then takes it over', async () => {
    await withTempDir(async (dir) => {
      const sessionId = await createSession(dir);
      const lockPath = join(dir, `${sessionId}.lock`);
      await writeFile(lockPath, '');
      const store = new JsonlSessionStore(dir);
      await assert.rejects(store.openForAppend(sessionId), (error: unknown) => error instanceof SessionLockedError && error.owner === null);
      const past = new Date(Date.now() - 60_000);
      await utimes(lockPath, past, past);
      const writer = await store.openForAppend(sessionId);
      await writer.close();
    });
  });
});
