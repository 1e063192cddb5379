// SPEC §8 against a real PostgreSQL (helpers' databaseUrl): rows as stored,
// N clamped, updates written back, the fortunes page, the slow query, the
// pool's bound, a request waiting for a connection as long as it takes, and
// 503 while the database cannot be reached, then 200 again when it can.

import assert from 'node:assert/strict';
import postgres from 'postgres';
import { lostConnection } from '../src/database.ts';
import {
  databaseUrl,
  parseResponses,
  raw,
  spawnServer,
  startServer,
  step,
  stopDatabase,
  superuserUrl,
} from './helpers.ts';

const FORTUNES = `<!DOCTYPE html>
<html>
<head><title>Fortunes</title></head>
<body>
<table>
<tr><th>id</th><th>message</th></tr>
<tr><td>11</td><td>&lt;script&gt;alert(&quot;This should not be displayed in a browser alert box.&quot;);&lt;/script&gt;</td></tr>
<tr><td>4</td><td>A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1</td></tr>
<tr><td>5</td><td>A computer program does what you tell it to do, not what you want it to do.</td></tr>
<tr><td>2</td><td>A computer scientist is someone who fixes things that aren&#39;t broken.</td></tr>
<tr><td>8</td><td>A list is only as strong as its weakest link. — Donald Knuth</td></tr>
<tr><td>0</td><td>Additional fortune added at request time.</td></tr>
<tr><td>3</td><td>After enough decimal places, nobody gives a damn.</td></tr>
<tr><td>7</td><td>Any program that runs right is obsolete.</td></tr>
<tr><td>10</td><td>Computers make very fast, very accurate mistakes.</td></tr>
<tr><td>6</td><td>Emacs is a nice operating system, but I prefer UNIX. — Tom Christaensen</td></tr>
<tr><td>9</td><td>Feature: A bug with seniority.</td></tr>
<tr><td>1</td><td>fortune: No such file or directory</td></tr>
<tr><td>12</td><td>フレームワークのベンチマーク</td></tr>
</table>
</body>
</html>
`;

type Row = { id: number; randomNumber: number };

async function rowsOf(res: Response): Promise<Row[]> {
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/json');
  const body = await res.json();
  const rows: Row[] = Array.isArray(body) ? body : [body];
  for (const row of rows) {
    assert.deepEqual(Object.keys(row).sort(), ['id', 'randomNumber']);
    assert.ok(row.id >= 1 && row.id <= 10_000, JSON.stringify(row));
  }
  return rows;
}

