// The database routes of SPEC §8.3. Each request checks out one client and
// runs all its statements on it; every statement is a named query, prepared
// on a connection the first time it runs there.

import { queryCount, randomId, withClient } from './database.js';
import { fortunesPage } from './fortunes.js';
import { JSON_TYPE, send } from './respond.js';

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

/** The handlers of the five routes, by path, for `db` (see database.js). */
export function worldRoutes(config, db) {
  const slowSeconds = config.dbSlowMs / 1000;
  const sendJson = (res, value) => send(res, 200, JSON_TYPE, JSON.stringify(value));

  return {
    '/db': async (req, res) => sendJson(res, await withClient(db, (client) => readRow(client, SELECT_ROW))),
    '/queries': async (req, res) => sendJson(res, await withClient(db, (client) => readRows(client, queryCount(req.url)))),
    '/updates': async (req, res) => sendJson(res, await withClient(db, (client) => update(client, queryCount(req.url)))),
    '/slowdb': async (req, res) => sendJson(res, await withClient(db, (client) => readRow(client, SELECT_SLOW, [slowSeconds]))),
    '/fortunes': async (req, res) => {
      const { rows } = await withClient(db, (client) => client.query(SELECT_FORTUNES));
      send(res, 200, 'text/html; charset=utf-8', fortunesPage(rows));
    },
  };
}

async function readRow(client, statement, more = []) {
  const { rows } = await client.query({ ...statement, values: [randomId(), ...more] });
  return { id: rows[0].id, randomNumber: rows[0].randomnumber };
}

/**
 * `n` random rows, one statement each. They are all handed to the client at
 * once; node-postgres queues them and sends each when the one before has
 * been answered.
 */
const readRows = (client, n) => Promise.all(Array.from({ length: n }, () => readRow(client, SELECT_ROW)));

async function update(client, n) {
  const rows = await readRows(client, n);
  for (const row of rows) row.randomNumber = randomId();
  // Written in id order (see UPDATE_ROWS); answered in the order read.
  const sorted = [...rows].sort((a, b) => a.id - b.id);
  await client.query({ ...UPDATE_ROWS, values: [sorted.map((r) => r.id), sorted.map((r) => r.randomNumber)] });
  return rows;
}
