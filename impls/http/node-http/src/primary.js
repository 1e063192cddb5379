// The cluster primary of CONCUR_CORES > 1: forks one worker per core, all
// sharing the listening socket (Node's round-robin scheduling hands each new
// connection to the next worker), and owns the one store they all use. It
// opens no database connection: it divides CONCUR_DB_POOL among the workers.

import cluster from 'node:cluster';
import { POOL_SHARE, poolShares } from './database.js';
import { MemoryStore, serveStore } from './store.js';

const SHUTDOWN_GRACE_MS = 3000;

export function runPrimary(config) {
  serveStore(cluster, new MemoryStore());
  // A worker's pool holds at most its share; a replacement gets the share of
  // the worker it replaces, so the shares still add up to CONCUR_DB_POOL.
  const shares = new Map();
  const fork = (share) => shares.set(cluster.fork({ [POOL_SHARE]: String(share) }), share);

  let listening = 0;
  let stopping = false;
  const ready = new WeakSet();

  cluster.on('listening', (worker, address) => {
    ready.add(worker);
    if (++listening === config.cores) {
      console.log(`node-http: ${config.cores} workers listening on http://127.0.0.1:${address.port}`);
    }
  });
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    if (!ready.has(worker)) {
      console.error(`node-http: a worker exited (${signal ?? `code ${code}`}) before it listened; stopping`);
      process.exit(1);
    }
    // The store lives here, so a replacement worker loses nothing but its /page count.
    fork(shares.get(worker));
    shares.delete(worker);
  });

  const stop = () => {
    stopping = true;
    for (const worker of Object.values(cluster.workers)) worker.process.kill('SIGTERM');
    cluster.on('exit', () => Object.keys(cluster.workers).length === 0 && process.exit(0));
    setTimeout(() => {
      for (const worker of Object.values(cluster.workers)) worker.process.kill('SIGKILL');
      process.exit(0);
    }, SHUTDOWN_GRACE_MS).unref();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);

  for (const share of poolShares(config.dbPool, config.cores)) fork(share);
}
