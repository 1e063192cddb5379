// Entry point: read the environment, then either serve in this one process
// (CONCUR_CORES=1), or become the cluster primary that forks CONCUR_CORES
// workers, each of which runs this file again and serves with the shared store
// and its own database pool, of the share of CONCUR_DB_POOL the primary gave it.

import cluster from 'node:cluster';
import { createServer } from './src/app.js';
import { ConfigError, loadConfig } from './src/config.js';
import { openDatabase, POOL_SHARE } from './src/database.js';
import { runPrimary } from './src/primary.js';
import { ClusterStore, MemoryStore } from './src/store.js';

let config;
try {
  config = loadConfig();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(`node-http: ${err.message}`);
  process.exit(2);
}

if (cluster.isPrimary && config.cores > 1) {
  runPrimary(config);
} else {
  const store = cluster.isWorker ? new ClusterStore() : new MemoryStore();
  const poolSize = cluster.isWorker ? Number(process.env[POOL_SHARE]) : config.dbPool;
  const server = createServer(config, store, openDatabase(config.dbUrl, poolSize));
  // Node's default backlog is 511; SPEC §1 asks for 4096 (the kernel caps it
  // at net.core.somaxconn). In a cluster the primary opens the socket with the
  // options of the workers' listen().
  server.listen({ port: config.port, host: '127.0.0.1', backlog: 4096 }, () => {
    if (cluster.isPrimary) console.log(`node-http: listening on http://127.0.0.1:${server.address().port}`);
  });
}
