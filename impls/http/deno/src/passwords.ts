// bcrypt through the `bcrypt` npm package, a native addon that Deno loads
// through Node-API. Its promise API queues each hash as Node-API async work,
// which Deno runs on its blocking thread pool, off the event loop. That pool
// grows up to 512 threads, so unlike libuv's there is no size to set.
// spec/POLICIES.md §2: at most one hash is in progress per serving isolate
// (an isolate is one core's share: the main thread, or one Web Worker per
// core), so at most CONCUR_CORES per server; the others wait in a promise
// chain, in arrival order, as in every JavaScript entry.

// @ts-types="@types/bcrypt"
import bcrypt from 'bcrypt';

export type Queue = <T>(job: () => Promise<T>) => Promise<T>;

/** A queue that runs the async jobs given to it one at a time, in call order. */
export function oneAtATime(): Queue {
  let tail: Promise<unknown> = Promise.resolve();
  return (job) => {
    const run = tail.then(job);
    tail = run.catch(() => {}); // a failed job does not stop the ones behind it
    return run;
  };
}

const queue = oneAtATime();

export const hash = (password: string, cost: number): Promise<string> => queue(() => bcrypt.hash(password, cost));

export const compare = (password: string, stored: string): Promise<boolean> =>
  queue(() => bcrypt.compare(password, stored));
