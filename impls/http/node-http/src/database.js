// The database of SPEC §8 on node-postgres (`pg`), the community's driver,
// and its Pool. A request checks one client out for all its statements
// (`pool.connect()`); when every client is busy the request's promise waits
// in the pool's pending queue, on the event loop, until a client is released.
// Each statement is a named query: node-postgres prepares it on a connection
// the first time it runs there and only binds and executes it after that.

import pg from 'pg';
import { HttpError } from './respond.js';

const WORLD_ROWS = 10_000;
const MAX_QUERIES = 500;

/** The environment variable by which the cluster primary gives a worker its share of CONCUR_DB_POOL. */
export const POOL_SHARE = 'CLUSTER_DB_POOL_SHARE';

/**
 * CONCUR_DB_POOL divided among `processes` workers: the same share each,
 * the remainder one more to the first ones, so the shares add up to `pool`.
 */
export function poolShares(pool, processes) {
  return Array.from({ length: processes }, (_, i) => Math.floor(pool / processes) + (i < pool % processes ? 1 : 0));
}

/**
 * The pool of this process, at most `size` connections, or why there is
 * none. It connects only when a request needs a client, so the server
 * starts, and serves its other routes, with the database down.
 */
export function openDatabase(url, size) {
  if (!url) return { pool: null, absent: 'CONCUR_DB_URL is not set' };
  const pool = new pg.Pool({ connectionString: url, max: size });
  // A client whose connection breaks emits 'error', idle in the pool (which
  // passes it on as the pool's) or checked out; unheard, either would end
  // the process. The request that holds it sees the error as its query's.
  pool.on('connect', (client) => client.on('error', () => {}));
  pool.on('error', (err) => console.error(`node-http: an idle database connection failed (${oneLine(err)}); the pool drops it`));
  return { pool, absent: null };
}

/**
 * Runs `work(client)` on a client checked out of the pool and released
 * after; the pool's or a query's error answers 503 (SPEC §8.4). A client
 * whose query failed is released with the error, so the pool closes it
 * instead of handing out a connection in an unknown state.
 */
export async function withClient(db, work) {
  if (!db.pool) throw unavailable(db.absent);
  let client;
  try {
    client = await db.pool.connect();
  } catch (err) {
    throw unavailable(oneLine(err));
  }
  try {
    const result = await work(client);
    client.release();
    return result;
  } catch (err) {
    client.release(err);
    throw unavailable(oneLine(err));
  }
}

const unavailable = (reason) => new HttpError(503, `database unavailable: ${reason}`);

const oneLine = (err) => String(err?.message ?? err).replace(/\s+/g, ' ');

export const randomId = () => Math.floor(Math.random() * WORLD_ROWS) + 1;

/** `queries` of the request target, clamped to 1..500; anything but an integer counts as 1. */
export function queryCount(target) {
  const query = target.indexOf('?');
  const raw = new URLSearchParams(query === -1 ? '' : target.slice(query + 1)).get('queries') ?? '';
  const n = /^[+-]?\d+$/.test(raw) ? Number(raw) : 1;
  return Math.min(Math.max(n, 1), MAX_QUERIES);
}
