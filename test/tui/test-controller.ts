// A SessionController as the interactive session builds one, for in-process tests: the scripted
// provider over the chat wire, an in-memory store, no bubblewrap probe. Tests override the policy.

import { join } from 'node:path';
import { createGateway } from '../../src/model/index.js';
import { MemorySessionStore } from '../../src/sessions/index.js';
import type { FakeProvider } from '../../src/testing/index.js';
import { SessionController } from '../../src/tui/session-controller.js';
import type { ApprovalPolicy } from '../../src/permissions/index.js';
import type { SandboxMode } from '../../src/workspace/index.js';

export function testController(
  root: string,
  provider: Pick<FakeProvider, 'baseURL'>,
  options: { sandbox?: SandboxMode; approvalPolicy?: ApprovalPolicy; store?: MemorySessionStore; idlePromptMs?: number } = {},
): SessionController {
  return new SessionController({
    runner: {
      root,
      home: join(root, '.home'),
      model: 'gpt-5-mini',
      wireApi: 'chat',
      gateway: createGateway({ wireApi: 'chat', baseURL: provider.baseURL, apiKey: 'k' }),
      sandbox: options.sandbox ?? 'read-only',
      approvalPolicy: options.approvalPolicy ?? 'on-request',
      network: false,
      store: options.store ?? new MemorySessionStore(),
      detectSandbox: async () => ({ available: false, path: null, reason: 'not in this test' }),
    },
    sandboxModes: ['read-only', 'workspace-write', 'danger-full-access'],
    approvalPolicies: ['untrusted', 'on-request', 'never'],
    glassboxVersion: 'test',
    ...(options.idlePromptMs === undefined ? {} : { idlePromptMs: options.idlePromptMs }),
  });
}
