// Entry point: read the environment, then either serve in this one process
// with an in-memory store (CONCUR_CORES=1), or become the cluster primary that
// forks CONCUR_CORES workers, each of which runs this file again and reaches
// the primary's store over IPC, with a database pool of the share of
// CONCUR_DB_POOL the primary gave it.

import cluster from 'node:cluster';
import type { AddressInfo } from 'node:net';
import { createApp, listen } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { openDatabase, POOL_SHARE } from './database.js';
import { runPrimary } from './primary.js';
import { ClusterStore, MemoryStore } from './store.js';

function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(`node-express-ts: ${err.message}`);
    process.exit(2);
  }
}

const config = configOrExit();

if (cluster.isPrimary && config.cores > 1) {
  runPrimary(config);
} else {
  const store = cluster.isWorker ? new ClusterStore() : new MemoryStore();
  const poolSize = cluster.isWorker ? Number(process.env[POOL_SHARE]) : config.dbPool;
  const server = await listen(createApp(config, store, openDatabase(config.dbUrl, poolSize)), config.port);
  if (cluster.isPrimary) {
    const { port } = server.address() as AddressInfo;
    console.log(`node-express-ts: listening on http://127.0.0.1:${port}`);
  }
}
