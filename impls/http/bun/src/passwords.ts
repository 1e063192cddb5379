// bcrypt through Bun.password: the async hash and verify run on Bun's thread
// pool ("Bun Pool" threads), never on the event loop.

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

export class Passwords {
  constructor(private readonly cost: number) {}

  hash(password: string): Promise<string> {
    return Bun.password.hash(keyOf(password), { algorithm: "bcrypt", cost: this.cost });
  }

  verify(password: string, hash: string): Promise<boolean> {
    return Bun.password.verify(keyOf(password), hash, "bcrypt");
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
