// The cluster primary of CONCUR_CORES > 1: forks one worker per core, all
// sharing the listening socket (Node's round-robin scheduling hands each new
// connection to the next worker), owns the one store they all use, replaces a
// worker that dies, and stops them all on SIGTERM.

import cluster, { type Worker } from 'node:cluster';
import type { Config } from './config.js';
import { MemoryStore, serveStore } from './store.js';

const SHUTDOWN_GRACE_MS = 3000;

export function runPrimary(config: Config): void {
  serveStore(cluster, new MemoryStore());

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
    cluster.fork();
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

  for (let i = 0; i < config.cores; i++) cluster.fork();
}
