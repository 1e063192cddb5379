// The PostgreSQL pool of the database routes (SPEC §8): postgres.js
// (`npm:postgres`), one pool per serving isolate. CONCUR_DB_POOL bounds the
// connections of all isolates together, so each takes its share
// (`poolShare`). postgres.js opens a connection when a query needs one and
// again after the database ended one, so the server starts, and serves its
// other routes, with the database down. A query that finds every connection
// busy waits in the pool's queue; no thread is held.

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
  readonly #sql: Sql | undefined;
  readonly #deadlineMs: number;

  constructor(config: Config, index = 0) {
    this.#sql = config.dbUrl
      ? postgres(config.dbUrl, {
        max: poolShare(config.dbPool, config.cores, index),
        connect_timeout: CONNECT_TIMEOUT_S,
        backoff,
        onnotice: () => {},
      })
      : undefined;
    this.#deadlineMs = DEADLINE_MS + config.dbSlowMs;
  }

  /**
   * Runs `work` on the pool. Only the driver's calls run there, so whatever it
   * throws (a refused or closed socket, a refused login, a connect timeout, a
   * server error) means the database is out of reach: 503 with the reason (SPEC §8.4).
   * So does a `work` still unsettled after its deadline; it is told by
   * `expired()`, so that it starts no write the client was told failed.
   */
  async run<T>(work: (sql: Sql, expired: () => boolean) => Promise<T>): Promise<T> {
    if (!this.#sql) throw new HttpError(503, 'database unavailable: CONCUR_DB_URL is not set');
    let timer: ReturnType<typeof setTimeout> | undefined;
    let expired = false;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        expired = true;
        reject(new HttpError(503, `database unavailable: no answer within ${this.#deadlineMs} ms`));
      }, this.#deadlineMs);
    });
    try {
      return await Promise.race([work(this.#sql, () => expired), deadline]);
    } catch (err) {
      if (err instanceof HttpError) throw err;
      const code = (err as { code?: string }).code;
      throw new HttpError(503, `database unavailable: ${(err as Error).message}${code ? ` (${code})` : ''}`);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    await this.#sql?.end({ timeout: 1 });
  }
}
