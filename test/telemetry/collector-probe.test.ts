// A collector that is down must not hold a run's end up: the probe tells "nothing listens" from
// "slow", and the sink then fails its exports at once instead of retrying until its deadline.

import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { describe, test } from 'node:test';
import { probeCollector } from '../../src/telemetry/collector-probe.js';
import { createOtelSink } from '../../src/telemetry/otel-sink.js';
import { resolveTelemetrySettings } from '../../src/telemetry/index.js';

/** A loopback port nothing listens on (a server bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  assert.ok(address !== null && typeof address === 'object');
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return address.port;
}

describe('collector probe', () => {
  test('a listening address is reachable; a closed port is not, and says why', async () => {
    const server = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const address = server.address();
      assert.ok(address !== null && typeof address === 'object');
      const open = probeCollector(`http://127.0.0.1:${address.port}/v1/traces`);
      assert.deepEqual(await open.settled(10_000), { reachable: true });
      assert.deepEqual(open.state(), { reachable: true });
    } finally {
      server.close();
    }
    const port = await closedPort();
    const closed = probeCollector(`http://127.0.0.1:${port}/v1/traces`);
    const state = await closed.settled(10_000);
    assert.equal(state?.reachable, false);
    assert.match(state && !state.reachable ? state.reason : '', new RegExp(`ECONNREFUSED at 127\\.0\\.0\\.1:${port}`));
  });

  test('an IPv6 literal and the scheme default port are understood', async () => {
    const probe = probeCollector('http://[::1]/v1/traces');
    const state = await probe.settled(10_000);
    // Port 80 on ::1: either nothing listens (refused) or something does; never a parse failure.
    assert.ok(state === null || state.reachable || /at ::1:80$/.test(state.reason), JSON.stringify(state));
  });

  test('a sink whose collector is down fails its export at once, even with a long flush timeout', async () => {
    const port = await closedPort();
    const settings = { ...resolveTelemetrySettings({ otlpEndpoint: `http://127.0.0.1:${port}` }, {})!, flushTimeoutMs: 120_000 };
    const sink = createOtelSink(settings, 'test');
    const span = sink.start('invoke_agent glassbox', { parent: null, startMs: Date.now(), kind: 'internal', attributes: {} });
    span.end(Date.now());
    // Before the probe, the exporter retried the refused connection until the flush deadline
    // (here two minutes) and only then reported the failure.
    const report = await sink.shutdown();
    assert.equal(report.exported, 0);
    assert.equal(report.failed, 1);
    assert.match(report.error ?? '', /the collector is unreachable \(ECONNREFUSED at 127\.0\.0\.1:\d+\)/);
  });
});
