// spec/POLICIES.md §2: one bcrypt hash in progress per process, the others
// queued in call order, and none of them on the event loop.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import bcrypt from 'bcrypt';
import { oneAtATime, Passwords } from '../src/passwords.js';
import { MemoryStore } from '../src/store.js';

test('the queue runs its jobs one at a time, in call order', async () => {
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

test('a failed job rejects its own caller and the queue goes on', async () => {
  const queue = oneAtATime();
  const failed = queue(async () => {
    throw new Error('broken');
  });
  const next = queue(async () => 'next');
  await assert.rejects(failed, /broken/);
  assert.equal(await next, 'next');
});

test('a cheap verify waits for the costly hash asked before it, and the event loop stays free', async () => {
  const store = new MemoryStore();
  await store.setPassword('cheap', await bcrypt.hash('cheap', 4));
  const passwords = new Passwords(store, 11);
  const finished: string[] = [];
  let ticks = 0;
  const timer = setInterval(() => ticks++, 5);
  const started = performance.now();
  // On libuv's 4 threads the cost-4 compare would finish first; queued, it waits.
  await Promise.all([
    passwords.set('costly', 'secret').then(() => finished.push('set')),
    passwords.verify('cheap', 'cheap').then((verdict) => finished.push(verdict)),
  ]);
  clearInterval(timer);
  const elapsed = performance.now() - started;
  assert.deepEqual(finished, ['set', 'match']);
  // Hashing on the event loop would leave the timer one tick at most, after the hashes.
  assert.ok(ticks > 2, `only ${ticks} timer ticks in ${elapsed.toFixed(0)} ms`);
});
