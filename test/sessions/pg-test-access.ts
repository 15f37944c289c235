// Direct access to a PgSessionStore's tables, for tests that plant what a crash, a hand edit or
// another process could leave behind.

import pg from 'pg';

export async function withPgClient<T>(url: string, task: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await task(client);
  } finally {
    await client.end();
  }
}

/** Replace a session's stored lines (the rows' bodies), renumbered from 1. */
export async function rewritePgLines(url: string, sessionId: string, edit: (lines: string[]) => string[]): Promise<void> {
  await withPgClient(url, async (client) => {
    const rows = await client.query<{ body: string }>('SELECT body FROM glassbox_session_records WHERE session_id = $1 ORDER BY line', [
      sessionId,
    ]);
    const lines = edit(rows.rows.map((row) => row.body));
    await client.query('BEGIN');
    await client.query('DELETE FROM glassbox_session_records WHERE session_id = $1', [sessionId]);
    await client.query(
      'INSERT INTO glassbox_session_records (session_id, line, body) SELECT $1, ordinality, body FROM unnest($2::text[]) WITH ORDINALITY AS t(body, ordinality)',
      [sessionId, lines],
    );
    await client.query('UPDATE glassbox_sessions SET line_count = $2 WHERE session_id = $1', [sessionId, lines.length]);
    await client.query('COMMIT');
  });
}
