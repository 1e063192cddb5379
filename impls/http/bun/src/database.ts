// The PostgreSQL pool of the database routes (SPEC §8): Bun's built-in SQL
// client (Bun.SQL), one pool per serving process. CONCUR_DB_POOL bounds the
// connections of all processes together, so each process takes its share
// (`poolShare`). The pool opens a connection when a query first needs one and
// again after the database ended one, so the server starts, and serves its
// other routes, with the database down.
//
// A request reserves one connection (`sql.reserve()`) for all its statements
// and releases it when done (spec/POLICIES.md §6, Rule R): a query sent on the
// pool itself would go to any open connection, pipelined behind other
// requests' queries, and Bun.SQL has no option that caps that (only
// `prepare: false`, which gives up named prepared statements). A request that
// finds every connection reserved waits in the pool's queue; no thread is held.

import { SQL, type ReservedSQL } from "bun";
import type { Config } from "./config.ts";
import { HttpError } from "./respond.ts";

// Bun waits 30 s for a connection by default; SPEC §8.4 wants the 503 within 5 s.
const CONNECT_TIMEOUT_S = 4;

/** Process `index`'s connections of `total` shared by `processes`: equal shares, the remainder to the first ones. */
export function poolShare(total: number, processes: number, index: number): number {
  return Math.max(1, Math.floor(total / processes) + (index < total % processes ? 1 : 0));
}

export class Database {
  readonly #sql: SQL | undefined;
  readonly #absent: string;

  constructor(config: Config, index = 0) {
    this.#absent = config.dbUrl ? "" : "CONCUR_DB_URL is not set";
    this.#sql = config.dbUrl
      ? new SQL({ url: config.dbUrl, max: poolShare(config.dbPool, config.cores, index), connectionTimeout: CONNECT_TIMEOUT_S })
      : undefined;
  }

  /**
   * Runs `work` on one reserved connection, released when it is done;
   * `work` awaits each statement before it sends the next. Every failure to
   * reach the database, reserving included, becomes a 503 with its reason
   * (SPEC §8.4).
   */
  async run<T>(work: (sql: ReservedSQL) => Promise<T>): Promise<T> {
    if (!this.#sql) throw new HttpError(503, `database unavailable: ${this.#absent}`);
    try {
      const reserved = await this.#sql.reserve();
      try {
        return await work(reserved);
      } finally {
        await reserved.release();
      }
    } catch (err) {
      if (err instanceof SQL.SQLError) throw new HttpError(503, `database unavailable: ${err.message} (${(err as { code?: string }).code})`);
      throw err;
    }
  }

  close(): Promise<void> {
    return this.#sql?.close({ timeout: 1 }) ?? Promise.resolve();
  }
}
