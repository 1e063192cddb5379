// One HTTP server process: Bun.serve with the routes table, bound to
// 127.0.0.1, with SO_REUSEPORT when several processes share the port.

import type { Config } from "./config.ts";
import { Database } from "./database.ts";
import { SERVER, TEXT } from "./respond.ts";
import { createRoutes } from "./routes.ts";
import type { Store } from "./store.ts";

// Bun closes a connection idle for 10 s by default; a benchmark whose
// connections pause between phases would see them cut. 75 s is nginx's
// keep-alive default (and near Bun's maximum of 255 s).
const IDLE_TIMEOUT_S = 75;

/** `worker` is the process' index among CONCUR_CORES workers, which picks its share of the database pool. */
export function createServer(config: Config, store: Store, { reusePort = false, worker = 0 } = {}) {
  const db = new Database(config, worker);
  const { routes, fallback } = createRoutes(config, store, db);
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: config.port,
    reusePort,
    idleTimeout: IDLE_TIMEOUT_S,
    routes,
    fetch: fallback,
    // Only reached by a bug: every handler answers its own errors.
    error(err) {
      console.error(err);
      return new Response("internal server error", { status: 500, headers: { Server: SERVER, "Content-Type": TEXT } });
    },
  });
  return { server, db };
}
