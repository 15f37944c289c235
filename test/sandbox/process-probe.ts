// Helpers for asserting that commands leave no process behind. A zombie is not running, so it is
// not counted, whoever ends up reaping it.

import { readFileSync, readdirSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';

export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Pids of live processes whose command line contains `marker` (arguments joined by spaces). */
export function processesWithMarker(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid) continue;
    let commandLine: string;
    try {
      commandLine = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ');
    } catch {
      continue;
    }
    if (commandLine.includes(marker) && isRunning(pid)) found.push(pid);
  }
  return found;
}

/**
 * Waits (bounded) until `check` returns an empty list. Killing is asynchronous in the kernel, so a
 * short settle time is allowed; what fails the test is a process that is still there afterwards.
 */
export async function settled(check: () => number[], limitMs = 3_000): Promise<number[]> {
  const deadline = Date.now() + limitMs;
  let left = check();
  while (left.length > 0 && Date.now() < deadline) {
    await delay(25);
    left = check();
  }
  return left;
}

/** The numbers printed after `label:` in `text`, e.g. `child:1234`. */
export function printedPids(text: string, label: string): number[] {
  return [...text.matchAll(new RegExp(`${label}:(\\d+)`, 'g'))].map((match) => Number(match[1]));
}

/** Poll for a file written by the command, so a test can act once the command is really running. */
export async function waitForFile(path: string, limitMs = 5_000): Promise<string> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    try {
      const text = readFileSync(path, 'utf8');
      if (text.endsWith('\n')) return text;
    } catch {
      // not written yet
    }
    if (Date.now() > deadline) throw new Error(`${path} was not written within ${limitMs} ms.`);
    await delay(10);
  }
}
