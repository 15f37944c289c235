// `glassbox serve --otlp-endpoint` traces every run it starts, like `exec` does.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolveTelemetrySettings } from '../../src/telemetry/index.js';
import { startOtlpReceiver, spanTree } from '../helpers/otlp-receiver.js';
import { startHarness } from './server-harness.js';

test('a run started through the API exports its trace when the server has a trace endpoint', async () => {
  const receiver = await startOtlpReceiver();
  try {
    const telemetry = { ...resolveTelemetrySettings({ otlpEndpoint: receiver.url }, {})!, flushTimeoutMs: 2_000 };
    const h = await startHarness({ script: [{ text: 'Hello from a served run.' }], settings: { telemetry } });
    try {
      const response = await h.post('/api/runs', { prompt: 'say hello' });
      assert.ok(response.ok, String(response.status));
      // The run streams its events; it has ended when the stream does.
      assert.match(await response.text(), /run_succeeded/);
      const spans = await receiver.waitForSpans(2);
      const tree = spanTree(spans).join('\n');
      assert.match(tree, /invoke_agent glassbox/);
      assert.match(tree, /chat test-model/);
    } finally {
      await h.close();
    }
  } finally {
    await receiver.close();
  }
});
