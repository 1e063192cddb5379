// bcrypt with the `bcrypt` package's promise API, which runs each hash on
// libuv's thread pool, never on the event loop. spec/POLICIES.md §2: at most
// one hash is in progress per process (a process is one core's share: the
// single process, or one cluster worker per core), so at most CONCUR_CORES
// per server; the others wait in this process' queue, a promise chain. Every
// JavaScript entry queues its hashes this way, because Bun's and Deno's pools
// cannot be sized to one thread as libuv's can.

import bcrypt from 'bcrypt';

/** A queue that runs the async jobs given to it one at a time, in call order. */
export function oneAtATime() {
  let tail = Promise.resolve();
  return (job) => {
    const run = tail.then(job);
    tail = run.catch(() => {}); // a failed job does not stop the ones behind it
    return run;
  };
}

const queue = oneAtATime();

export const hash = (password, cost) => queue(() => bcrypt.hash(password, cost));

export const compare = (password, stored) => queue(() => bcrypt.compare(password, stored));
