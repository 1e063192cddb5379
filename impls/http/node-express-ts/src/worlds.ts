// The database routes of SPEC §8.3 on their own express.Router. Each request
// checks out one client and runs all its statements on it; every statement
// is a named query, prepared on a connection the first time it runs there.
// /fortunes renders views/fortunes.pug through res.render.

import { Router, type RequestHandler } from 'express';
import type pg from 'pg';
import type { Config } from './config.js';
import { queryCount, randomId, withClient, type Database } from './database.js';
import { methodNotAllowed } from './errors.js';

interface World {
  id: number;
  randomNumber: number;
}

interface Fortune {
  id: number;
  message: string;
}

const SELECT_ROW = { name: 'world', text: 'SELECT id, randomnumber FROM world WHERE id = $1' };
// The wait is the query's own, so the connection is held through it.
const SELECT_SLOW = { name: 'world-slow', text: 'SELECT id, randomnumber FROM world, pg_sleep($2) WHERE id = $1' };
// One statement for the request's rows, given in ascending id order so that
// two requests lock the rows they share in the same order and never deadlock.
const UPDATE_ROWS = {
  name: 'world-update',
  text: 'UPDATE world SET randomnumber = u.r FROM unnest($1::int[], $2::int[]) AS u(id, r) WHERE world.id = u.id',
};
const SELECT_FORTUNES = { name: 'fortunes', text: 'SELECT id, message FROM fortune' };
const ADDED: Fortune = { id: 0, message: 'Additional fortune added at request time.' };

export function worldRouter(config: Config, db: Database): Router {
  const slowSeconds = config.dbSlowMs / 1000;
  const router = Router({ caseSensitive: true, strict: true });
  const route = (path: string, handler: RequestHandler) => router.route(path).get(handler).all(methodNotAllowed('GET'));

  route('/db', async (req, res) => {
    res.json(await withClient(db, (client) => readRow(client, SELECT_ROW)));
  });
  route('/queries', async (req, res) => {
    res.json(await withClient(db, (client) => readRows(client, queryCount(req.query.queries))));
  });
  route('/updates', async (req, res) => {
    res.json(await withClient(db, (client) => update(client, queryCount(req.query.queries))));
  });
  route('/slowdb', async (req, res) => {
    res.json(await withClient(db, (client) => readRow(client, SELECT_SLOW, [slowSeconds])));
  });
  route('/fortunes', async (req, res) => {
    const stored = await withClient(db, async (client) => (await client.query<Fortune>(SELECT_FORTUNES)).rows);
    // `<` compares UTF-16 code units: code point order for these messages,
    // none of which has a character outside the Basic Multilingual Plane.
    const fortunes = [...stored, ADDED].sort((a, b) => (a.message < b.message ? -1 : a.message > b.message ? 1 : 0));
    res.render('fortunes', { fortunes });
  });
  return router;
}

async function readRow(client: pg.PoolClient, statement: typeof SELECT_ROW, more: unknown[] = []): Promise<World> {
  const { rows } = await client.query<{ id: number; randomnumber: number }>({ ...statement, values: [randomId(), ...more] });
  const row = rows[0];
  if (!row) throw new Error(`world has no row for the id drawn`);
  return { id: row.id, randomNumber: row.randomnumber };
}

/**
 * `n` random rows, one statement each. They are all handed to the client at
 * once; node-postgres queues them and sends each when the one before has
 * been answered.
 */
const readRows = (client: pg.PoolClient, n: number) => Promise.all(Array.from({ length: n }, () => readRow(client, SELECT_ROW)));

async function update(client: pg.PoolClient, n: number): Promise<World[]> {
  const rows = await readRows(client, n);
  for (const row of rows) row.randomNumber = randomId();
  // Written in id order (see UPDATE_ROWS); answered in the order read.
  const sorted = [...rows].sort((a, b) => a.id - b.id);
  await client.query({ ...UPDATE_ROWS, values: [sorted.map((r) => r.id), sorted.map((r) => r.randomNumber)] });
  return rows;
}
