// SPEC §7: the shared vectors verify with Bun.password, and Bun.password's
// own hashes verify the same way, so a hash made by any implementation
// verifies in every other. Also: the async API leaves the event loop free.

import { expect, test } from "bun:test";
import { resolve } from "node:path";
import { Passwords } from "../src/passwords.ts";

const { vectors } = (await Bun.file(resolve(import.meta.dir, "../../../../spec/bcrypt-vectors.json")).json()) as {
  vectors: { password: string; hash: string; matches: boolean }[];
};
const passwords = new Passwords(4);

test("the shared vectors include $2a$ and $2b$ hashes", () => {
  expect(vectors.some((v) => v.hash.startsWith("$2a$"))).toBe(true);
  expect(vectors.some((v) => v.hash.startsWith("$2b$"))).toBe(true);
});

for (const { password, hash, matches } of vectors) {
  test(`verify(${JSON.stringify(password.slice(0, 20))}, ${hash.slice(0, 7)}…) is ${matches}`, async () => {
    expect(await passwords.verify(password, hash)).toBe(matches);
  });
}

test("Bun.password alone cannot take the empty password, which is why Passwords hashes it as NUL", async () => {
  const empty = vectors.find((v) => v.password === "" && v.matches)!;
  expect(await Bun.password.verify("", empty.hash, "bcrypt")).toBe(false);
  expect(() => Bun.password.hash("", { algorithm: "bcrypt", cost: 4 })).toThrow();
  expect(await Bun.password.verify("\0", empty.hash, "bcrypt")).toBe(true);
});

test("hashes made here are $2b$ at the given cost and verify like the vectors, the other way round", async () => {
  for (const { password, hash } of vectors.filter((v) => v.matches)) {
    const cost = Number(hash.slice(4, 6));
    const made = await new Passwords(cost).hash(password);
    expect(made).toStartWith(`$2b$${hash.slice(4, 6)}$`);
    expect(made).toHaveLength(60);
    expect(await passwords.verify(password, made)).toBe(true);
    expect(await passwords.verify(`${password}x`, made)).toBe(false);
    // The $2a$ spelling of the same hash verifies too (same algorithm for these passwords).
    expect(await passwords.verify(password, made.replace("$2b$", "$2a$"))).toBe(true);
  }
});

test("the async hash runs off the event loop", async () => {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 5);
  const started = performance.now();
  await new Passwords(12).hash("correct horse");
  const elapsed = performance.now() - started;
  clearInterval(timer);
  // A hash on the event loop would leave no tick at all until it finished.
  expect(ticks).toBeGreaterThan(elapsed / 5 / 4);
});
