// SPEC §2: every route's happy path, against the app on a real server.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startServer, type TestServer } from './helpers.js';

describe('routes', () => {
  let server: TestServer;
  before(async () => (server = await startServer()));
  after(() => server.stop());

  const get = (path: string, init?: RequestInit) => fetch(server.url + path, init);
  const post = (path: string, body: unknown) =>
    fetch(server.url + path, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body) });

  test('GET / is Hello, World! with the Server header and no X-Powered-By', async () => {
    const res = await get('/');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
    assert.equal(res.headers.get('server'), 'concur-node-express-ts');
    assert.equal(res.headers.get('x-powered-by'), null);
    assert.ok(res.headers.get('date'));
    assert.equal(await res.text(), 'Hello, World!');
  });

  test('GET /json is the message object', async () => {
    const res = await get('/json');
    assert.match(res.headers.get('content-type') ?? '', /^application\/json(;|$)/);
    assert.deepEqual(await res.json(), { message: 'Hello, World!' });
  });

  test('GET /page serves the page file unchanged, as text/html; charset=utf-8', async () => {
    const res = await get('/page');
    assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), await readFile(server.config.pageFile));
  });

  test('a query string is ignored', async () => {
    assert.equal(await (await get('/?from=test&x=1')).text(), 'Hello, World!');
    assert.equal((await get('/json?pretty')).status, 200);
  });

  test('GET /longPoll answers OK after CONCUR_LONGPOLL_MS', async () => {
    const started = performance.now();
    const res = await get('/longPoll');
    assert.equal(await res.text(), 'OK');
    assert.ok(performance.now() - started >= server.config.longPollMs - 5);
  });

  test('password set, verify, mismatch, unknown user, replace', async () => {
    assert.equal(await (await post('/password/set/alice', { password: 's3cret pässword' })).text(), 'OK');
    assert.equal((await post('/password/verify/alice', { password: 's3cret pässword' })).status, 200);
    assert.equal((await post('/password/verify/alice', { password: 's3cret password' })).status, 403);
    assert.equal((await post('/password/verify/nobody', { password: 'x' })).status, 404);
    assert.equal((await post('/password/set/alice', { password: 'second' })).status, 200);
    assert.equal((await post('/password/verify/alice', { password: 's3cret pässword' })).status, 403);
    assert.equal((await post('/password/verify/alice', { password: 'second' })).status, 200);
  });

  test('a 72-byte password and the empty password are accepted', async () => {
    const max = 'é'.repeat(36);
    assert.equal((await post('/password/set/max', { password: max })).status, 200);
    assert.equal((await post('/password/verify/max', { password: max })).status, 200);
    assert.equal((await post('/password/set/empty', { password: '' })).status, 200);
    assert.equal((await post('/password/verify/empty', { password: '' })).status, 200);
  });

  test('the password and user stores are separate', async () => {
    assert.equal((await post('/user/set/infoonly', { password: 'x' })).status, 200);
    assert.equal((await post('/password/verify/infoonly', { password: 'x' })).status, 404);
  });

  test('user set then get returns the same JSON value; replacing works', async () => {
    const value = {
      name: 'Ada',
      tags: ['x', 'y'],
      nested: { ok: true, none: null, list: [1, [2, 3], { k: 'v' }] },
      unicode: 'héllo ✓ 🚀 "q" \\',
      ratio: 2.5,
      big: 9007199254740991,
    };
    assert.equal((await post('/user/set/A-z_0.9', value)).status, 200);
    let res = await get('/user/get/A-z_0.9');
    assert.match(res.headers.get('content-type') ?? '', /^application\/json(;|$)/);
    assert.deepEqual(await res.json(), value);
    await post('/user/set/A-z_0.9', ' { } ');
    res = await get('/user/get/A-z_0.9');
    assert.deepEqual(await res.json(), {});
    assert.equal((await get('/user/get/unknown')).status, 404);
  });

  test('no Content-Type is needed, and any is accepted', async () => {
    for (const type of [undefined, 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1']) {
      const headers: Record<string, string> = type ? { 'content-type': type } : {};
      const res = await fetch(`${server.url}/user/set/typed`, { method: 'POST', body: '{"t":1}', headers });
      assert.equal(res.status, 200, `Content-Type ${type}`);
    }
  });

  test('HEAD on a GET route is 200 without a body', async () => {
    const res = await get('/json', { method: 'HEAD' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-length'), '27');
    assert.equal(await res.text(), '');
  });
});

describe('/page delay', () => {
  let server: TestServer;
  before(async () => (server = await startServer({ pageDelayEvery: 3, pageDelayMs: 500 })));
  after(() => server.stop());

  const timedPage = async () => {
    const started = performance.now();
    const res = await fetch(`${server.url}/page`);
    await res.arrayBuffer();
    return performance.now() - started >= server.config.pageDelayMs - 5;
  };

  test('every Nth request is delayed, counted from 1', async () => {
    const delayed = [];
    for (let i = 0; i < 6; i++) delayed.push(await timedPage());
    assert.deepEqual(delayed, [false, false, true, false, false, true]);
  });

  test('the delayed request blocks no other', async () => {
    const delayed = await Promise.all(Array.from({ length: 6 }, timedPage));
    assert.equal(delayed.filter(Boolean).length, 2);
  });
});

describe('/page file', () => {
  test('is read on every request, whatever its name', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'concur-page-'));
    const pageFile = join(dir, '.page.txt');
    await writeFile(pageFile, 'one');
    const server = await startServer({ pageFile, pageDelayEvery: 1000 });
    try {
      assert.equal(await (await fetch(`${server.url}/page`)).text(), 'one');
      await writeFile(pageFile, 'two, longer');
      const res = await fetch(`${server.url}/page`);
      assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
      assert.equal(await res.text(), 'two, longer');
    } finally {
      await server.stop();
    }
  });

  test('a missing file is a one-line 500, not a 404', async () => {
    const server = await startServer({ pageFile: '/nonexistent/concur/page.html' });
    try {
      const res = await fetch(`${server.url}/page`);
      assert.equal(res.status, 500);
      assert.match(await res.text(), /^cannot read CONCUR_PAGE_FILE: ENOENT$/);
    } finally {
      await server.stop();
    }
  });
});

describe('fault routes (SPEC §9)', () => {
  test('are unknown paths without CONCUR_FAULTS=1', async () => {
    const server = await startServer();
    try {
      for (const path of ['/fault/panic', '/fault/spin?ms=1']) assert.equal((await fetch(server.url + path)).status, 404);
    } finally {
      await server.stop();
    }
  });

  test('spin answers OK after ms, and counts a bad ms as 0', async () => {
    const server = await startServer({ faults: true });
    try {
      const started = performance.now();
      const res = await fetch(`${server.url}/fault/spin?ms=100`);
      assert.equal(await res.text(), 'OK');
      assert.ok(performance.now() - started >= 100);
      for (const query of ['', '?ms=', '?ms=x', '?ms=-5', '?ms=1.5', '?ms=1&ms=2']) {
        assert.equal((await fetch(`${server.url}/fault/spin${query}`)).status, 200, query);
      }
      assert.equal((await fetch(`${server.url}/fault/panic/x`)).status, 404);
    } finally {
      await server.stop();
    }
  });
});
