// `"server": {"token": "…"}` in <home>/config.json: the access token every server of one deployment
// shares, for a server started without --token / GLASSBOX_TOKEN (a unit file that should not carry
// the secret on its command line). Read only from the user's home config, never from a project's
// `.glassbox/config.json`: a repository must not choose the secret of the server that runs it
// (config-key-warnings.ts says so when one tries).

import { homeConfigSection } from './home-config-section.js';
import { UsageError } from './usage-error.js';

export interface ConfiguredToken {
  token: string;
  /** Where it came from, for messages: `--token / GLASSBOX_TOKEN` or the config file's key. */
  source: string;
}

/** The flag's (or the variable's, through commander) token, else the home config's; undefined: a new random one. */
export function resolveServerToken(option: string | undefined, home: string): ConfiguredToken | undefined {
  if (option !== undefined) return { token: option, source: '--token / GLASSBOX_TOKEN' };
  const found = homeConfigSection(home, 'server', '{"token": "…"}');
  if (found === undefined) return undefined;
  const { path, section } = found;
  const value = section.token;
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new UsageError(`${path}: server.token must be a string`);
  return { token: value, source: `${path}: server.token` };
}
