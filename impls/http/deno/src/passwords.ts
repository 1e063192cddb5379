// bcrypt through the `bcrypt` npm package, a native addon that Deno loads
// through Node-API. Its promise API queues each hash as Node-API async work,
// which Deno runs on its blocking thread pool, off the event loop. That pool
// grows up to 512 threads, so unlike libuv's there is no size to set: each
// serving isolate lets one hash run at a time (a promise chain), and
// CONCUR_CORES isolates run at most CONCUR_CORES hashes at once.

// @ts-types="@types/bcrypt"
import bcrypt from 'bcrypt';

let tail: Promise<unknown> = Promise.resolve();

/** Runs `work` after every hash queued before it in this isolate. */
function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
  const run = tail.then(work, work);
  tail = run.catch(() => {});
  return run;
}

export const hash = (password: string, cost: number): Promise<string> => oneAtATime(() => bcrypt.hash(password, cost));

export const compare = (password: string, stored: string): Promise<boolean> =>
  oneAtATime(() => bcrypt.compare(password, stored));
