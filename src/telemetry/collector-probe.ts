// Whether anything listens at the collector's address. The OTLP exporter retries a refused
// connection with back-off until its deadline, so a run whose collector is simply not running
// would end seconds late. One TCP connect, started with the trace and never awaited by the run,
// tells the difference between "down" (refused at once: give up) and "slow" (the bounded flush
// applies as before).

import { connect } from 'node:net';

export type CollectorState = { reachable: true } | { reachable: false; reason: string } | null;

/** Network errors that mean nobody will answer at this address, as opposed to a slow answer. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'EADDRNOTAVAIL']);

export interface CollectorProbe {
  /** The answer so far: null while the connect is pending (treated as reachable). */
  state(): CollectorState;
  /** Settles with the answer, or with null after `waitMs`. */
  settled(waitMs: number): Promise<CollectorState>;
}

export function probeCollector(endpoint: string): CollectorProbe {
  let state: CollectorState = null;
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    state = { reachable: false, reason: `not a URL: ${endpoint}` };
    return { state: () => state, settled: async () => state };
  }
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  // The URL keeps IPv6 literals bracketed; the socket wants them bare.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const answered = new Promise<CollectorState>((resolve) => {
    const socket = connect({ host, port });
    // A probe must never keep the process alive or hold the run's end up.
    socket.unref();
    socket.once('connect', () => {
      socket.destroy();
      resolve({ reachable: true });
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      socket.destroy();
      const code = error.code ?? '';
      resolve(UNREACHABLE.has(code) ? { reachable: false, reason: `${code} at ${host}:${port}` } : { reachable: true });
    });
  }).then((answer) => {
    state = answer;
    return answer;
  });
  return {
    state: () => state,
    settled(waitMs) {
      if (state !== null) return Promise.resolve(state);
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), waitMs);
        timer.unref();
      });
      return Promise.race([answered, waited]).finally(() => clearTimeout(timer));
    },
  };
}
