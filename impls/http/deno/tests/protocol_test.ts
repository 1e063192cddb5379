// SPEC §4: keep-alive, Connection: close, HTTP/1.0, chunked bodies,
// 100-continue, pipelining, split requests, header case, and the headers on
// every response, over raw connections.

import assert from 'node:assert/strict';
import { parseResponses, raw, request, startServer, step } from './helpers.ts';

Deno.test('protocol', async (t) => {
  const server = await startServer();

  await step(t, 'many requests on one keep-alive connection, each seeing the one before', async () => {
    const batch = [];
    for (let i = 0; i < 10; i++) {
      batch.push(request('POST', '/user/set/ka', JSON.stringify({ i })), request('GET', '/user/get/ka'));
    }
    const { text, closed } = await raw(server.port, batch.join(''), { idleMs: 500 });
    const responses = parseResponses(text);
    assert.equal(responses.length, 20);
    for (let i = 0; i < 10; i++) assert.deepEqual(JSON.parse(responses[2 * i + 1].body), { i });
    assert.equal(closed, false);
  });

  await step(t, 'Connection: close is answered, then closed', async () => {
    const { text, closed } = await raw(server.port, request('GET', '/', '', { Connection: 'close' }));
    assert.equal(parseResponses(text)[0].body, 'Hello, World!');
    assert.ok(closed);
  });

  await step(t, 'HTTP/1.0 is answered with Content-Length, then closed', async () => {
    const { text, closed } = await raw(server.port, 'GET /json HTTP/1.0\r\n\r\n');
    const [res] = parseResponses(text);
    assert.match(res.statusLine, /^HTTP\/1\.[01] 200/);
    assert.equal(res.headers['content-length'], '27');
    assert.equal(res.headers['transfer-encoding'], undefined);
    assert.ok(closed);
  });

  await step(t, 'a chunked body sent in pieces, then another request on the same connection', async () => {
    const { text } = await raw(server.port, [
      'POST /user/set/chunked HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n',
      '5\r\n{"a":\r\n',
      '5\r\n1,"b"\r\n',
      '7\r\n:[1,2]}\r\n',
      '0\r\n\r\n',
      request('GET', '/user/get/chunked'),
    ], { pauseMs: 20, idleMs: 500 });
    const responses = parseResponses(text);
    assert.equal(responses.length, 2, text);
    assert.deepEqual(JSON.parse(responses[1].body), { a: 1, b: [1, 2] });
  });

  await step(t, 'Expect: 100-continue gets 100 Continue, then the answer', async () => {
    const body = '{"expect":"continue"}';
    const { text } = await raw(server.port, [
      `POST /user/set/expect HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: ${body.length}\r\n\r\n`,
      body,
    ], { pauseMs: 200, idleMs: 500 });
    assert.match(text, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK/);
  });

  await step(t, 'a request sent in many small segments', async () => {
    const bytes = request('POST', '/user/set/split', '{"split":true}');
    const pieces = bytes.match(/.{1,7}/gs)!;
    const { text } = await raw(server.port, pieces, { pauseMs: 5, idleMs: 500 });
    assert.equal(parseResponses(text)[0].status, 200);
  });

  await step(t, 'header names in any letter case', async () => {
    const body = '{"case":1}';
    const { text } = await raw(
      server.port,
      `POST /user/set/case HTTP/1.1\r\nhOsT: x\r\ncOnTeNt-LeNgTh: ${body.length}\r\n\r\n${body}`,
      { idleMs: 500 },
    );
    assert.equal(parseResponses(text)[0].status, 200);
  });

  await step(t, 'an absolute-form target is routed by its path', async () => {
    const { text } = await raw(server.port, 'GET http://example.test/json?x=1 HTTP/1.1\r\nHost: example.test\r\n\r\n', {
      idleMs: 500,
    });
    assert.equal(parseResponses(text)[0].body, '{"message":"Hello, World!"}');
  });

  await step(t, 'every response has Content-Length, Content-Type, Date and Server', async () => {
    const batch = [
      request('GET', '/'),
      request('GET', '/nope'),
      request('DELETE', '/'),
      request('GET', '/user/get/%41'),
      request('POST', '/user/set/x', 'nope'),
      request('GET', '/page', '', { Connection: 'close' }),
    ];
    const { text } = await raw(server.port, batch.join(''));
    const responses = parseResponses(text);
    assert.equal(responses.length, batch.length);
    for (const res of responses) {
      for (const name of ['content-length', 'content-type', 'date', 'server']) {
        assert.ok(res.headers[name], `${name} missing on ${res.statusLine}`);
      }
    }
  });

  await server.stop();
});
