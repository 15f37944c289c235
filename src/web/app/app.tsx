// The workbench: loads what the server offers (health, models), then shows the panes
// (workbench.tsx), or a page saying why it cannot.

import { useEffect, useState } from 'react';
import { api, ApiError, describeError, type Health, type ModelsInfo } from '../api/index.js';
import { preloadMarkdown } from '../transcript/index.js';
import { FailurePage, UnauthorizedPage } from './unauthorized-page.js';
import { Workbench } from './workbench.js';

type Boot =
  | { kind: 'loading' }
  | { kind: 'unauthorized' }
  | { kind: 'failed'; message: string }
  | { kind: 'ready'; health: Health; models: ModelsInfo };

export function App() {
  const [boot, setBoot] = useState<Boot>({ kind: 'loading' });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let stale = false;
    Promise.all([api.health(), api.models()]).then(
      ([health, models]) => {
        if (!stale) setBoot({ kind: 'ready', health, models });
      },
      (error: unknown) => {
        if (stale) return;
        if (error instanceof ApiError && error.status === 401) setBoot({ kind: 'unauthorized' });
        else setBoot({ kind: 'failed', message: describeError(error) });
      },
    );
    return () => {
      stale = true;
    };
  }, [attempt]);

  // The Markdown chunk is most of the bundle: fetch it once the first screen is up, not before.
  useEffect(() => {
    if (boot.kind !== 'ready') return;
    const idle = window.requestIdleCallback ?? ((callback: () => void) => window.setTimeout(callback, 200));
    idle(() => preloadMarkdown());
  }, [boot.kind]);

  if (boot.kind === 'loading') return <main className="gate" aria-busy="true" />;
  if (boot.kind === 'unauthorized') return <UnauthorizedPage />;
  if (boot.kind === 'failed') return <FailurePage message={boot.message} onRetry={() => setAttempt((n) => n + 1)} />;
  return <Workbench health={boot.health} models={boot.models} />;
}
