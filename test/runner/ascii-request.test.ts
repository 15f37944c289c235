// What we write into every request — instructions, tool descriptions and schemas — stays ASCII:
// one non-Latin-1 character makes V8 hold the whole request body (history included) as a two-byte
// string, which JSON.stringify and the encoder handle 2–3× slower on every round (issue 30). The
// oracle is the body the provider received, on each wire, for an ASCII prompt in an ASCII project.

import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { WireApi } from '../../src/model/index.js';
import { startFakeProvider } from '../../src/testing/index.js';
import { execTurn } from '../helpers/exec-turn.js';
import { withTempDir } from '../helpers/temp-dir.js';

const WIRES: WireApi[] = ['chat', 'responses', 'anthropic'];

describe('request bodies we compose are ASCII', { concurrency: true }, () => {
  for (const wireApi of WIRES) {
    test(`${wireApi}: the first request of a turn, with every built-in tool`, async (t) => {
      const provider = await startFakeProvider({ script: [{ text: 'Done.' }] });
      t.after(() => provider.close());
      await withTempDir(async (dir) => {
        const root = join(dir, 'project');
        const home = join(dir, 'home');
        mkdirSync(root);
        mkdirSync(home);
        writeFileSync(join(root, 'README.md'), 'A project.\n');
        await execTurn({ root, home, baseURL: provider.baseURL, prompt: 'List the files.', wireApi });
      });
      assert.equal(provider.requests.length, 1);
      const body = provider.requests[0]!.rawBody;
      const foreign = [...new Set(body.match(/[^\x00-\x7f]/g) ?? [])];
      assert.deepEqual(foreign, [], `non-ASCII characters in the ${wireApi} request: ${foreign.join(' ')}`);
      assert.ok(body.includes('"tools"'), 'the tools were offered');
    });
  }
});
