// Shown when the server answers 401: the page was opened without the access token (or the
// cookie expired with a server restart). The token is only ever printed by `glassbox serve`.

export function UnauthorizedPage() {
  return (
    <main className="gate" aria-labelledby="gate-title">
      <div className="gate-card">
        <h1 id="gate-title">Not signed in</h1>
        <p>This Glassbox server needs its access token (HTTP 401).</p>
        <p>
          Open the address that <code>glassbox serve</code> printed when it started — it looks like{' '}
          <code>http://127.0.0.1:4100/?token=…</code>. The token is stored in a cookie for this browser and removed from the address bar.
        </p>
        <p className="muted">
          If the server was restarted without a fixed <code>--token</code>, it has a new token: use the new address.
        </p>
      </div>
    </main>
  );
}

export function FailurePage({ message, onRetry }: { message: string; onRetry(): void }) {
  return (
    <main className="gate" aria-labelledby="gate-title">
      <div className="gate-card">
        <h1 id="gate-title">Cannot load the workbench</h1>
        <p className="error-text">{message}</p>
        <button type="button" className="primary" onClick={onRetry}>
          Try again
        </button>
      </div>
    </main>
  );
}
