// The PostgreSQL pool of the database routes (SPEC §8): postgres.js
// (`npm:postgres`), one pool per serving isolate. CONCUR_DB_POOL bounds the
// connections of all isolates together, so each takes its share
// (`poolShare`). postgres.js opens a connection when a query needs one and
// again after the database ended one, so the server starts, and serves its
// other routes, with the database down.
//
// A request holds one connection for all its statements and awaits each before
// it sends the next (spec/POLICIES.md §6, Rule R). A query sent on a postgres.js
// pool goes to an idle connection if there is one and otherwise onto a busy one,
// pipelined behind other requests' queries (up to its undocumented
// `max_pipeline`, 100). Its `sql.reserve()` hands out a connection for one
// caller, but in postgres.js 3.4.9 it loses connections when the database ends
// them: a reserve that reopens a connection the database ended under a query is
// rejected with that old query's error (porsager/postgres#1130) and still waits
// in the pool's queue, so the pool later hands the reopened connection to it,
// and to nobody (porsager/postgres#1195 strands a reserve in the same queue).
// After one pg_terminate_backend of four busy connections, three were lost that
// way and the pool served one request at a time. So the pool here is
// postgres.js' own advice for a connection of one's own (porsager/postgres#163):
// `postgres(url, { max: 1 })`, one client per connection (a slot), and a
// request takes a slot no other request holds. A request that finds every slot
// taken waits its turn in `#waiting`, for as long as it takes; no thread is held.
//
// The same bug reaches a `max: 1` client: a connection that lost its socket
// under a query keeps that query as its current one, so the next login's
// answer is taken for the old query's. When the database refuses that login,
// the connection logs in again and again, for as long as the refusal lasts,
// with the next request's query waiting in it. So a client whose call failed
// with the connection (not with an error of the statement) is ended and its
// slot gets a new client before the next request takes it.

import postgres from 'postgres';
import type { Config } from './config.ts';
import { HttpError } from './respond.ts';

// postgres.js waits 30 s for a connection by default; SPEC §8.4 wants the 503 within 5 s.
const CONNECT_TIMEOUT_S = 3;
// postgres.js waits before it reopens a connection the database closed, longer
// after each one that closed with an error (3^n/100 s, up to 20 s), and the
// query that reopens it waits with it: a few ended connections alone pass
// SPEC §8.4's 5 s. Its backoff, capped so that the wait and a connect timeout
// stay within them.
const MAX_BACKOFF_S = 0.5;
const backoff = (retries: number) => Math.min((0.5 + Math.random() / 2) * 3 ** retries / 100, MAX_BACKOFF_S);

/** Worker `index`'s connections of `total` shared by `workers`: equal shares, the remainder to the first ones. */
export function poolShare(total: number, workers: number, index: number): number {
  return Math.max(1, Math.floor(total / workers) + (index < total % workers ? 1 : 0));
}

/**
 * Whether `err` came from the connection rather than from the statement: a
 * socket's error (`ECONNREFUSED`, `ECONNRESET`), postgres.js' own
 * (`CONNECTION_CLOSED`, `CONNECT_TIMEOUT`, …), or PostgreSQL's `FATAL` (a
 * refused login, a connection ended by `pg_terminate_backend`). A statement's
 * error is PostgreSQL's `ERROR`, after which the connection serves on.
 */
export function lostConnection(err: unknown): boolean {
  return !(err instanceof postgres.PostgresError && err.severity === 'ERROR');
}

export type Sql = postgres.Sql;

export class Database {
  /** Each slot's client, with its one connection (open or not). */
  readonly #clients: Sql[];
  /** The slots no request holds. */
  readonly #idle: number[] = [];
  /** The requests waiting for a slot, oldest first. */
  readonly #waiting: ((slot: number) => void)[] = [];
  /** Clients replaced and still ending. */
  readonly #ending = new Set<Promise<void>>();
  readonly #url: string;

  constructor(config: Config, index = 0) {
    this.#url = config.dbUrl;
    const size = config.dbUrl ? poolShare(config.dbPool, config.cores, index) : 0;
    this.#clients = Array.from({ length: size }, () => this.#client());
    this.#idle.push(...this.#clients.keys());
  }

  #client(): Sql {
    return postgres(this.#url, { max: 1, connect_timeout: CONNECT_TIMEOUT_S, backoff, onnotice: () => {} });
  }

  /**
   * Runs `work` on a slot's client (one connection) no other request holds,
   * given back when `work` is done; `work` awaits each statement before it
   * sends the next. A request that finds every slot held waits for one, first
   * come first served, however long that takes. Only the driver's calls run
   * in `work`, so whatever it throws (a refused or closed socket, a refused
   * login, a connect timeout, a server error) means the database is out of
   * reach: 503 with the reason (SPEC §8.4). An error of the connection also
   * replaces the slot's client by a new one (`lostConnection`), so no client
   * carries a failed query into its next login (porsager/postgres#1130).
   */
  async run<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    if (this.#clients.length === 0) throw new HttpError(503, 'database unavailable: CONCUR_DB_URL is not set');
    const slot = this.#idle.pop() ?? await new Promise<number>((take) => this.#waiting.push(take));
    try {
      return await work(this.#clients[slot]);
    } catch (err) {
      if (lostConnection(err)) this.#replace(slot);
      const code = (err as { code?: string }).code;
      throw new HttpError(503, `database unavailable: ${(err as Error).message}${code ? ` (${code})` : ''}`);
    } finally {
      const next = this.#waiting.shift();
      next ? next(slot) : this.#idle.push(slot);
    }
  }

  /** Ends `slot`'s client at once (its connection is gone already) and puts a new one in its place. */
  #replace(slot: number): void {
    const old = this.#clients[slot];
    this.#clients[slot] = this.#client();
    const ending = old.end({ timeout: 0 }).catch(() => {}).finally(() => this.#ending.delete(ending));
    this.#ending.add(ending);
  }

  async close(): Promise<void> {
    await Promise.all([...this.#clients.map((sql) => sql.end({ timeout: 1 })), ...this.#ending]);
  }
}
