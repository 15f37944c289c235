// `"server": {"token": "…"}` in <home>/config.json: the access token every server of one deployment
// shares, for a server started without --token / GLASSBOX_TOKEN (a unit file that should not carry
// the secret on its command line). Read only from the user's home config, never from a project's
// `.glassbox/config.json`: a repository must not choose the secret of the server that runs it
// (config-key-warnings.ts says so when one tries).

import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from './usage-error.js';

export interface ConfiguredToken {
  token: string;
  /** Where it came from, for messages: `--token / GLASSBOX_TOKEN` or the config file's key. */
  source: string;
}

/** The flag's (or the variable's, through commander) token, else the home config's; undefined: a new random one. */
export function resolveServerToken(option: string | undefined, home: string): ConfiguredToken | undefined {
  if (option !== undefined) return { token: option, source: '--token / GLASSBOX_TOKEN' };
  const path = join(home, 'config.json');
  let parsed: unknown;
  try {
    if (!statSync(path).isFile()) return undefined;
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    // A missing file is no setting; a broken one is reported by the config's other readers.
    return undefined;
  }
  const section = (parsed as { server?: unknown } | null)?.server;
  if (section === undefined) return undefined;
  if (typeof section !== 'object' || section === null || Array.isArray(section)) {
    throw new UsageError(`${path}: server must be an object, e.g. {"token": "…"}`);
  }
  const value = (section as { token?: unknown }).token;
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new UsageError(`${path}: server.token must be a string`);
  return { token: value, source: `${path}: server.token` };
}
