// The database routes of SPEC §8.3 on postgres.js' tagged templates.
// postgres.js prepares each statement (named, per connection) the first time
// a connection runs it and reuses it after (`prepare: true`, its default).
// The reads of one request are sent at once and the pool runs them on its
// connections, pipelined, as postgres.js code is written: SPEC §8.3 allows
// the statements of one request on several connections.

import type { Config } from './config.ts';
import type { Database, Sql } from './database.ts';
import { JSON_TYPE, respond } from './respond.ts';

const WORLD_ROWS = 10_000;
const MAX_QUERIES = 500;
const ADDED_FORTUNE = { id: 0, message: 'Additional fortune added at request time.' };

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
const countOf = (req: Request) => queryCount(new URL(req.url).searchParams.get('queries'));
const json = (value: unknown) => respond(200, JSON_TYPE, JSON.stringify(value));

export function createDatabaseRoutes(config: Config, db: Database) {
  const readRow = async (sql: Sql, id: number): Promise<World> => {
    const [row] = await sql<
      { id: number; randomnumber: number }[]
    >`SELECT id, randomnumber FROM world WHERE id = ${id}`;
    return { id: row.id, randomNumber: row.randomnumber };
  };
  // One call (and one deadline) for the request's reads, sent at once.
  const readRows = (n: number) =>
    db.run((sql) => Promise.all(Array.from({ length: n }, () => readRow(sql, randomId()))));

  async function updates(req: Request): Promise<Response> {
    const rows = await readRows(countOf(req));
    for (const row of rows) row.randomNumber = randomId();
    // One transaction, rows in id order: two requests lock shared rows alike and never deadlock.
    const sorted = rows.toSorted((a, b) => a.id - b.id);
    await db.run((sql, expired) =>
      sql.begin((tx) => {
        // A transaction that got its connection after the client had its 503 writes nothing.
        if (expired()) throw new Error('the request was answered 503 before a connection was free');
        return sorted.map((row) => tx`UPDATE world SET randomnumber = ${row.randomNumber} WHERE id = ${row.id}`);
      })
    );
    return json(rows);
  }

  async function slow(): Promise<Response> {
    const seconds = config.dbSlowMs / 1000;
    const row = await db.run(async (sql) => {
      // The wait is the query's own, so the connection is held through it.
      const [r] = await sql<{ id: number; randomnumber: number }[]>`
        SELECT id, randomnumber FROM world, pg_sleep(${seconds}) WHERE id = ${randomId()}`;
      return { id: r.id, randomNumber: r.randomnumber };
    });
    return json(row);
  }

  async function fortunes(): Promise<Response> {
    const stored = await db.run((sql) => sql<{ id: number; message: string }[]>`SELECT id, message FROM fortune`);
    const list = [...stored, ADDED_FORTUNE];
    // UTF-16 code unit order, which is SPEC §8.3's code point order for every character below U+10000
    // (all the fortunes'); localeCompare would sort by locale.
    list.sort((a, b) => (a.message < b.message ? -1 : a.message > b.message ? 1 : 0));
    return respond(200, 'text/html; charset=utf-8', fortunesPage(list));
  }

  return {
    single: async () => json(await db.run((sql) => readRow(sql, randomId()))),
    queries: async (req: Request) => json(await readRows(countOf(req))),
    updates,
    slow,
    fortunes,
  };
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Deno has no HTML escaping function of its own; this is the one of @std/html's escape(), written out. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** TechEmpower's page, every message escaped. */
function fortunesPage(list: { id: number; message: string }[]): string {
  const rows = list.map((f) => `<tr><td>${f.id}</td><td>${escapeHtml(f.message)}</td></tr>`).join('\n');
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
