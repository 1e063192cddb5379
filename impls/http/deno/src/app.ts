// One serving isolate: `Deno.serve` with the routes wired in, every thrown
// HttpError turned into its one-line text/plain answer, and the listening
// options of SPEC §1 (127.0.0.1, a backlog of 4096).

import type { Config } from './config.ts';
import { Database } from './database.ts';
import { errorResponse, HttpError, text } from './respond.ts';
import { createRoutes } from './routes.ts';
import type { Store } from './store.ts';

// Deno.serve's default is 511; SPEC §1 asks for 4096 (the kernel caps it at net.core.somaxconn).
const TCP_BACKLOG = 4096;

export function createHandler(config: Config, store: Store, db: Database): (req: Request) => Promise<Response> {
  const route = createRoutes(config, store, db);
  return async (req) => {
    try {
      return await route(req);
    } catch (err) {
      if (err instanceof HttpError) return errorResponse(err);
      console.error(err);
      return text(500, 'internal server error');
    }
  };
}

export interface ServeOptions {
  /** Share the port with the other workers (SO_REUSEPORT: the kernel spreads connections over them). */
  reusePort?: boolean;
  /** This isolate's index among CONCUR_CORES workers, which picks its share of the database pool. */
  worker?: number;
  onListen?: (addr: Deno.NetAddr) => void;
}

export function serve(config: Config, store: Store, { reusePort = false, worker = 0, onListen }: ServeOptions = {}) {
  return Deno.serve(
    { hostname: '127.0.0.1', port: config.port, reusePort, tcpBacklog: TCP_BACKLOG, onListen },
    createHandler(config, store, new Database(config, worker)),
  );
}
