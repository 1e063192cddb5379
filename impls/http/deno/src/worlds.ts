// The database routes of SPEC §8.3 on postgres.js' tagged templates.
// postgres.js prepares each statement (named, per connection) the first time
// a connection runs it and reuses it after (`prepare: true`, its default).
// Each request runs on one connection no other request holds (`db.run`) and
// awaits each statement before it sends the next (spec/POLICIES.md §6, Rule R):
// no pipelining, and no request's reads spread over several connections.

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
  const readRow = async (sql: Sql): Promise<World> => {
    const [row] = await sql<
      { id: number; randomnumber: number }[]
    >`SELECT id, randomnumber FROM world WHERE id = ${randomId()}`;
    return { id: row.id, randomNumber: row.randomnumber };
  };
  /** `n` rows, one statement each, each sent once the one before has been answered. */
  const readRows = async (sql: Sql, n: number) => {
    const rows: World[] = [];
    for (let i = 0; i < n; i++) rows.push(await readRow(sql));
    return rows;
  };

  async function updates(req: Request): Promise<Response> {
    const n = countOf(req);
    const rows = await db.run(async (sql) => {
      const rows = await readRows(sql, n);
      for (const row of rows) row.randomNumber = randomId();
      // One statement for every row (spec/POLICIES.md §6, Rule W), no transaction: the arrays
      // in ascending id order, so two requests lock the rows they share in the same order and
      // never deadlock. postgres.js sends each JavaScript array as the int[] the statement's
      // `::int[]` asks for.
      const sorted = rows.toSorted((a, b) => a.id - b.id);
      const ids = sorted.map((row) => row.id);
      const numbers = sorted.map((row) => row.randomNumber);
      await sql`UPDATE world SET randomnumber = u.r FROM unnest(${ids}::int[], ${numbers}::int[]) AS u(id, r) WHERE world.id = u.id`;
      return rows;
    });
    // In the order read, with their new numbers.
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
    single: async () => json(await db.run(readRow)),
    queries: async (req: Request) => {
      const n = countOf(req);
      return json(await db.run((sql) => readRows(sql, n)));
    },
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
