// Whether the server can be reached. Any failed request turns the banner on; while it is on,
// the health route is tried again with growing pauses, and the first answer turns it off and
// tells the workbench to reload what it shows and re-attach to its run.

import { useCallback, useEffect, useRef, useState } from 'react';
import { api, onConnectivity } from '../api/index.js';

export interface Connection {
  online: boolean;
  /** Seconds until the next attempt while offline. */
  retryIn: number;
  retryNow(): void;
}

export function useConnection(onReconnected: () => void): Connection {
  const [online, setOnline] = useState(true);
  const [retryIn, setRetryIn] = useState(0);
  const [attempt, setAttempt] = useState(0);
  const reconnected = useRef(onReconnected);
  reconnected.current = onReconnected;
  const wasOffline = useRef(false);

  useEffect(
    () =>
      onConnectivity((reachable) => {
        if (reachable && wasOffline.current) {
          wasOffline.current = false;
          setOnline(true);
          reconnected.current();
        } else if (!reachable && !wasOffline.current) {
          wasOffline.current = true;
          setOnline(false);
          setAttempt(0);
        }
      }),
    [],
  );

  useEffect(() => {
    if (online) return;
    const delay = Math.min(1 + attempt, 5);
    setRetryIn(delay);
    const countdown = setInterval(() => setRetryIn((seconds) => Math.max(0, seconds - 1)), 1000);
    const timer = setTimeout(() => {
      // The answer (or the failure) is reported through onConnectivity.
      api.health().then(
        () => undefined,
        () => setAttempt((n) => n + 1),
      );
    }, delay * 1000);
    return () => {
      clearInterval(countdown);
      clearTimeout(timer);
    };
  }, [online, attempt]);

  const retryNow = useCallback(() => {
    api.health().then(
      () => undefined,
      () => setAttempt((n) => n + 1),
    );
  }, []);

  return { online, retryIn, retryNow };
}
