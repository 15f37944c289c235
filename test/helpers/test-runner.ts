// A runner for turn-level tests: the chat wire against a fake provider at `baseURL`, the project
// at `root` and its Glassbox home inside it, with no compaction and no MCP servers, so what a test
// sees comes from the turn alone.
import { join } from 'node:path';
import { createGateway } from '../../src/model/index.js';
import { openRunner, type Runner } from '../../src/runner/index.js';

export function openTestRunner(root: string, baseURL: string): Promise<Runner> {
  return openRunner({
    root,
    home: join(root, '.home'),
    model: 'acme',
    wireApi: 'chat',
    gateway: createGateway({ wireApi: 'chat', baseURL, apiKey: 'k' }),
    compaction: null,
    mcp: false,
  });
}
