// SPEC §3: each kind of bad input gets its status and a one-line text/plain
// reason, and the server keeps serving.

import assert from 'node:assert/strict';
import { parseResponses, raw, startServer, step } from './helpers.ts';

const MIB = 1024 * 1024;

/** A JSON object of exactly `length` bytes. */
const objectOf = (length: number) => `{"pad":"${'a'.repeat(length - 10)}"}`;

Deno.test('bad input', async (t) => {
  const server = await startServer();
  const call = (method: string, path: string, body?: BodyInit) => fetch(server.url + path, { method, body });

  async function expectError(res: Response, status: number) {
    assert.equal(res.status, status);
    assert.match(res.headers.get('content-type')!, /^text\/plain/);
    const reason = await res.text();
    assert.ok(
      reason.trim().length > 0 && !reason.trim().includes('\n'),
      `one-line reason, got ${JSON.stringify(reason)}`,
    );
  }

  await step(t, 'unknown paths are 404', async () => {
    for (
      const [method, path] of [
        ['GET', '/nope'],
        ['GET', '/JSON'],
        ['GET', '/user/delete/x'],
        ['POST', '/password/reset/x'],
        ['GET', '/json/extra'],
        ['GET', '/user/get'],
      ]
    ) {
      await expectError(await call(method, path), 404);
    }
  });

  await step(t, 'a known path with another method is 405 with Allow', async () => {
    for (
      const [method, path, allow] of [
        ['POST', '/', 'GET, HEAD'],
        ['DELETE', '/json', 'GET, HEAD'],
        ['GET', '/password/set/alice', 'POST'],
        ['PATCH', '/user/get/bob', 'GET, HEAD'],
      ]
    ) {
      const res = await call(method, path, method === 'GET' ? undefined : '{}');
      assert.equal(res.headers.get('allow'), allow);
      await expectError(res, 405);
    }
  });

  await step(t, 'the method is checked before the user name', async () => {
    await expectError(await call('GET', '/password/set/a%20b'), 405);
  });

  await step(t, 'an invalid {user} is 400 on every route, checked on the raw path', async () => {
    for (const name of ['', '%41', 'a%20b', '%C3%BC', 'a:b', 'a@b', 'a+b', 'a~b', 'x'.repeat(65)]) {
      await expectError(await call('POST', `/password/set/${name}`, '{"password":"pw"}'), 400);
      await expectError(await call('POST', `/password/verify/${name}`, '{"password":"pw"}'), 400);
      await expectError(await call('POST', `/user/set/${name}`, '{"a":1}'), 400);
      await expectError(await call('GET', `/user/get/${name}`), 400);
    }
    // fetch() would normalize the path; the raw client sends it as it is.
    const { text } = await raw(server.port, 'GET /user/get/a/b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    assert.equal(parseResponses(text)[0].status, 400);
    const res = await call('POST', `/user/set/${'U'.repeat(64)}`, '{}');
    assert.equal(res.status, 200);
    await res.body?.cancel();
  });

  await step(t, 'a body of exactly 1 MiB is accepted', async () => {
    const res = await call('POST', '/user/set/big', objectOf(MIB));
    assert.equal(res.status, 200);
    await res.body?.cancel();
    assert.equal((await (await call('GET', '/user/get/big')).text()).length, MIB);
  });

  await step(t, 'a Content-Length over 1 MiB is 413 before the body is sent, with connection: close', async () => {
    const { text } = await raw(
      server.port,
      `POST /user/set/big HTTP/1.1\r\nHost: x\r\nContent-Length: ${MIB + 1}\r\n\r\n`,
      { idleMs: 500 },
    );
    const [res] = parseResponses(text);
    assert.equal(res.status, 413);
    assert.equal(res.headers.connection, 'close');
  });

  await step(t, 'a Content-Length over 1 MiB is 413 while the client is still sending', async () => {
    const body = objectOf(MIB + 1);
    const { text } = await raw(server.port, [
      `POST /password/set/big HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n`,
      body,
    ]);
    assert.equal(parseResponses(text)[0].status, 413);
  });

  await step(t, 'a chunked body over 1 MiB is 413', async () => {
    const piece = 'a'.repeat(64 * 1024);
    const chunks = ['POST /user/set/big HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n'];
    for (let i = 0; i < 17; i++) chunks.push(`${piece.length.toString(16)}\r\n${piece}\r\n`);
    chunks.push('0\r\n\r\n');
    const { text } = await raw(server.port, chunks);
    assert.equal(parseResponses(text)[0].status, 413);
  });

  await step(t, 'a body that is not JSON or not UTF-8 is 400', async () => {
    const bodies: BodyInit[] = [
      'not json',
      '{"password":',
      "{'password':'x'}",
      '{"password":"x"} trailing',
      '',
      new Uint8Array([0x22, 0xff, 0x22]),
      new Uint8Array([
        0x7b,
        0x22,
        0x70,
        0x61,
        0x73,
        0x73,
        0x77,
        0x6f,
        0x72,
        0x64,
        0x22,
        0x3a,
        0x22,
        0xc3,
        0x28,
        0x22,
        0x7d,
      ]),
    ];
    for (const body of bodies) {
      for (const route of ['password/set', 'password/verify', 'user/set']) {
        await expectError(await call('POST', `/${route}/badjson`, body), 400);
      }
    }
  });

  await step(t, 'no string password, one over 72 bytes of UTF-8 or one with a NUL, is 400', async () => {
    const tooLong = JSON.stringify({ password: `${'é'.repeat(36)}x` });
    for (
      const body of [
        '{}',
        '{"password":5}',
        '{"password":null}',
        '{"password":["x"]}',
        '["password"]',
        '"password"',
        '{"password":"a\\u0000b"}',
        tooLong,
      ]
    ) {
      await expectError(await call('POST', '/password/set/badpw', body), 400);
      await expectError(await call('POST', '/password/verify/badpw', body), 400);
    }
  });

  await step(t, 'user/set with JSON that is not an object is 400 and stores nothing', async () => {
    for (const body of ['[1,2]', '"str"', '42', 'null', 'true']) {
      await expectError(await call('POST', '/user/set/badbody', body), 400);
    }
    await expectError(await call('GET', '/user/get/badbody'), 404);
  });

  await step(t, 'malformed requests are 400 and the server keeps serving', async () => {
    for (
      const bytes of [
        'GARBAGE\r\n\r\n',
        'GET / EXTRA JUNK HTTP/1.1\r\nHost: x\r\n\r\n',
        'GET / HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n',
      ]
    ) {
      const { text, closed } = await raw(server.port, bytes);
      const [res] = parseResponses(text);
      assert.equal(res?.status, 400, `${JSON.stringify(bytes)} answered ${JSON.stringify(text)}`);
      assert.ok(closed);
      assert.equal(await (await fetch(server.url)).text(), 'Hello, World!');
    }
  });

  await step(t, 'bad chunk framing after the head is 400 with our headers', async () => {
    const { text } = await raw(server.port, [
      'POST /user/set/chunky HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n',
      'ZZ\r\n{}\r\n0\r\n\r\n',
    ], { pauseMs: 100 });
    const [res] = parseResponses(text);
    assert.equal(res?.status, 400, text);
    assert.equal(res.headers.server, 'concur-deno');
    assert.equal(await (await fetch(server.url)).text(), 'Hello, World!');
  });

  await server.stop();
});
