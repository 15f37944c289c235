// `glassbox trace` prints the exporter's error, which carries the collector's own words (its HTTP
// reason phrase, which Node's parser passes through with ESC, BEL and C1 bytes in it): a
// collector must not be able to write the clipboard or retitle the window through it.

import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { traceCommand } from '../../src/cli/trace-command.js';
import { JsonlSessionStore } from '../../src/sessions/index.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { META, appendAll, toolTurn } from '../sessions/session-fixtures.js';

test('glassbox trace: a hostile collector error is shown with its control sequences escaped', async (t) => {
  const sockets = new Set<Socket>();
  const reason = 'Bad \x1b]52;c;ZXZpbA==\x07\x1b]0;title\x07\x9b2J x';
  const collector = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.once('data', () =>
      socket.end(Buffer.from(`HTTP/1.1 400 ${reason}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`, 'latin1')),
    );
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    for (const socket of sockets) socket.destroy();
    collector.close();
  });
  const address = collector.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await withTempDir(async (home) => {
    const writer = await new JsonlSessionStore(join(home, 'sessions')).create(META);
    await appendAll(writer, toolTurn(1, 'explain'));
    await writer.close();
    let stdout = '';
    let stderr = '';
    const code = await traceCommand('last', { home, otlpEndpoint: `http://127.0.0.1:${port}` }, '0.0.0', {
      stdout: (text) => (stdout += text),
      stderr: (text) => (stderr += text),
    });
    assert.equal(code, 1);
    assert.equal(stdout, '');
    assert.match(stderr, /the export to http:\/\/127\.0\.0\.1:\d+\/v1\/traces failed: Bad /);
    assert.ok(!/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/.test(stderr), JSON.stringify(stderr));
    assert.ok(stderr.includes('\\e]52;c;ZXZpbA==\\u0007'), stderr);
  });
});
