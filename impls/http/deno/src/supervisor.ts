// The main thread of CONCUR_CORES > 1: starts one Web Worker per core, each
// serving the shared port, owns the one store they all use, and replaces a
// worker that dies (the store lives here, so nothing is lost but that
// worker's /page count).

import type { Config } from './config.ts';
import { MemoryStore, serveStore } from './store.ts';

const WORKER = new URL('./worker.ts', import.meta.url);

export function runSupervisor(config: Config): void {
  const store = new MemoryStore();
  let listening = 0;

  // The worker's name is its index, from which it takes its share of CONCUR_DB_POOL.
  function start(index: number): void {
    const worker = new Worker(WORKER, { type: 'module', name: String(index) });
    let ready = false;
    serveStore(worker, store);
    worker.addEventListener('message', ({ data }: MessageEvent) => {
      if (data?.type !== 'listening') return;
      ready = true;
      if (++listening === config.cores) {
        console.log(`deno: ${config.cores} workers listening on http://127.0.0.1:${config.port}`);
      }
    });
    worker.addEventListener('error', (event: ErrorEvent) => {
      // Handled here, so the error does not take down the main thread and the other workers.
      event.preventDefault();
      worker.terminate();
      if (!ready) {
        console.error(`deno: a worker failed before it listened (${event.message}); stopping`);
        Deno.exit(1);
      }
      console.error(`deno: a worker died (${event.message}); starting another`);
      start(index);
    });
  }

  for (let i = 0; i < config.cores; i++) start(i);
}
