// Keeps glassbox alive and quiet when the reader of its stdout or stderr goes away (`| head -1`, a
// closed terminal). Node ignores SIGPIPE, so a write to a closed pipe fails with EPIPE, reported as
// an 'error' event on process.stdout/stderr; with no listener that event kills the process with a
// stack trace, in the middle of a turn whose session then lacks its end record. Instead the guard
// notes which stream closed and tells whoever asked (`exec` cancels its run, as Ctrl-C does).

export interface OutputGuard {
  readonly stdoutClosed: boolean;
  readonly stderrClosed: boolean;
  /** `listener` runs once, when stdout is first found closed. Returns an unsubscribe. */
  onStdoutClosed(listener: () => void): () => void;
  /**
   * Resolves once everything written to stdout so far has reached the OS or failed, so a closed
   * stdout is known before the exit code is chosen. Never rejects.
   */
  flushStdout(): Promise<void>;
}

type OutputStream = NodeJS.WritableStream & { destroyed?: boolean };

export function guardOutputs(stdout: OutputStream, stderr: OutputStream): OutputGuard {
  let stdoutClosed = false;
  let stderrClosed = false;
  const listeners = new Set<() => void>();
  const closeStdout = (): void => {
    if (stdoutClosed) return;
    stdoutClosed = true;
    for (const listener of [...listeners]) listener();
    listeners.clear();
  };
  // Any write error means the output is gone (EPIPE from a pipe, EIO from a hung-up terminal):
  // nothing more can reach the reader, so every kind is treated as "closed". The listeners stay
  // for the life of the process, since a late write can fail after a command has returned.
  stdout.on('error', closeStdout);
  stderr.on('error', () => {
    stderrClosed = true;
  });
  return {
    get stdoutClosed() {
      return stdoutClosed;
    },
    get stderrClosed() {
      return stderrClosed;
    },
    onStdoutClosed(listener) {
      if (stdoutClosed) {
        listener();
        return () => {};
      }
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    flushStdout() {
      if (stdoutClosed || stdout.destroyed) return Promise.resolve();
      return new Promise((resolve) => {
        // Writes complete in order, so this callback runs after every earlier write's; it gets
        // their failure before the 'error' event is emitted.
        stdout.write('', (error?: Error | null) => {
          if (error) closeStdout();
          resolve();
        });
      });
    },
  };
}

let processGuard: OutputGuard | null = null;

/** The guard on process.stdout/stderr, installed on first use (by `main`, before any output). */
export function processOutputGuard(): OutputGuard {
  processGuard ??= guardOutputs(process.stdout, process.stderr);
  return processGuard;
}
