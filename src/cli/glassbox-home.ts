// Where Glassbox keeps sessions and config. Its own module so `glassbox --help` (which registers
// the session commands) does not load the model layer through run-config.

import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { envValue } from './cli-env.js';

export function resolveHome(option: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const home = option ?? envValue('GLASSBOX_HOME', env);
  return resolve(home && home.trim() !== '' ? home : resolve(homedir(), '.glassbox'));
}
