// SPEC §8 against a real PostgreSQL (helpers' databaseUrl): rows as stored,
// N clamped, updates written back, the fortunes page, the slow query, the
// pool's bound, and 503 while the database cannot be reached.

import { SQL } from "bun";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import net from "node:net";
import { databaseUrl, parseResponses, raw, spawnServer, startServer, stopDatabase } from "./helpers.ts";

const FORTUNES = `<!DOCTYPE html>
<html>
<head><title>Fortunes</title></head>
<body>
<table>
<tr><th>id</th><th>message</th></tr>
<tr><td>11</td><td>&lt;script&gt;alert(&quot;This should not be displayed in a browser alert box.&quot;);&lt;/script&gt;</td></tr>
<tr><td>4</td><td>A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1</td></tr>
<tr><td>5</td><td>A computer program does what you tell it to do, not what you want it to do.</td></tr>
<tr><td>2</td><td>A computer scientist is someone who fixes things that aren&#x27;t broken.</td></tr>
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

let url: string;
let admin: SQL;
// `concur db` starts a cluster in seconds, more on a loaded machine than bun test's 5 s hook timeout.
const DATABASE_START_MS = 60_000;
beforeAll(async () => {
  url = await databaseUrl();
  admin = new SQL({ url, max: 1 });
}, DATABASE_START_MS);
afterAll(async () => {
  await admin?.close();
  await stopDatabase();
});

async function stored(ids: number[]): Promise<Map<number, number>> {
  const rows = await admin`SELECT id, randomnumber FROM world WHERE id IN ${admin(ids)}`;
  return new Map(rows.map((r: { id: number; randomnumber: number }) => [r.id, r.randomnumber]));
}

async function rowsOf(res: Response): Promise<Row[]> {
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/json");
  const body = await res.json();
  const rows: Row[] = Array.isArray(body) ? body : [body];
  for (const row of rows) {
    expect(Object.keys(row).sort()).toEqual(["id", "randomNumber"]);
    expect(row.id).toBeGreaterThanOrEqual(1);
    expect(row.id).toBeLessThanOrEqual(10_000);
  }
  return rows;
}

// Connections opened since `since`: a new server's, not those the in-process server reopens.
const connectionsSince = async (since: Date) =>
  Number((await admin`SELECT count(*)::int AS n FROM pg_stat_activity
    WHERE usename = current_user AND pid <> pg_backend_pid() AND backend_start >= ${since}`)[0].n);

describe("the database routes", () => {
  let server: ReturnType<typeof startServer>;
  beforeAll(() => {
    server = startServer({ dbUrl: url, dbPool: 4, dbSlowMs: 100 });
  });
  afterAll(() => server.stop());
  const get = (path: string) => fetch(server.url + path);
  /** The rows of `path` once it answers 200: right after connections were ended, the pool may still answer 503. */
  const answered = async (path: string) => {
    for (const deadline = performance.now() + 5000; performance.now() < deadline; ) {
      const res = await get(path);
      if (res.status !== 503) return rowsOf(res);
      await res.body?.cancel();
      await Bun.sleep(100);
    }
    return rowsOf(await get(path));
  };

  test("/db is one row as stored", async () => {
    const res = await get("/db");
    const [row] = await rowsOf(res);
    expect(await stored([row!.id])).toEqual(new Map([[row!.id, row!.randomNumber]]));
  });

  test("/queries clamps N", async () => {
    const cases: [string, number][] = [["", 1], ["?queries=", 1], ["?queries=foo", 1], ["?queries=0", 1], ["?queries=-3", 1], ["?queries=%2B5", 1],
      ["?queries=1", 1], ["?queries=20", 20], ["?queries=500", 500], ["?queries=501", 500], ["?queries=99999999999", 500]];
    for (const [query, n] of cases) {
      const res = await get("/queries" + query);
      expect(res.headers.get("content-type")).toBe("application/json");
      const body = await res.json();
      expect([query, Array.isArray(body) && body.length]).toEqual([query, n]);
    }
    const rows = await rowsOf(await get("/queries?queries=5"));
    const now = await stored(rows.map((r) => r.id));
    for (const r of rows) expect(now.get(r.id)).toBe(r.randomNumber);
  });

  test("/queries over HTTP/1.0 without Host reads N (Bun's req.url is then the bare target)", async () => {
    const [res] = parseResponses((await raw(server.port, "GET /queries?queries=3 HTTP/1.0\r\n\r\n")).text);
    expect(res!.status).toBe(200);
    expect(JSON.parse(res!.body)).toHaveLength(3);
  });

  test("/updates writes the new numbers", async () => {
    const rows = await rowsOf(await get("/updates?queries=20"));
    expect(rows).toHaveLength(20);
    const drawn = new Map<number, number[]>();
    for (const r of rows) drawn.set(r.id, [...(drawn.get(r.id) ?? []), r.randomNumber]);
    const now = await stored([...drawn.keys()]);
    for (const [id, numbers] of drawn) expect(numbers).toContain(now.get(id)!);
  });

  test("/updates writes with one UPDATE over unnest per request, no transaction (spec/POLICIES.md §6)", async () => {
    // pg_stat_statements (concur db loads it) counts the statements of this user's sessions.
    const calls = async () =>
      Object.fromEntries(
        (await admin`SELECT CASE WHEN query LIKE 'UPDATE world SET randomnumber = u.r FROM unnest(%' THEN 'update'
                                 WHEN query ILIKE 'UPDATE%' THEN 'other update' ELSE upper(query) END AS kind,
                            sum(calls)::int AS n
                     FROM pg_stat_statements WHERE query ILIKE 'UPDATE%' OR upper(query) IN ('BEGIN', 'COMMIT')
                     GROUP BY 1`).map((r: { kind: string; n: number }) => [r.kind, r.n]),
      );
    const before = await calls();
    for (const n of [1, 20, 3]) expect(await rowsOf(await get(`/updates?queries=${n}`))).toHaveLength(n);
    const after = await calls();
    const delta = (kind: string) => (after[kind] ?? 0) - (before[kind] ?? 0);
    expect([delta("update"), delta("other update"), delta("BEGIN"), delta("COMMIT")]).toEqual([3, 0, 0, 0]);
  });

  test("/fortunes is the escaped, sorted page", async () => {
    for (let i = 0; i < 2; i++) {
      const res = await get("/fortunes");
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(await res.text()).toBe(FORTUNES);
    }
  });

  test("/slowdb waits in the query", async () => {
    const start = performance.now();
    await rowsOf(await get("/slowdb"));
    expect(performance.now() - start).toBeGreaterThanOrEqual(100);
  });

  test("another method is 405 with Allow, a longer path 404", async () => {
    for (const path of ["/db", "/queries", "/updates", "/fortunes", "/slowdb"]) {
      const res = await fetch(server.url + path, { method: "POST" });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toContain("GET");
    }
    expect((await get("/db/1")).status).toBe(404);
  });

  test("a connection the database ended is replaced", async () => {
    await answered("/queries?queries=3");
    const ended = await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = current_user AND pid <> pg_backend_pid()`;
    expect(ended.length).toBeGreaterThan(0);
    await answered("/db");
  });
});

