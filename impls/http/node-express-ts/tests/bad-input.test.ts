// SPEC §3: each kind of bad input gets its status and a one-line text/plain
// reason from the error-handling middleware, and the server keeps serving.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseResponses, raw, startServer, type TestServer } from './helpers.js';

const MIB = 1024 * 1024;

/** A JSON object of exactly `length` bytes. */
const objectOf = (length: number) => `{"pad":"${'a'.repeat(length - 10)}"}`;

describe('bad input', () => {
  let server: TestServer;
  before(async () => (server = await startServer()));
  after(() => server.stop());

  const call = (method: string, path: string, body?: string | Buffer) =>
    fetch(server.url + path, { method, body: body === undefined ? null : typeof body === "string" ? body : new Uint8Array(body) });

  async function expectError(res: Response, status: number): Promise<string> {
    assert.equal(res.status, status);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
    const reason = await res.text();
    assert.ok(reason.trim().length > 0 && !reason.includes('\n'), `one-line reason, got ${JSON.stringify(reason)}`);
    assert.doesNotMatch(reason, /<html|<pre/i, 'not an HTML page');
    return reason;
  }

  test('unknown paths are 404, never Express\'s HTML page', async () => {
    const paths = [['GET', '/nope'], ['GET', '/JSON'], ['GET', '/json/'], ['GET', '/user/delete/x'], ['POST', '/password/reset/x'], ['GET', '/json/extra'], ['GET', '/user/get']] as const;
    for (const [method, path] of paths) {
      await expectError(await call(method, path), 404);
    }
  });

  test('a known path with another method is 405 with Allow', async () => {
    const cases = [
      ['POST', '/', 'GET, HEAD'],
      ['DELETE', '/json', 'GET, HEAD'],
      ['PUT', '/page', 'GET, HEAD'],
      ['POST', '/longPoll', 'GET, HEAD'],
      ['GET', '/password/set/alice', 'POST'],
      ['GET', '/password/verify/alice', 'POST'],
      ['GET', '/user/set/bob', 'POST'],
      ['POST', '/user/get/bob', 'GET, HEAD'],
      ['PATCH', '/user/get/bob', 'GET, HEAD'],
    ] as const;
    for (const [method, path, allow] of cases) {
      const res = await call(method, path, method === 'GET' ? undefined : '{}');
      assert.equal(res.headers.get('allow'), allow, `${method} ${path}`);
      await expectError(res, 405);
    }
  });

  test('the method is checked before the user name', async () => {
    await expectError(await call('GET', '/password/set/a%20b'), 405);
  });

  test('an invalid {user} is 400 on every route, checked on the raw path', async () => {
    for (const name of ['', 'a/b', '%41', 'a%20b', '%C3%BC', 'a:b', 'a@b', 'a+b', 'a~b', 'x'.repeat(65)]) {
      await expectError(await call('POST', `/password/set/${name}`, '{"password":"pw"}'), 400);
      await expectError(await call('POST', `/password/verify/${name}`, '{"password":"pw"}'), 400);
      await expectError(await call('POST', `/user/set/${name}`, '{"a":1}'), 400);
      await expectError(await call('GET', `/user/get/${name}`), 400);
    }
    assert.equal((await call('POST', `/user/set/${'U'.repeat(64)}`, '{}')).status, 200);
  });

  test('the user name is checked before the body', async () => {
    await expectError(await call('POST', '/user/set/a%20b', 'x'.repeat(MIB + 1)), 400);
  });

  test('a body of exactly 1 MiB is accepted', async () => {
    assert.equal((await call('POST', '/user/set/big', objectOf(MIB))).status, 200);
    const res = await call('GET', '/user/get/big');
    assert.equal((await res.text()).length, MIB);
  });

  test('a Content-Length over 1 MiB is 413 before the body is read, and the connection closes', async () => {
    const head = `POST /user/set/big HTTP/1.1\r\nHost: x\r\nContent-Length: ${MIB + 1}\r\n\r\n`;
    const { text, closed } = await raw(server.port, head);
    const [res] = parseResponses(text);
    assert.equal(res?.status, 413);
    assert.equal(res?.headers.connection, 'close');
    assert.match(res?.body ?? '', /^request body is over the limit of 1048576 bytes$/);
    assert.ok(closed);
  });

  test('a Content-Length over 1 MiB is 413 while the client is still sending', async () => {
    const body = objectOf(MIB + 1);
    const { text } = await raw(server.port, [`POST /password/set/big HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n`, body]);
    assert.equal(parseResponses(text)[0]?.status, 413);
  });

  test('a chunked body over 1 MiB is 413 (body-parser), in one line of text', async () => {
    const piece = 'a'.repeat(64 * 1024);
    const chunks = [`POST /user/set/big HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n`];
    for (let i = 0; i < 17; i++) chunks.push(`${piece.length.toString(16)}\r\n${piece}\r\n`);
    chunks.push('0\r\n\r\n');
    const { text } = await raw(server.port, chunks);
    const [res] = parseResponses(text);
    assert.equal(res?.status, 413);
    assert.match(res?.headers['content-type'] ?? '', /^text\/plain/);
    assert.match(res?.body ?? '', /^request body is over the limit of 1048576 bytes$/);
  });

  test('a body that is not JSON is 400, the empty body too', async () => {
    for (const body of ['not json', '{"password":', "{'password':'x'}", '{"password":"x"} trailing', '', Buffer.from([0x22, 0xff, 0x22])]) {
      for (const route of ['password/set', 'password/verify', 'user/set']) {
        await expectError(await call('POST', `/${route}/badjson`, body), 400);
      }
    }
  });

  test('bytes that are not UTF-8 are 400, even inside a string', async () => {
    const bodies = [[0xff], [0x61, 0x62, 0xc3], [0xc0, 0x80], [0xed, 0xa0, 0x80]].map((bad) =>
      Buffer.concat([Buffer.from('{"name":"'), Buffer.from(bad), Buffer.from('"}')]),
    );
    for (const body of [...bodies, Buffer.from([0x7b, 0x22, 0xfe, 0x22, 0x3a, 0x31, 0x7d])]) {
      assert.match(await expectError(await call('POST', '/user/set/notutf8', body), 400), /UTF-8/);
    }
    await expectError(await call('GET', '/user/get/notutf8'), 404);
  });

  test('no string password, one over 72 bytes of UTF-8 or one with a NUL, is 400', async () => {
    const tooLong = JSON.stringify({ password: `${'é'.repeat(36)}x` });
    for (const body of ['{}', '{"password":5}', '{"password":null}', '{"password":["x"]}', '["password"]', '"password"', '{"password":"a\\u0000b"}', tooLong]) {
      await expectError(await call('POST', '/password/set/badpw', body), 400);
      await expectError(await call('POST', '/password/verify/badpw', body), 400);
    }
  });

  test('user/set with JSON that is not an object is 400 and stores nothing', async () => {
    for (const body of ['[1,2]', '"str"', '42', 'null', 'true']) {
      await expectError(await call('POST', '/user/set/badbody', body), 400);
    }
    await expectError(await call('GET', '/user/get/badbody'), 404);
  });

  test('a bad escape in {user} is 400 in one line', async () => {
    await expectError(await call('GET', '/user/get/%zz'), 400);
  });

  test('malformed requests are 400 (Node answers them), and the server keeps serving', async () => {
    for (const bytes of [
      'GARBAGE\r\n\r\n',
      'GET / EXTRA JUNK HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET / HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n',
      'POST /user/set/chunky HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n',
      'GET / HTTP/1.1\r\n\r\n',
    ]) {
      const { text, closed } = await raw(server.port, bytes);
      assert.equal(parseResponses(text)[0]?.status, 400, `${JSON.stringify(bytes)} answered ${text}`);
      assert.ok(closed);
      assert.equal((await fetch(server.url)).status, 200);
    }
  });
});
