// SPEC §2: every route's happy path, against an in-process server.

import assert from 'node:assert/strict';
import { startServer, step } from './helpers.ts';

Deno.test('routes', async (t) => {
  const server = await startServer();
  const get = (path: string, init?: RequestInit) => fetch(server.url + path, init);
  const post = (path: string, body: unknown) =>
    fetch(server.url + path, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body) });
  const status = async (res: Promise<Response>) => {
    const r = await res;
    await r.body?.cancel();
    return r.status;
  };

  await step(t, 'GET / is Hello, World! with the Server and Date headers', async () => {
    const res = await get('/');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^text\/plain/);
    assert.equal(res.headers.get('server'), 'concur-deno');
    assert.ok(res.headers.get('date'));
    assert.equal(await res.text(), 'Hello, World!');
  });

  await step(t, 'GET /json is the message object', async () => {
    const res = await get('/json');
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.deepEqual(await res.json(), { message: 'Hello, World!' });
  });

  await step(t, 'GET /page serves the page file unchanged', async () => {
    const res = await get('/page');
    assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.deepEqual(new Uint8Array(await res.arrayBuffer()), await Deno.readFile(server.config.pageFile));
  });

  await step(t, 'a query string is ignored', async () => {
    assert.equal(await (await get('/?from=test&x=1')).text(), 'Hello, World!');
    assert.equal(await status(get('/json?pretty')), 200);
  });

  await step(t, 'GET /longPoll answers OK after CONCUR_LONGPOLL_MS', async () => {
    const started = performance.now();
    const res = await get('/longPoll');
    assert.equal(await res.text(), 'OK');
    assert.ok(performance.now() - started >= server.config.longPollMs - 5);
  });

  await step(t, '50 long polls wait together, not one after another', async () => {
    const started = performance.now();
    const bodies = await Promise.all(Array.from({ length: 50 }, async () => (await get('/longPoll')).text()));
    assert.deepEqual(new Set(bodies), new Set(['OK']));
    assert.ok(performance.now() - started < server.config.longPollMs * 5);
  });

  await step(t, 'password set, verify, mismatch, unknown user, replace', async () => {
    assert.equal(await (await post('/password/set/alice', { password: 's3cret pässword' })).text(), 'OK');
    assert.equal(await status(post('/password/verify/alice', { password: 's3cret pässword' })), 200);
    assert.equal(await status(post('/password/verify/alice', { password: 's3cret password' })), 403);
    assert.equal(await status(post('/password/verify/nobody', { password: 'x' })), 404);
    assert.equal(await status(post('/password/set/alice', { password: 'second' })), 200);
    assert.equal(await status(post('/password/verify/alice', { password: 's3cret pässword' })), 403);
    assert.equal(await status(post('/password/verify/alice', { password: 'second' })), 200);
  });

  await step(t, 'a 72-byte password and the empty password are accepted', async () => {
    const max = 'é'.repeat(36);
    assert.equal(await status(post('/password/set/max', { password: max })), 200);
    assert.equal(await status(post('/password/verify/max', { password: max })), 200);
    assert.equal(await status(post('/password/set/empty', { password: '' })), 200);
    assert.equal(await status(post('/password/verify/empty', { password: '' })), 200);
  });

  await step(t, 'the password and user stores are separate', async () => {
    assert.equal(await status(post('/user/set/infoonly', { password: 'x' })), 200);
    assert.equal(await status(post('/password/verify/infoonly', { password: 'x' })), 404);
  });

  await step(t, 'user set then get returns the same JSON value; replacing works', async () => {
    const value = {
      name: 'Ada',
      tags: ['x', 'y'],
      nested: { ok: true, none: null, list: [1, [2, 3], { k: 'v' }] },
      unicode: 'héllo ✓ 🚀 "q" \\',
      ratio: 2.5,
      big: 9007199254740991,
    };
    assert.equal(await status(post('/user/set/A-z_0.9', value)), 200);
    let res = await get('/user/get/A-z_0.9');
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.deepEqual(await res.json(), value);
    await status(post('/user/set/A-z_0.9', ' { } '));
    res = await get('/user/get/A-z_0.9');
    assert.deepEqual(await res.json(), {});
    assert.equal(await status(get('/user/get/unknown')), 404);
  });

  await step(t, 'HEAD on a GET route is 200 without a body', async () => {
    const res = await get('/json', { method: 'HEAD' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-length'), '27');
    assert.equal(await res.text(), '');
  });

  await server.stop();
});

Deno.test('/page delay', async (t) => {
  const server = await startServer({ pageDelayEvery: 3, pageDelayMs: 500 });
  const timedPage = async () => {
    const started = performance.now();
    const res = await fetch(`${server.url}/page`);
    await res.arrayBuffer();
    return performance.now() - started >= server.config.pageDelayMs - 5;
  };

  await step(t, 'every Nth request is delayed, counted from 1', async () => {
    const delayed = [];
    for (let i = 0; i < 6; i++) delayed.push(await timedPage());
    assert.deepEqual(delayed, [false, false, true, false, false, true]);
  });

  await step(t, 'the delayed request blocks no other', async () => {
    const delayed = await Promise.all(Array.from({ length: 6 }, timedPage));
    assert.equal(delayed.filter(Boolean).length, 2);
  });

  await server.stop();
});

Deno.test('fault routes (SPEC §9)', async (t) => {
  const status = async (url: string) => {
    const res = await fetch(url);
    await res.body?.cancel();
    return res.status;
  };

  await step(t, 'are unknown paths without CONCUR_FAULTS=1', async () => {
    const server = await startServer();
    for (const path of ['/fault/panic', '/fault/spin?ms=1']) assert.equal(await status(server.url + path), 404);
    await server.stop();
  });

  await step(t, 'spin answers OK after ms, and clamps a bad ms to 0', async () => {
    const server = await startServer({ faults: true });
    const started = performance.now();
    assert.equal(await (await fetch(`${server.url}/fault/spin?ms=100`)).text(), 'OK');
    assert.ok(performance.now() - started >= 100);
    for (const query of ['', '?ms=', '?ms=x', '?ms=-5', '?ms=1.5']) {
      assert.equal(await status(`${server.url}/fault/spin${query}`), 200);
    }
    assert.equal(await status(`${server.url}/fault/panic/x`), 404);
    await server.stop();
  });
});
