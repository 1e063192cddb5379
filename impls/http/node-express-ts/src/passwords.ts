// Passwords, as the thesis' BCrypt class (Listing 28) has them: hash on set,
// compare on verify, both with the `bcrypt` package's promise API, which runs
// the work on libuv's thread pool and never on the event loop.

import bcrypt from 'bcrypt';
import type { Store } from './store.js';

export type Verdict = 'match' | 'mismatch' | 'unknown user';

export class Passwords {
  constructor(
    private readonly store: Store,
    private readonly cost: number,
  ) {}

  async set(user: string, password: string): Promise<void> {
    await this.store.setPassword(user, await bcrypt.hash(password, this.cost));
  }

  async verify(user: string, password: string): Promise<Verdict> {
    const stored = await this.store.getPassword(user);
    if (stored === undefined) {
      // Hash anyway, so that an unknown user costs as much as a wrong password.
      await bcrypt.hash(password, this.cost);
      return 'unknown user';
    }
    return (await bcrypt.compare(password, stored)) ? 'match' : 'mismatch';
  }
}
