// The cluster primary of CONCUR_CORES > 1: forks one worker per core, all
// sharing the listening socket (Node's round-robin scheduling hands each new
// connection to the next worker), owns the one store they all use, divides
// CONCUR_DB_POOL among them (it opens no database connection itself),
// replaces a worker that dies, and stops them all on SIGTERM.

import cluster, { type Worker } from 'node:cluster';
import type { Config } from './config.js';
import { POOL_SHARE, poolShares } from './database.js';
import { MemoryStore, serveStore } from './store.js';

const SHUTDOWN_GRACE_MS = 3000;

export function runPrimary(config: Config): void {
  serveStore(cluster, new MemoryStore());
  // A worker's pool holds at most its share; a replacement gets the share of
  // the worker it replaces, so the shares still add up to CONCUR_DB_POOL.
  const shares = new Map<Worker, number>();
  const fork = (share: number) => shares.set(cluster.fork({ [POOL_SHARE]: String(share) }), share);

  let listening = 0;
  let stopping = false;
  const ready = new WeakSet<Worker>();

  cluster.on('listening', (worker, address) => {
    ready.add(worker);
    // Only the first round: a replacement worker listens again later.
    if (++listening === config.cores) {
      console.log(`node-express-ts: ${config.cores} workers listening on http://127.0.0.1:${address.port}`);
    }
  });

  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    if (!ready.has(worker)) {
      console.error(`node-express-ts: a worker exited (${signal ?? `code ${code}`}) before it listened; stopping`);
      stop(1);
      return;
    }
    // The store lives here, so a replacement worker loses nothing but its /page count.
    console.error(`node-express-ts: worker ${worker.process.pid} exited (${signal ?? `code ${code}`}); forking another`);
    fork(shares.get(worker)!);
    shares.delete(worker);
  });

  const workers = () => Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);

  function stop(status: number): void {
    stopping = true;
    for (const worker of workers()) worker.process.kill('SIGTERM');
    const exitWhenAllGone = () => workers().length === 0 && process.exit(status);
    cluster.on('exit', exitWhenAllGone);
    exitWhenAllGone();
    setTimeout(() => {
      for (const worker of workers()) worker.process.kill('SIGKILL');
      process.exit(status);
    }, SHUTDOWN_GRACE_MS).unref();
  }
  process.once('SIGTERM', () => stop(0));
  process.once('SIGINT', () => stop(0));

  for (const share of poolShares(config.dbPool, config.cores)) fork(share);
}
