// `glassbox sessions export` through the built CLI: a session recorded by `exec` (a tool call
// whose output holds a key-shaped token, an answer holding the API key's own value) comes out as
// a Markdown transcript, JSONL records and one HTML file, each with the secrets redacted; the
// HTML names no address to fetch and rebuilds each turn call's request.

import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/run-cli.js';
import { PLANTED_ENV_KEY, PLANTED_FILE_KEY, recordedSession } from '../helpers/recorded-session.js';

test('sessions export writes md, jsonl and html, redacted', async (t) => {
  const { base, env, close } = await recordedSession();
  t.after(close);
  const html = join(base, 'session.html');
  const [md, jsonl, written] = await Promise.all([
    runCli(['sessions', 'export', 'last', '--format', 'md'], env),
    runCli(['sessions', 'export', 'last', '--format', 'jsonl'], env),
    runCli(['sessions', 'export', 'last', '-o', html], env),
  ]);
  for (const result of [md, jsonl, written]) assert.equal(result.code, 0, result.stderr);
  assert.match(md.stdout, /^# Session /);
  assert.match(md.stdout, /## Turn 1\n\n\*\*User:\*\*\n\n> summarize notes\.txt/);
  assert.match(md.stdout, /\*\*Tool call\*\* `read_file`/);
  assert.match(md.stdout, /Exported answer: the notes hold a deploy token; your key is \[redacted\]\./);
  const records = jsonl.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string });
  assert.equal(records[0]!.type, 'session_meta');
  assert.ok(records.some((record) => record.type === 'model_call'));
  assert.match(written.stderr, /wrote .*session\.html \(html, \d+ records, secrets redacted\)/);
  assert.equal((await stat(html)).mode & 0o777, 0o600);
  const page = await readFile(html, 'utf8');
  for (const text of [md.stdout, jsonl.stdout, page]) {
    assert.ok(!text.includes(PLANTED_ENV_KEY), 'the API key is redacted');
    assert.ok(!text.includes(PLANTED_FILE_KEY), 'the key-shaped token is redacted');
  }
  // Self-contained: no address it could load, and a policy that forbids loading any.
  assert.doesNotMatch(page, /\b(?:src|href)=/);
  assert.match(page, /default-src 'none'/);
  assert.match(page, /"request":\[\[0,1\]\]/);
});
