// Entry point: read the environment, then either serve on this thread
// (CONCUR_CORES=1), or start CONCUR_CORES workers that serve the port
// together while this thread owns the store. SIGTERM ends the process by its
// default action, and the workers are threads of it, so nothing is left behind.

import { serve } from './app.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { MemoryStore } from './store.ts';
import { runSupervisor } from './supervisor.ts';

let config: Config;
try {
  config = loadConfig();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(`deno: ${err.message}`);
  Deno.exit(2);
}

if (config.cores > 1) {
  runSupervisor(config);
} else {
  serve(config, new MemoryStore(), {
    onListen: ({ port }) => console.log(`deno: listening on http://127.0.0.1:${port}`),
  });
}
