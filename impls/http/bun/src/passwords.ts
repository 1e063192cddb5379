// bcrypt through Bun.password: the async hash and verify run on Bun's thread
// pool ("Bun Pool" threads), never on the event loop. spec/POLICIES.md §2: at
// most one hash is in progress per process (a process is one core's share:
// the single process, or one worker per core), so at most CONCUR_CORES per
// server; the others wait in a promise chain, in arrival order. Bun's pool
// cannot be sized below 2 threads, so the chain is the bound, as in every
// JavaScript entry.

import { HttpError } from "./respond.ts";
import { isObject } from "./body.ts";

const PASSWORD_MAX_BYTES = 72;

/**
 * Bun.password refuses to hash the empty password and verifies it as false.
 * bcrypt keys Blowfish with the password and its terminating NUL, cycled to 72
 * bytes, so "" and "\0" give the same all-zero key and the same hash: hashing
 * "\0" is hashing "", and the hash verifies in every other bcrypt library
 * (tests/bcrypt-vectors.test.ts checks it against the shared vectors).
 * A password that contains a NUL is refused before it gets here.
 */
const keyOf = (password: string) => (password === "" ? "\0" : password);

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

  constructor(private readonly cost: number) {}

  hash(password: string): Promise<string> {
    return this.queue(() => Bun.password.hash(keyOf(password), { algorithm: "bcrypt", cost: this.cost }));
  }

  verify(password: string, hash: string): Promise<boolean> {
    return this.queue(() => Bun.password.verify(keyOf(password), hash, "bcrypt"));
  }
}

/** The password of a request body, or the 400 of SPEC §3.6. */
export function passwordOf(body: unknown): string {
  if (!isObject(body) || typeof body.password !== "string") {
    throw new HttpError(400, 'body must be a JSON object with a string member "password"');
  }
  const { password } = body;
  if (Buffer.byteLength(password) > PASSWORD_MAX_BYTES) {
    // Bun.password would pre-hash a longer password with SHA-512; the contract refuses instead.
    throw new HttpError(400, `password is longer than ${PASSWORD_MAX_BYTES} bytes of UTF-8 (the bcrypt limit)`);
  }
  if (password.includes("\0")) throw new HttpError(400, "password contains a NUL character");
  return password;
}