test("connections the database ended under queries all serve again", async () => {
  // With CONCUR_DB_POOL=2, 4 slow queries at once take 2 rounds; a connection the pool lost
  // after the database ended it under a query (or a reserved one never given back) would make that 4.
  const since = (await admin`SELECT now() AS now`)[0].now as Date;
  const server = spawnServer({ CONCUR_CORES: "1", CONCUR_DB_URL: url, CONCUR_DB_POOL: "2", CONCUR_DB_SLOW_MS: "300" });
  try {
    const port = await server.started;
    const slow = async (n: number) => {
      const answers = await Promise.all(Array.from({ length: n }, () => fetch(`http://127.0.0.1:${port}/slowdb`)));
      for (const res of answers) await res.body?.cancel();
      return answers.map((r) => r.status);
    };
    for (let i = 0; i < 2; i++) {
      const pending = slow(2);
      await Bun.sleep(150);
      const ended = await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE usename = current_user AND pid <> pg_backend_pid() AND backend_start >= ${since}`;
      expect(ended.length).toBeGreaterThan(0);
      await pending;
      for (const deadline = performance.now() + 5000; (await slow(2)).some((status) => status !== 200); ) {
        expect(performance.now()).toBeLessThan(deadline);
      }
      const start = performance.now();
      expect(await slow(4)).toEqual(Array(4).fill(200));
      expect(performance.now() - start).toBeLessThan(1000);
    }
  } finally {
    server.stop();
    await server.child.exited;
  }
}, 20_000);

for (const cores of ["1", "2"]) {
  test(`with CONCUR_DB_POOL=2 at ${cores} core(s), 8 slow queries hold at most 2 connections and take 4 rounds`, async () => {
    const since = (await admin`SELECT now() AS now`)[0].now as Date;
    const server = spawnServer({ CONCUR_CORES: cores, CONCUR_DB_URL: url, CONCUR_DB_POOL: "2", CONCUR_DB_SLOW_MS: "100" });
    try {
      const port = await server.started;
      const start = performance.now();
      const pending = Array.from({ length: 8 }, () => fetch(`http://127.0.0.1:${port}/slowdb`, { headers: { Connection: "close" } }));
      await Bun.sleep(150);
      const held = await connectionsSince(since);
      const answers = await Promise.all(pending);
      expect(answers.map((r) => r.status)).toEqual(Array(8).fill(200));
      expect(held).toBeLessThanOrEqual(2);
      expect(performance.now() - start).toBeGreaterThanOrEqual(400);
    } finally {
      server.stop();
      await server.child.exited;
    }
  });
}

function refusedUrl(): Promise<string> {
  return new Promise((done) => {
    const probe = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => done(`postgres://u:p@127.0.0.1:${port}/db`));
    });
  });
}

for (const [name, makeUrl] of [["no CONCUR_DB_URL", async () => ""], ["a refused connection", refusedUrl]] as const) {
  test(`${name}: the database routes are 503 at once and / still serves`, async () => {
    const server = startServer({ dbUrl: await makeUrl() });
    try {
      for (const path of ["/db", "/queries?queries=2", "/updates", "/fortunes", "/slowdb"]) {
        const start = performance.now();
        const res = await fetch(server.url + path);
        expect([path, res.status]).toEqual([path, 503]);
        expect(res.headers.get("content-type")).toStartWith("text/plain");
        const reason = (await res.text()).trim();
        expect(reason.length).toBeGreaterThan(0);
        expect(reason).not.toContain("\n");
        expect(performance.now() - start).toBeLessThan(5000);
      }
      expect(await (await fetch(server.url + "/")).text()).toBe("Hello, World!");
    } finally {
      await server.stop();
    }
  });
}
