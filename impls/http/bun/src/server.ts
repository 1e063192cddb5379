// Entry point: read the environment, then serve in this one process
// (CONCUR_CORES=1), become the primary that spawns CONCUR_CORES workers, or,
// spawned by a primary (CONCUR_WORKER set), serve as one of them with the
// primary's store.

import { createServer } from "./app.ts";
import { type Config, ConfigError, loadConfig } from "./config.ts";
import { READY, runPrimary } from "./primary.ts";
import { IpcStore, MemoryStore } from "./store.ts";

let config: Config;
try {
  config = loadConfig();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(`bun: ${err.message}`);
  process.exit(2);
}

const worker = process.env.CONCUR_WORKER !== undefined;
if (config.cores > 1 && !worker) {
  runPrimary(config);
} else if (worker) {
  createServer(config, new IpcStore(), { reusePort: true, worker: Number(process.env.CONCUR_WORKER) });
  // Without its primary a worker has no store: leave with it.
  process.once("disconnect", () => process.exit(0));
  process.send!(READY);
} else {
  const { server } = createServer(config, new MemoryStore());
  console.log(`bun: listening on ${server.url.href}`);
}
