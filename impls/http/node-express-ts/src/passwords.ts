// Passwords, as the thesis' BCrypt class (Listing 28) has them: hash on set,
// compare on verify, both with the `bcrypt` package's promise API, which runs
// the work on libuv's thread pool and never on the event loop.
// spec/POLICIES.md §2: at most one hash is in progress per process (a process
// is one core's share: the single process, or one cluster worker per core),
// so at most CONCUR_CORES per server; the others wait in a promise chain, in
// arrival order. Every JavaScript entry queues its hashes this way, because
// Bun's and Deno's pools cannot be sized to one thread as libuv's can.

import bcrypt from 'bcrypt';
import type { Store } from './store.js';

export type Verdict = 'match' | 'mismatch' | 'unknown user';

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

export class Passwords {
  private readonly queue = oneAtATime();

  constructor(
    private readonly store: Store,
    private readonly cost: number,
  ) {}

  async set(user: string, password: string): Promise<void> {
    await this.store.setPassword(user, await this.hash(password));
  }

  async verify(user: string, password: string): Promise<Verdict> {
    const stored = await this.store.getPassword(user);
    if (stored === undefined) {
      // Hash anyway, so that an unknown user costs as much as a wrong password.
      await this.hash(password);
      return 'unknown user';
    }
    return (await this.queue(() => bcrypt.compare(password, stored))) ? 'match' : 'mismatch';
  }

  private hash(password: string): Promise<string> {
    return this.queue(() => bcrypt.hash(password, this.cost));
  }
}
