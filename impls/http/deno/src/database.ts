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
const CONNECT_TIMEOUT_S = 4;

/** Worker `index`'s connections of `total` shared by `workers`: equal shares, the remainder to the first ones. */
export function poolShare(total: number, workers: number, index: number): number {
  return Math.max(1, Math.floor(total / workers) + (index < total % workers ? 1 : 0));
}

export type Sql = postgres.Sql;

export class Database {
  readonly #sql: Sql | undefined;

  constructor(config: Config, index = 0) {
    this.#sql = config.dbUrl
      ? postgres(config.dbUrl, {
        max: poolShare(config.dbPool, config.cores, index),
        connect_timeout: CONNECT_TIMEOUT_S,
        onnotice: () => {},
      })
      : undefined;
  }

  /**
   * Runs `work` on the pool. Only the driver's calls run there, so whatever it
   * throws (a refused or closed socket, a refused login, a connect timeout, a
   * server error) means the database is out of reach: 503 with the reason (SPEC §8.4).
   */
  async run<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    if (!this.#sql) throw new HttpError(503, 'database unavailable: CONCUR_DB_URL is not set');
    try {
      return await work(this.#sql);
    } catch (err) {
      const code = (err as { code?: string }).code;
      throw new HttpError(503, `database unavailable: ${(err as Error).message}${code ? ` (${code})` : ''}`);
    }
  }

  async close(): Promise<void> {
    await this.#sql?.end({ timeout: 1 });
  }
}
