// The database routes of SPEC §8.3 on Bun.SQL's tagged templates. Bun
// prepares each statement (named, per connection) the first time a
// connection runs it and reuses it after (`prepare: true`, its default).
// The reads of one request are sent at once and the pool runs them on its
// connections, pipelined, as postgres.js (whose API Bun.SQL follows) does:
// SPEC §8.3 allows statements of one request on several connections.

import type { Config } from "./config.ts";
import type { Database } from "./database.ts";
import { JSON_TYPE, send } from "./respond.ts";

const WORLD_ROWS = 10_000;
const MAX_QUERIES = 500;
const ADDED_FORTUNE = { id: 0, message: "Additional fortune added at request time." };

interface World {
  id: number;
  randomNumber: number;
}

/** `queries` clamped to 1..500; anything that is not a decimal integer counts as 1. */
export function queryCount(text: string | null): number {
  if (text === null || !/^-?\d+$/.test(text)) return 1;
  return Math.min(Math.max(Number(text), 1), MAX_QUERIES);
}

const randomId = () => 1 + Math.floor(Math.random() * WORLD_ROWS);
// `new URL(req.url)` would throw on an HTTP/1.0 request without Host, whose url is the bare target.
const countOf = (req: Request) => {
  const query = req.url.indexOf("?");
  return queryCount(query === -1 ? null : new URLSearchParams(req.url.slice(query + 1)).get("queries"));
};

export function createDatabaseRoutes(config: Config, db: Database) {
  const readRow = (id: number) =>
    db.run(async (sql) => {
      const [row] = await sql`SELECT id, randomnumber FROM world WHERE id = ${id}`;
      return { id: row.id, randomNumber: row.randomnumber } as World;
    });
  const readRows = (n: number) => Promise.all(Array.from({ length: n }, () => readRow(randomId())));

  async function single(req: Request) {
    return send(req, 200, JSON_TYPE, JSON.stringify(await readRow(randomId())));
  }

  async function queries(req: Request) {
    return send(req, 200, JSON_TYPE, JSON.stringify(await readRows(countOf(req))));
  }

  async function updates(req: Request) {
    const rows = await readRows(countOf(req));
    for (const row of rows) row.randomNumber = randomId();
    // One transaction, rows in id order: two requests lock shared rows alike and never deadlock.
    const sorted = rows.toSorted((a, b) => a.id - b.id);
    await db.run((sql) =>
      sql.begin((tx) => sorted.map((row) => tx`UPDATE world SET randomnumber = ${row.randomNumber} WHERE id = ${row.id}`)),
    );
    return send(req, 200, JSON_TYPE, JSON.stringify(rows));
  }

  async function slow(req: Request) {
    const seconds = config.dbSlowMs / 1000;
    const row = await db.run(async (sql) => {
      // The wait is the query's own, so the connection is held through it.
      const [r] = await sql`SELECT id, randomnumber FROM world, pg_sleep(${seconds}) WHERE id = ${randomId()}`;
      return { id: r.id, randomNumber: r.randomnumber };
    });
    return send(req, 200, JSON_TYPE, JSON.stringify(row));
  }

  async function fortunes(req: Request) {
    const stored = await db.run((sql) => sql`SELECT id, message FROM fortune`);
    const list: { id: number; message: string }[] = [...stored, ADDED_FORTUNE];
    // UTF-16 code unit order, which is SPEC §8.3's code point order for every character below U+10000
    // (all the fortunes'); localeCompare would sort by locale.
    list.sort((a, b) => (a.message < b.message ? -1 : a.message > b.message ? 1 : 0));
    return send(req, 200, "text/html; charset=utf-8", fortunesPage(list));
  }

  return { single, queries, updates, slow, fortunes };
}

/** TechEmpower's page; Bun.escapeHTML escapes & < > " ' in each message. */
function fortunesPage(list: { id: number; message: string }[]): string {
  const rows = list.map((f) => `<tr><td>${f.id}</td><td>${Bun.escapeHTML(f.message)}</td></tr>`).join("\n");
  return `<!DOCTYPE html>
<html>
<head><title>Fortunes</title></head>
<body>
<table>
<tr><th>id</th><th>message</th></tr>
${rows}
</table>
</body>
</html>
`;
}
