// A client that promises a body (Content-Length) and hangs up before sending it all is routine (a
// closed tab, a killed script): the server log gets one line saying what and where, not a stack.

import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { describe, test } from 'node:test';
import { startHarness, TEST_TOKEN } from './server-harness.js';

/**
 * Sends the headers with `Expect: 100-continue` and waits for the server's `100 Continue`: Node
 * answers it when it hands the request to the app, so from then on the handler is waiting for the
 * body. Then sends part of the body and destroys the socket.
 */
async function abortMidBody(port: number, path: string): Promise<void> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TEST_TOKEN}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n',
  );
  let answered = '';
  while (!answered.includes('100 Continue')) answered += String((await once(socket, 'data'))[0]);
  socket.write('{"prompt":"only the start of');
  socket.destroy();
}

describe('server: request bodies aborted by the client', () => {
  for (const path of ['/api/runs', '/api/sessions/01890a5d-ac96-774b-bcce-b302099a8057/fork']) {
    test(`POST ${path}: one log line naming the route, no stack trace, and the server carries on`, async () => {
      const lines: string[] = [];
      let logged: () => void = () => {};
      const firstLine = new Promise<void>((resolve) => (logged = resolve));
      const h = await startHarness({
        settings: {
          log: (message) => {
            lines.push(message);
            logged();
          },
        },
      });
      try {
        await abortMidBody(h.port, path);
        await firstLine;
        assert.equal((await h.api('/api/health')).status, 200);
      } finally {
        await h.close();
      }
      assert.equal(lines.length, 1, lines.join('\n---\n'));
      const [line] = lines;
      assert.ok(line !== undefined);
      assert.doesNotMatch(line, /\n/);
      assert.doesNotMatch(line, /\bat .*:\d+:\d+/);
      assert.ok(line.includes(`POST ${JSON.stringify(path)}`), line);
      assert.match(line, /client closed the connection/);
      assert.match(line, /of 1000 bytes/);
    });
  }
});
