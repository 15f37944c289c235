import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sandboxNotice, sandboxState } from '../../src/cli/sandbox-notice.js';

describe('the start-up notice where no sandbox can run', () => {
  test('says plainly what runs and how to fix it', () => {
    const notice = sandboxNotice({ available: false, reason: 'bwrap (bubblewrap) was not found on PATH.' }) ?? '';
    assert.match(notice, /no OS sandbox on this machine \(bwrap \(bubblewrap\) was not found on PATH\.\)/);
    assert.match(notice, /only if they are on the short list of literal read-only commands/);
    assert.match(notice, /install bubblewrap/);
  });

  test('is silent where the sandbox works, and under danger-full-access', async () => {
    assert.equal(sandboxNotice({ available: true, reason: 'works' }), null);
    assert.equal(await sandboxState('danger-full-access'), null);
    assert.equal(sandboxNotice(null), null);
  });
});
