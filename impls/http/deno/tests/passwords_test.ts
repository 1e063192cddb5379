// spec/POLICIES.md §2: one bcrypt hash in progress per isolate, the others
// queued in call order, and none of them on the event loop.

import assert from 'node:assert/strict';
import { compare, hash, oneAtATime } from '../src/passwords.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test('the queue runs its jobs one at a time, in call order', async () => {
  const queue = oneAtATime();
  let running = 0;
  let most = 0;
  const finished: number[] = [];
  const job = (id: number) => async () => {
    most = Math.max(most, ++running);
    await sleep(20);
    running--;
    finished.push(id);
    return id;
  };
  assert.deepEqual(await Promise.all([1, 2, 3].map((id) => queue(job(id)))), [1, 2, 3]);
  assert.equal(most, 1);
  assert.deepEqual(finished, [1, 2, 3]);
});

Deno.test('a failed job rejects its own caller and the queue goes on', async () => {
  const queue = oneAtATime();
  const failed = queue(() => Promise.reject(new Error('broken')));
  const next = queue(() => Promise.resolve('next'));
  await assert.rejects(failed, /broken/);
  assert.equal(await next, 'next');
});

Deno.test('a cheap compare waits for the costly hash asked before it, and the event loop stays free', async () => {
  const cheap = await hash('cheap', 4);
  const finished: string[] = [];
  let ticks = 0;
  const timer = setInterval(() => ticks++, 5);
  // On Deno's blocking pool the cost-4 compare would finish first; queued, it waits.
  await Promise.all([
    hash('costly', 11).then(() => finished.push('hash')),
    compare('cheap', cheap).then((ok) => finished.push(ok ? 'compare' : 'mismatch')),
  ]);
  clearInterval(timer);
  assert.deepEqual(finished, ['hash', 'compare']);
  // Hashing on the event loop would leave the timer one tick at most, after the hashes.
  assert.ok(ticks > 2, `only ${ticks} timer ticks`);
});
