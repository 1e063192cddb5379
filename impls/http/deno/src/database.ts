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
// `postgres(url, { max: 1 })`, one client per connection, and a request takes a
// client no other request holds. A request that finds every client taken waits
// its turn in `#waiting`; no thread is held.

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
// And a deadline of its own: postgres.js 3.4.9 keeps a query that failed with
// a reset socket as its connection's current one (porsager/postgres#1130), so
// when the database then refuses the login, the refusal is taken for that old
// query's error and the connection retries for as long as the refusal lasts,
// the new query waiting in it. A slow query (CONCUR_DB_SLOW_MS) has that long more.
const DEADLINE_MS = 3500;

/** Worker `index`'s connections of `total` shared by `workers`: equal shares, the remainder to the first ones. */
export function poolShare(total: number, workers: number, index: number): number {
  return Math.max(1, Math.floor(total / workers) + (index < total % workers ? 1 : 0));
}

export type Sql = postgres.Sql;

export class Database {
  /** The clients no request holds, each with its one connection (open or not). */
  readonly #idle: Sql[] = [];
  /** The requests waiting for a client, oldest first. */
  readonly #waiting: ((sql: Sql) => void)[] = [];
  readonly #clients: Sql[];
  readonly #deadlineMs: number;

  constructor(config: Config, index = 0) {
    const size = config.dbUrl ? poolShare(config.dbPool, config.cores, index) : 0;
    this.#clients = Array.from({ length: size }, () =>
      postgres(config.dbUrl, {
        max: 1,
        connect_timeout: CONNECT_TIMEOUT_S,
        backoff,
        onnotice: () => {},
      }));
    this.#idle.push(...this.#clients);
    this.#deadlineMs = DEADLINE_MS + config.dbSlowMs;
  }

  /**
   * Runs `work` on a client (one connection) no other request holds, given
   * back when `work` is done; `work` awaits each statement before it sends the
   * next. Only the driver's calls run there, so whatever it throws (a refused
   * or closed socket, a refused login, a connect timeout, a server error) means
   * the database is out of reach: 503 with the reason (SPEC §8.4). So does a
   * `work` still unsettled after its deadline, the wait for a client included;
   * it is told by `expired()`, so that it starts no write the client was told
   * failed.
   */
  async run<T>(work: (sql: Sql, expired: () => boolean) => Promise<T>): Promise<T> {
    if (this.#clients.length === 0) throw new HttpError(503, 'database unavailable: CONCUR_DB_URL is not set');
    let timer: ReturnType<typeof setTimeout> | undefined;
    let expired = false;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        expired = true;
        reject(new HttpError(503, `database unavailable: no answer within ${this.#deadlineMs} ms`));
      }, this.#deadlineMs);
    });
    try {
      return await Promise.race([this.#held(work, () => expired), deadline]);
    } catch (err) {
      if (err instanceof HttpError) throw err;
      const code = (err as { code?: string }).code;
      throw new HttpError(503, `database unavailable: ${(err as Error).message}${code ? ` (${code})` : ''}`);
    } finally {
      clearTimeout(timer);
    }
  }

  async #held<T>(work: (sql: Sql, expired: () => boolean) => Promise<T>, expired: () => boolean): Promise<T> {
    const sql = this.#idle.pop() ?? await new Promise<Sql>((take) => this.#waiting.push(take));
    try {
      // A request answered 503 before a client was free runs nothing.
      if (expired()) throw new HttpError(503, 'database unavailable: no connection before the deadline');
      return await work(sql, expired);
    } finally {
      const next = this.#waiting.shift();
      next ? next(sql) : this.#idle.push(sql);
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.#clients.map((sql) => sql.end({ timeout: 1 })));
  }
}
