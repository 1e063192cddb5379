// The primary of CONCUR_CORES > 1: spawns one worker process per core with
// Bun.spawn and an ipc channel; every worker binds the port with reusePort,
// so the kernel spreads new connections over them. The primary serves no
// HTTP: it owns the one store the workers reach over ipc, and replaces a
// worker that dies.

import type { Subprocess } from "bun";
import type { Config } from "./config.ts";
import { MemoryStore } from "./store.ts";

const SHUTDOWN_GRACE_MS = 3000;

/** What a worker sends once it listens. */
export const READY = { tag: "concur-ready" } as const;

export function runPrimary(config: Config) {
  const store = new MemoryStore();
  const workers = new Set<Subprocess>();
  const ready = new WeakSet<Subprocess>();
  let listening = 0;
  let stopping = false;

  function spawnWorker(index: number) {
    const worker = Bun.spawn([process.execPath, Bun.main], {
      env: { ...process.env, CONCUR_WORKER: String(index) },
      stdio: ["ignore", "inherit", "inherit"],
      ipc(message, subprocess) {
        const reply = store.answer(message);
        if (reply) subprocess.send(reply);
        else if ((message as typeof READY)?.tag === READY.tag) workerReady(subprocess);
      },
      onExit(subprocess, code, signal) {
        workers.delete(subprocess);
        if (stopping) return;
        if (!ready.has(subprocess)) {
          console.error(`bun: worker ${index} exited (${signal ?? `code ${code}`}) before it listened; stopping`);
          stop(1);
          return;
        }
        // The store lives here, so a replacement worker loses nothing but its /page count.
        console.error(`bun: worker ${index} exited (${signal ?? `code ${code}`}); starting another`);
        spawnWorker(index);
      },
    });
    workers.add(worker);
  }

  function workerReady(worker: Subprocess) {
    ready.add(worker);
    if (++listening === config.cores) {
      console.log(`bun: ${config.cores} workers listening on http://127.0.0.1:${config.port}`);
    }
  }

  function stop(code = 0) {
    if (stopping) return;
    stopping = true;
    for (const worker of workers) worker.kill("SIGTERM");
    Promise.all([...workers].map((w) => w.exited)).then(() => process.exit(code));
    setTimeout(() => {
      for (const worker of workers) worker.kill("SIGKILL");
      process.exit(code);
    }, SHUTDOWN_GRACE_MS).unref();
  }

  process.once("SIGTERM", () => stop());
  process.once("SIGINT", () => stop());
  for (let i = 0; i < config.cores; i++) spawnWorker(i);
}
