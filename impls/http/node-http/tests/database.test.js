// SPEC §8: the database routes against a real PostgreSQL seeded as §8.1
// says (see databaseUrl() in helpers.js), in process and, for the pool bound
// across processes, as a cluster of two workers.

import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { poolShares, queryCount } from '../src/database.js';
import { escapeHtml } from '../src/fortunes.js';
import { databaseUrl, spawnServer, startServer, stopDatabase } from './helpers.js';

after(stopDatabase);

/** Runs `work` on a connection of the test's own to the database. */
async function direct(work) {
  const client = new pg.Client({ connectionString: await databaseUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const stored = (id) => direct(async (c) => (await c.query('SELECT randomnumber FROM world WHERE id = $1', [id])).rows[0].randomnumber);

async function dbServer(overrides) {
  return startServer({ dbUrl: await databaseUrl(), ...overrides });
}

async function getRows(server, path) {
  const res = await fetch(server.url + path);
  assert.equal(res.status, 200, path);
  assert.equal(res.headers.get('content-type'), 'application/json');
  return res.json();
}

const elapsed = async (work) => {
  const start = performance.now();
  await work();
  return performance.now() - start;
};

const WANT_FORTUNES =
  '<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table><tr><th>id</th><th>message</th></tr>' +
  '<tr><td>11</td><td>&lt;script&gt;alert(&quot;This should not be displayed in a browser alert box.&quot;);&lt;/script&gt;</td></tr>' +
  '<tr><td>4</td><td>A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1</td></tr>' +
  '<tr><td>5</td><td>A computer program does what you tell it to do, not what you want it to do.</td></tr>' +
  '<tr><td>2</td><td>A computer scientist is someone who fixes things that aren&#39;t broken.</td></tr>' +
  '<tr><td>8</td><td>A list is only as strong as its weakest link. — Donald Knuth</td></tr>' +
  '<tr><td>0</td><td>Additional fortune added at request time.</td></tr>' +
  '<tr><td>3</td><td>After enough decimal places, nobody gives a damn.</td></tr>' +
  '<tr><td>7</td><td>Any program that runs right is obsolete.</td></tr>' +
  '<tr><td>10</td><td>Computers make very fast, very accurate mistakes.</td></tr>' +
  '<tr><td>6</td><td>Emacs is a nice operating system, but I prefer UNIX. — Tom Christaensen</td></tr>' +
  '<tr><td>9</td><td>Feature: A bug with seniority.</td></tr>' +
  '<tr><td>1</td><td>fortune: No such file or directory</td></tr>' +
  '<tr><td>12</td><td>フレームワークのベンチマーク</td></tr>' +
  '</table></body></html>';

describe('database routes (SPEC §8)', () => {
  let server;
  before(async () => (server = await dbServer({ dbPool: 4, dbSlowMs: 100 })));
  after(() => server.stop());

  test('GET /db is a row as the database holds it', async () => {
    const row = await getRows(server, '/db');
    assert.deepEqual(Object.keys(row), ['id', 'randomNumber']);
    assert.ok(row.id >= 1 && row.id <= 10_000);
    assert.equal(row.randomNumber, await stored(row.id));
  });

  test('GET /queries clamps N to 1..500, and its rows are as stored', async () => {
    const cases = { '': 1, '?queries=': 1, '?queries=foo': 1, '?queries=0': 1, '?queries=-3': 1, '?queries=1': 1, '?queries=20': 20, '?queries=500': 500, '?queries=501': 500 };
    for (const [query, want] of Object.entries(cases)) assert.equal((await getRows(server, `/queries${query}`)).length, want, query);
    for (const row of await getRows(server, '/queries?queries=3')) assert.equal(row.randomNumber, await stored(row.id));
  });

  test('queryCount takes only a whole decimal number', () => {
    for (const [target, want] of [['/q?queries=7', 7], ['/q?queries=7x', 1], ['/q?queries=1e2', 1], ['/q?queries=99999999999', 500], ['/q?other=3', 1], ['/q', 1]]) {
      assert.equal(queryCount(target), want, target);
    }
  });

  test('GET /updates writes the numbers it answers', async () => {
    const rows = await getRows(server, '/updates?queries=20');
    assert.equal(rows.length, 20);
    // An id drawn twice keeps one of its two numbers.
    for (const { id } of rows) {
      const draws = rows.filter((r) => r.id === id).map((r) => r.randomNumber);
      const now = await stored(id);
      assert.ok(draws.includes(now), `row ${id}: answered ${draws}, stored ${now}`);
    }
  });

  test('GET /fortunes is the sorted page, escaped, UTF-8, with the added fortune each time', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${server.url}/fortunes`);
      assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
      assert.equal(await res.text(), WANT_FORTUNES);
    }
  });

  test('escapeHtml escapes every character that could open markup or end an attribute', () => {
    assert.equal(escapeHtml(`<a href="x" title='y'>&amp;</a>`), '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;');
  });

  test('GET /slowdb waits CONCUR_DB_SLOW_MS in the database', async () => {
    const took = await elapsed(() => getRows(server, '/slowdb'));
    assert.ok(took >= 100, `took ${took} ms, want at least the 100 ms of CONCUR_DB_SLOW_MS`);
  });

  test('requests beyond the pool wait for a connection: 8 slow queries on 2 take 4 turns', async () => {
    const small = await dbServer({ dbPool: 2, dbSlowMs: 50 });
    try {
      const took = await elapsed(() => Promise.all(Array.from({ length: 8 }, () => getRows(small, '/slowdb'))));
      assert.ok(took >= 200, `took ${took} ms, want at least 4 × 50 ms`);
    } finally {
      await small.stop();
    }
  });

  test('another method is 405 with Allow, a longer path 404', async () => {
    for (const path of ['/db', '/queries', '/updates', '/fortunes', '/slowdb']) {
      const res = await fetch(server.url + path, { method: 'POST', body: '' });
      assert.equal(res.status, 405, path);
      assert.equal(res.headers.get('allow'), 'GET, HEAD');
    }
    assert.equal((await fetch(`${server.url}/db/1`)).status, 404);
  });
});

describe('no database (SPEC §8.4)', () => {
  test('each route answers 503 with a one-line reason and / is still served', async () => {
    const closed = net.createServer();
    await new Promise((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const refused = `postgres://u:p@127.0.0.1:${closed.address().port}/db`;
    await new Promise((resolve) => closed.close(resolve));
    for (const [name, dbUrl] of [['no CONCUR_DB_URL', ''], ['a refused connection', refused]]) {
      const server = await startServer({ dbUrl });
      try {
        for (const path of ['/db', '/queries?queries=2', '/updates', '/fortunes', '/slowdb']) {
          const res = await fetch(server.url + path);
          const body = await res.text();
          assert.equal(res.status, 503, `${name}: ${path}`);
          assert.match(res.headers.get('content-type'), /^text\/plain/);
          assert.match(body, /^database unavailable: [^\n]+$/, `${name}: ${path}`);
        }
        assert.equal(await (await fetch(`${server.url}/`)).text(), 'Hello, World!');
      } finally {
        await server.stop();
      }
    }
  });
});

describe('the pool bound across a cluster (CONCUR_CORES=2, CONCUR_DB_POOL=3)', () => {
  test('CONCUR_DB_POOL is divided so that the shares add up to it', () => {
    assert.deepEqual(poolShares(3, 2), [2, 1]);
    assert.deepEqual(poolShares(16, 3), [6, 5, 5]);
    assert.deepEqual(poolShares(2, 2), [1, 1]);
  });

  test('under 24 concurrent slow queries the two workers hold at most 3 connections together', async () => {
    const server = spawnServer({ CONCUR_CORES: '2', CONCUR_DB_URL: await databaseUrl(), CONCUR_DB_POOL: '3', CONCUR_DB_SLOW_MS: '100' });
    try {
      const port = await server.started;
      await direct(async (client) => {
        let peak = 0;
        let done = false;
        const sampling = (async () => {
          while (!done) {
            const { rows } = await client.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND datname = current_database()");
            peak = Math.max(peak, rows[0].n);
            await new Promise((r) => setTimeout(r, 5));
          }
        })();
        // A new connection per request, so that both workers get some.
        const get = () =>
          new Promise((resolve, reject) => {
            const req = http.get({ host: '127.0.0.1', port, path: '/slowdb', agent: false }, (res) => resolve(res.resume().statusCode));
            req.on('error', reject);
          });
        const took = await elapsed(async () => assert.deepEqual(new Set(await Promise.all(Array.from({ length: 24 }, get))), new Set([200])));
        done = true;
        await sampling;
        assert.ok(peak <= 3, `the workers held ${peak} connections at once`);
        assert.ok(peak >= 2, `the workers held at most ${peak} connection: both should have used theirs`);
        assert.ok(took >= 800, `24 queries of 100 ms on 3 connections took ${took} ms, want at least 8 turns`);
      });
    } finally {
      await server.stop();
    }
  });
});
