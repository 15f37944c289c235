// Time to first paint of the interactive session: from spawning `glassbox` in a pseudo-terminal
// (util-linux `script`, so both its stdin and stdout are a TTY) to its status line ("Enter send")
// being written, against `node` writing one word through the same `script`. The process is then
// ended: nothing is sent to the model.

import { spawn } from 'node:child_process';

/** Milliseconds from spawn until `marker` appears in what the command writes to its terminal. */
export function timeToOutput(command: string, marker: string, env: NodeJS.ProcessEnv, cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    // -e: script's exit code is the command's; -f: flush each write; /dev/null: no typescript file.
    const child = spawn('script', ['-qefc', command, '/dev/null'], {
      env: { ...process.env, ...env },
      cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let seen = '';
    let done = false;
    const timer = setTimeout(
      () => finish(new Error(`no ${JSON.stringify(marker)} within 60 s from ${command}:\n${seen.slice(-2000)}`)),
      60_000,
    );
    function finish(error: Error | null, ms = 0): void {
      if (done) return;
      done = true;
      clearTimeout(timer);
      child.kill('SIGTERM');
      if (error) reject(error);
      else resolve(ms);
    }
    child.stdout.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes(marker)) finish(null, performance.now() - started);
    });
    child.on('error', (error) => finish(error));
    child.on('close', () => finish(new Error(`${command} ended before ${JSON.stringify(marker)}:\n${seen.slice(-2000)}`)));
  });
}
