// A serving worker of CONCUR_CORES > 1: a Web Worker (its own thread and V8
// isolate) running Deno.serve on the shared port with SO_REUSEPORT, with the
// main thread's store reached over postMessage.

/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />

import { serve } from './app.ts';
import { loadConfig } from './config.ts';
import { WorkerStore } from './store.ts';

serve(loadConfig(), new WorkerStore(self), {
  reusePort: true,
  worker: Number(self.name),
  onListen: () => self.postMessage({ type: 'listening' }),
});
