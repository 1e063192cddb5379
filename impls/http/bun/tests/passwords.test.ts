// spec/POLICIES.md §2: one bcrypt hash in progress per process, the others
// queued in call order, and none of them on the event loop.

import { expect, test } from "bun:test";
import { oneAtATime, Passwords } from "../src/passwords.ts";

test("the queue runs its jobs one at a time, in call order", async () => {
  const queue = oneAtATime();
  let running = 0;
  let most = 0;
  const finished: number[] = [];
  const job = (id: number) => async () => {
    most = Math.max(most, ++running);
    await Bun.sleep(20);
    running--;
    finished.push(id);
    return id;
  };
  expect(await Promise.all([1, 2, 3].map((id) => queue(job(id))))).toEqual([1, 2, 3]);
  expect(most).toBe(1);
  expect(finished).toEqual([1, 2, 3]);
});

test("a failed job rejects its own caller and the queue goes on", async () => {
  const queue = oneAtATime();
  const failed = queue(async () => {
    throw new Error("broken");
  });
  const next = queue(async () => "next");
  await expect(failed).rejects.toThrow("broken");
  expect(await next).toBe("next");
});

test("a cheap verify waits for the costly hash asked before it, and the event loop stays free", async () => {
  const cheap = await new Passwords(4).hash("cheap");
  const passwords = new Passwords(11);
  const finished: string[] = [];
  let ticks = 0;
  const timer = setInterval(() => ticks++, 5);
  // On Bun's pool (at least 2 threads) the cost-4 verify would finish first; queued, it waits.
  await Promise.all([
    passwords.hash("costly").then(() => finished.push("hash")),
    passwords.verify("cheap", cheap).then((ok) => finished.push(ok ? "verify" : "mismatch")),
  ]);
  clearInterval(timer);
  expect(finished).toEqual(["hash", "verify"]);
  // Hashing on the event loop would leave the timer one tick at most, after the hashes.
  expect(ticks).toBeGreaterThan(2);
});