Deno.test({
  name: 'the database routes',
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    const url = await databaseUrl();
    const admin = postgres(url, { max: 1, onnotice: () => {} });
    const stored = async (ids: number[]) =>
      new Map(
        (await admin<{ id: number; randomnumber: number }[]>`SELECT id, randomnumber FROM world WHERE id IN ${
          admin(ids)
        }`)
          .map((r) => [r.id, r.randomnumber]),
      );
    // Connections opened since `since`: the spawned server's, not those the in-process server reopens.
    const connectionsSince = async (since: Date) =>
      (await admin<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE usename = current_user AND pid <> pg_backend_pid() AND backend_start >= ${since}`)[0].n;
    const server = await startServer({ dbUrl: url, dbPool: 4, dbSlowMs: 100 });
    const get = (path: string) => fetch(server.url + path);
    /** The rows of `path` once it answers 200: right after connections were ended, the pool may still answer 503. */
    const answered = async (path: string) => {
      for (const deadline = performance.now() + 5000; performance.now() < deadline;) {
        const res = await get(path);
        if (res.status !== 503) return rowsOf(res);
        await res.body?.cancel();
        await new Promise((r) => setTimeout(r, 100));
      }
      return rowsOf(await get(path));
    };
    try {
      await step(t, '/db is one row as stored', async () => {
        const [row] = await rowsOf(await get('/db'));
        assert.deepEqual(await stored([row.id]), new Map([[row.id, row.randomNumber]]));
      });

      await step(t, '/queries clamps N and answers rows as stored', async () => {
        const cases: [string, number][] = [
          ['', 1],
          ['?queries=', 1],
          ['?queries=foo', 1],
          ['?queries=0', 1],
          ['?queries=-3', 1],
          ['?queries=%2B5', 1],
          ['?queries=1', 1],
          ['?queries=20', 20],
          ['?queries=500', 500],
          ['?queries=501', 500],
          ['?queries=99999999999', 500],
        ];
        for (const [query, n] of cases) {
          const body = await (await get('/queries' + query)).json();
          assert.deepEqual([query, Array.isArray(body) && body.length], [query, n]);
        }
        const rows = await rowsOf(await get('/queries?queries=5'));
        const now = await stored(rows.map((r) => r.id));
        for (const r of rows) assert.equal(now.get(r.id), r.randomNumber);
      });

      await step(t, '/queries over HTTP/1.0 without Host reads N', async () => {
        const [res] = parseResponses((await raw(server.port, 'GET /queries?queries=3 HTTP/1.0\r\n\r\n')).text);
        assert.equal(res.status, 200);
        assert.equal(JSON.parse(res.body).length, 3);
      });

      await step(t, '/updates writes the new numbers', async () => {
        const rows = await rowsOf(await get('/updates?queries=20'));
        assert.equal(rows.length, 20);
        const drawn = new Map<number, number[]>();
        for (const r of rows) drawn.set(r.id, [...(drawn.get(r.id) ?? []), r.randomNumber]);
        const now = await stored([...drawn.keys()]);
        for (const [id, numbers] of drawn) {
          assert.ok(numbers.includes(now.get(id)!), `row ${id}: ${numbers} vs ${now.get(id)}`);
        }
      });

      await step(t, '/updates writes with one UPDATE over unnest per request, no transaction', async () => {
        // pg_stat_statements (concur db loads it) counts the statements of this user's sessions.
        const calls = async () =>
          Object.fromEntries(
            (await admin<{ kind: string; n: number }[]>`
              SELECT CASE WHEN query LIKE 'UPDATE world SET randomnumber = u.r FROM unnest(%' THEN 'update'
                          WHEN query ILIKE 'UPDATE%' THEN 'other update' ELSE upper(query) END AS kind,
                     sum(calls)::int AS n
              FROM pg_stat_statements WHERE query ILIKE 'UPDATE%' OR upper(query) IN ('BEGIN', 'COMMIT')
              GROUP BY 1`).map((r) => [r.kind, r.n]),
          );
        const before = await calls();
        for (const n of [1, 20, 3]) assert.equal((await rowsOf(await get(`/updates?queries=${n}`))).length, n);
        const after = await calls();
        const delta = (kind: string) => (after[kind] ?? 0) - (before[kind] ?? 0);
        assert.deepEqual([delta('update'), delta('other update'), delta('BEGIN'), delta('COMMIT')], [3, 0, 0, 0]);
      });

      await step(t, '/fortunes is the escaped, sorted page', async () => {
        for (let i = 0; i < 2; i++) {
          const res = await get('/fortunes');
          assert.equal(res.status, 200);
          assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
          assert.equal(await res.text(), FORTUNES);
        }
      });

      await step(t, '/slowdb waits in the query', async () => {
        const start = performance.now();
        await rowsOf(await get('/slowdb'));
        assert.ok(performance.now() - start >= 100);
      });

      await step(t, 'another method is 405 with Allow, a longer path 404', async () => {
        for (const path of ['/db', '/queries', '/updates', '/fortunes', '/slowdb']) {
          const res = await fetch(server.url + path, { method: 'POST' });
          await res.body?.cancel();
          assert.equal(res.status, 405);
          assert.match(res.headers.get('allow') ?? '', /GET/);
        }
        const res = await get('/db/1');
        await res.body?.cancel();
        assert.equal(res.status, 404);
      });

      await step(
        t,
        'a connection the database ended is replaced, and a query right after it is never a 500',
        async () => {
          for (let i = 0; i < 3; i++) {
            await answered('/queries?queries=8');
            const ended =
              await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = current_user AND pid <> pg_backend_pid()`;
            assert.ok(ended.length > 0);
            const res = await get('/db');
            await res.body?.cancel();
            assert.ok([200, 503].includes(res.status), String(res.status));
          }
          await answered('/db');
        },
      );

      await step(t, 'connections the database ended under queries all serve again', async () => {
        // With CONCUR_DB_POOL=2, 4 slow queries at once take 2 rounds; a connection the pool
        // lost after the database ended it under a query would make that 4 rounds.
        const since = (await admin<{ now: Date }[]>`SELECT now()`)[0].now;
        const spawned = spawnServer({ CONCUR_DB_URL: url, CONCUR_DB_POOL: '2', CONCUR_DB_SLOW_MS: '300' });
        const slow = async (n: number) => {
          const answers = await Promise.all(
            Array.from({ length: n }, () => fetch(`http://127.0.0.1:${port}/slowdb`)),
          );
          for (const res of answers) await res.body?.cancel();
          return answers.map((r) => r.status);
        };
        let port = 0;
        try {
          port = await spawned.started;
          for (let i = 0; i < 2; i++) {
            const pending = slow(2);
            await new Promise((r) => setTimeout(r, 150));
            const ended = await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
              WHERE usename = current_user AND pid <> pg_backend_pid() AND backend_start >= ${since}`;
            assert.ok(ended.length > 0);
            await pending;
            // The requests that saw their connection end replaced its client: the next ones are 200s at once.
            assert.deepEqual(await slow(2), [200, 200]);
            const start = performance.now();
            assert.deepEqual(await slow(4), Array(4).fill(200));
            const took = performance.now() - start;
            assert.ok(took < 1000, `4 slow queries took ${Math.round(took)} ms on 2 connections`);
          }
        } finally {
          await spawned.stop();
        }
      });

      await step(t, 'a request waits for a connection as long as it takes: 4 s in the queue, then 200', async () => {
        // One connection and a 2 s query: the third request waits 4 s for it, longer than
        // the 3.5 s after which an earlier version answered 503.
        const spawned = spawnServer({ CONCUR_DB_URL: url, CONCUR_DB_POOL: '1', CONCUR_DB_SLOW_MS: '2000' });
        try {
          const port = await spawned.started;
          const start = performance.now();
          const answers = await Promise.all(Array.from({ length: 3 }, async () => {
            const res = await fetch(`http://127.0.0.1:${port}/slowdb`);
            await res.body?.cancel();
            return [res.status, performance.now() - start];
          }));
          assert.deepEqual(answers.map(([status]) => status), [200, 200, 200]);
          const last = Math.max(...answers.map(([, took]) => took));
          assert.ok(last >= 6000, `the third answered after ${Math.round(last)} ms`);
        } finally {
          await spawned.stop();
        }
      });

      await step(
        t,
        'connections ended under queries while logins are refused: 503s within 5 s, and every connection serves again once logins are back',
        async () => {
          // What `concur verify`'s db-unreachable does (no new logins, then pg_terminate_backend), with
          // queries in flight: postgres.js 3.4.9 would keep the failed query on its connection and log in
          // again and again while refused (porsager/postgres#1130), the next request waiting in it.
          const root = postgres(superuserUrl(url), { max: 1, onnotice: () => {} });
          const name = new URL(url).pathname.slice(1);
          const user = decodeURIComponent(new URL(url).username);
          const since = (await admin<{ now: Date }[]>`SELECT now()`)[0].now;
          const spawned = spawnServer({ CONCUR_DB_URL: url, CONCUR_DB_POOL: '2', CONCUR_DB_SLOW_MS: '500' });
          let port = 0;
          /** One request, given up after 10 s (a request stuck in a connection's logins is never answered). */
          const call = async (path: string) => {
            const start = performance.now();
            try {
              const res = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(10_000) });
              return { path, res, body: await res.text(), took: performance.now() - start };
            } catch (err) {
              throw new Error(`${path}: ${err}`);
            }
          };
          const slow = async (n: number) =>
            (await Promise.all(Array.from({ length: n }, () => call('/slowdb')))).map((a) => a.res.status);
          const paths = ['/db', '/queries?queries=2', '/updates', '/fortunes', '/slowdb'];
          try {
            port = await spawned.started;
            assert.deepEqual(await slow(2), [200, 200]);
            let refused = false;
            try {
              const pending = slow(2);
              await new Promise((r) => setTimeout(r, 200));
              await root.unsafe(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
              refused = true;
              const ended = await root`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                WHERE usename = ${user} AND backend_start >= ${since}`;
              assert.equal(ended.length, 2);
              assert.deepEqual(await pending, [503, 503]);
              // Each route alone, then three requests per connection at once.
              const alone = [];
              for (const path of paths) alone.push(await call(path));
              const together = await Promise.all(Array.from({ length: 6 }, (_, i) => call(paths[i % paths.length])));
              for (const { path, res, body, took } of [...alone, ...together]) {
                assert.deepEqual([path, res.status], [path, 503]);
                assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
                assert.match(body, /^database unavailable: .*not currently accepting connections/);
                assert.ok(took < 5000, `${path} took ${Math.round(took)} ms`);
              }
            } finally {
              if (refused) await root.unsafe(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
            }
            for (const path of paths) {
              const { res } = await call(path);
              assert.deepEqual([path, res.status], [path, 200]);
            }
            // Both connections serve: 4 slow queries take 2 rounds of 500 ms, not 4.
            const start = performance.now();
            assert.deepEqual(await slow(4), [200, 200, 200, 200]);
            const took = performance.now() - start;
            assert.ok(took < 1500, `4 slow queries took ${Math.round(took)} ms on 2 connections`);
          } finally {
            await spawned.stop();
            await root.end();
          }
        },
      );

      await step(t, 'an error of the statement keeps the connection, an error of the connection does not', async () => {
        const statement = await admin`SELECT 1 / 0`.catch((err) => err);
        assert.equal(statement.code, '22012');
        assert.equal(lostConnection(statement), false);
        const refused = postgres(refusedUrl(), { max: 1, connect_timeout: 3 });
        try {
          const err = await refused`SELECT 1`.catch((err) => err);
          assert.equal(err.code, 'ECONNREFUSED');
          assert.equal(lostConnection(err), true);
        } finally {
          await refused.end({ timeout: 0 });
        }
      });

      for (const cores of ['1', '2']) {
        await step(
          t,
          `with CONCUR_DB_POOL=2 at ${cores} core(s), 8 slow queries hold at most 2 connections and take 4 rounds`,
          async () => {
            const since = (await admin<{ now: Date }[]>`SELECT now()`)[0].now;
            const spawned = spawnServer({
              CONCUR_CORES: cores,
              CONCUR_DB_URL: url,
              CONCUR_DB_POOL: '2',
              CONCUR_DB_SLOW_MS: '100',
            });
            try {
              const port = await spawned.started;
              const start = performance.now();
              const pending = Array.from({ length: 8 }, () => fetch(`http://127.0.0.1:${port}/slowdb`));
              await new Promise((r) => setTimeout(r, 150));
              const held = await connectionsSince(since);
              const answers = await Promise.all(pending);
              for (const res of answers) await res.body?.cancel();
              assert.deepEqual(answers.map((r) => r.status), Array(8).fill(200));
              assert.ok(held <= 2, `held ${held} connections`);
              assert.ok(performance.now() - start >= 400);
            } finally {
              await spawned.stop();
            }
          },
        );
      }
    } finally {
      await server.stop();
      await admin.end();
      await stopDatabase();
    }
  },
});

function refusedUrl(): string {
  const listener = Deno.listen({ hostname: '127.0.0.1', port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return `postgres://u:p@127.0.0.1:${port}/db`;
}

for (const [name, url] of [['no CONCUR_DB_URL', ''], ['a refused connection', refusedUrl()]]) {
  Deno.test({
    name: `${name}: the database routes are 503 at once and / still serves`,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async () => {
      const server = await startServer({ dbUrl: url });
      try {
        for (const path of ['/db', '/queries?queries=2', '/updates', '/fortunes', '/slowdb']) {
          const start = performance.now();
          const res = await fetch(server.url + path);
          assert.deepEqual([path, res.status], [path, 503]);
          assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
          const reason = (await res.text()).trim();
          assert.ok(reason.length > 0 && !reason.includes('\n'), reason);
          assert.ok(performance.now() - start < 5000);
        }
        assert.equal(await (await fetch(server.url + '/')).text(), 'Hello, World!');
      } finally {
        await server.stop();
      }
    },
  });
}
