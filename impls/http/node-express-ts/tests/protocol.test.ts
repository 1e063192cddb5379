// SPEC §4: the framings a conforming client may choose, sent byte for byte.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseResponses, raw, request, startServer, type TestServer } from './helpers.js';

describe('protocol', () => {
  let server: TestServer;
  before(async () => (server = await startServer()));
  after(() => server.stop());

  const exchange = async (chunks: string | string[], options?: { pauseMs?: number; idleMs?: number }) => {
    const { text, closed } = await raw(server.port, chunks, options);
    return { responses: parseResponses(text), closed };
  };

  test('many requests on one keep-alive connection, which stays open', async () => {
    const batch = [];
    for (let i = 0; i < 10; i++) batch.push(request('POST', '/user/set/ka', JSON.stringify({ i })), request('GET', '/user/get/ka'));
    const { responses, closed } = await exchange(batch.join(''), { idleMs: 300 });
    assert.equal(responses.length, 20);
    assert.deepEqual(JSON.parse(responses[19]?.body ?? ''), { i: 9 });
    assert.equal(closed, false);
  });

  test('Connection: close is answered, then closed', async () => {
    const { responses, closed } = await exchange(request('GET', '/', '', { Connection: 'close' }));
    assert.equal(responses[0]?.body, 'Hello, World!');
    assert.ok(closed);
  });

  test('HTTP/1.0 is answered with Content-Length, then closed', async () => {
    const { responses, closed } = await exchange('GET / HTTP/1.0\r\n\r\n');
    assert.equal(responses[0]?.body, 'Hello, World!');
    assert.equal(responses[0]?.headers['content-length'], '13');
    assert.equal(responses[0]?.headers['transfer-encoding'], undefined);
    assert.ok(closed);
    const set = await exchange('POST /user/set/h10 HTTP/1.0\r\nContent-Length: 9\r\n\r\n{"v":10}\n');
    assert.equal(set.responses[0]?.body, 'OK');
  });

  test('chunked request bodies, in pieces, twice on one connection', async () => {
    const head = (path: string) => `POST ${path} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const chunk = (s: string) => `${Buffer.byteLength(s).toString(16)}\r\n${s}\r\n`;
    const { responses } = await exchange(
      [
        head('/user/set/chunked'),
        chunk('{"a":'),
        chunk('1,"b"'),
        chunk(':[1,2]}'),
        '0\r\n\r\n',
        `${head('/password/set/chunked')}${chunk('{"pass')}${chunk('word":"chunky"}')}0\r\n\r\n`,
      ],
      { pauseMs: 20, idleMs: 500 },
    );
    assert.deepEqual(responses.map((r) => r.body), ['OK', 'OK']);
    const res = await fetch(`${server.url}/password/verify/chunked`, { method: 'POST', body: '{"password":"chunky"}' });
    assert.equal(res.status, 200);
  });

  test('Expect: 100-continue gets 100 Continue, then the answer', async () => {
    const body = '{"expect":"continue"}';
    const head = `POST /user/set/expect HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: ${body.length}\r\n\r\n`;
    const { responses } = await exchange([head, body], { pauseMs: 200, idleMs: 500 });
    assert.deepEqual(responses.map((r) => r.status), [100, 200]);
  });

  test('Expect: 100-continue with a Content-Length over the limit still gets the 413, then a close', async () => {
    // Node answers 100 as soon as it parses the headers; the 413 follows at once.
    const head = `POST /user/set/expect HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: ${2 * 1024 * 1024}\r\n\r\n`;
    const { responses, closed } = await exchange(head);
    assert.equal(responses.at(-1)?.status, 413);
    assert.ok(closed);
  });

  test('pipelined requests are answered in order, a GET after the POST ahead of it', async () => {
    const batch = [
      request('GET', '/'),
      request('GET', '/json'),
      request('POST', '/user/set/pipe', '{"p":1}'),
      request('GET', '/user/get/pipe'),
      request('GET', '/nope', '', { Connection: 'close' }),
    ];
    const { responses } = await exchange(batch.join(''));
    assert.deepEqual(responses.map((r) => r.status), [200, 200, 200, 200, 404]);
    assert.equal(responses[0]?.body, 'Hello, World!');
    assert.equal(responses[3]?.body, '{"p":1}');
  });

  test('a pipelined GET waits for the slow POST ahead of it (regression: Node emits both requests at once)', async () => {
    // The password hash keeps the first request busy while the second is already parsed.
    const batch = [
      request('POST', '/password/set/slowpipe', '{"password":"first"}'),
      request('POST', '/user/set/slowpipe', '{"after":"hash"}'),
      request('POST', '/password/verify/slowpipe', '{"password":"first"}'),
      request('GET', '/user/get/slowpipe', '', { Connection: 'close' }),
    ];
    const { responses } = await exchange(batch.join(''));
    assert.deepEqual(responses.map((r) => r.status), [200, 200, 200, 200]);
    assert.equal(responses[3]?.body, '{"after":"hash"}');
  });

  test('a request written one byte at a time', async () => {
    const bytes = [...request('POST', '/user/set/split', '{"slow":"client"}', { Connection: 'close' })];
    const { responses } = await exchange(bytes, { pauseMs: 1 });
    assert.equal(responses[0]?.body, 'OK');
  });

  test('header names in any letter case', async () => {
    const body = '{"case":"mixed"}';
    const { responses } = await exchange(`POST /user/set/case HTTP/1.1\r\nhOsT: x\r\ncOnTeNt-LeNgTh: ${body.length}\r\nCONNECTION: close\r\n\r\n${body}`);
    assert.equal(responses[0]?.body, 'OK');
  });

  test('HEAD carries no body, and the connection stays usable', async () => {
    const { text } = await raw(server.port, request('HEAD', '/') + request('GET', '/', '', { Connection: 'close' }));
    // HEAD's Content-Length describes the GET body, so the two answers are found by their status lines.
    assert.equal(text.match(/^HTTP\/1\.1 200 OK/gm)?.length, 2);
    assert.ok(text.endsWith('\r\n\r\nHello, World!'));
  });

  test('an absolute-form target is routed by its path', async () => {
    const { responses } = await exchange(request('GET', `http://127.0.0.1:${server.port}/json?x=1`, '', { Connection: 'close' }));
    assert.equal(responses[0]?.body, '{"message":"Hello, World!"}');
  });

  test('a body sent to a GET route is ignored, not read as the next request', async () => {
    const { responses } = await exchange(request('GET', '/json', 'GET /nope HTTP/1.1\r\n\r\n') + request('GET', '/', '', { Connection: 'close' }));
    assert.deepEqual(responses.map((r) => r.status), [200, 200]);
  });

  test('every response has Content-Length, Content-Type, Date and Server', async () => {
    const batch = [
      request('GET', '/'),
      request('GET', '/nope'),
      request('DELETE', '/'),
      request('GET', '/user/get/%41'),
      request('POST', '/user/set/x', 'nope'),
      request('GET', '/longPoll'),
      request('GET', '/page', '', { Connection: 'close' }),
    ];
    const { responses } = await exchange(batch.join(''));
    assert.equal(responses.length, batch.length);
    for (const res of responses) {
      for (const name of ['content-length', 'content-type', 'date', 'server']) {
        assert.ok(res.headers[name], `${name} missing on ${res.statusLine}`);
      }
    }
  });
});
