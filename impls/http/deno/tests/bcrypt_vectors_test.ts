// SPEC §7: the shared vectors verify with this runtime's bcrypt library (both
// ways: each stored hash checks against its password, and a hash made here
// checks with the library), so a hash made by any implementation verifies in
// every other.

import assert from 'node:assert/strict';
import { compare, hash } from '../src/passwords.ts';

interface Vector {
  password: string;
  hash: string;
  matches: boolean;
}

const { vectors }: { vectors: Vector[] } = JSON.parse(
  await Deno.readTextFile(new URL('../../../../spec/bcrypt-vectors.json', import.meta.url)),
);

Deno.test('the shared vectors include $2a$ and $2b$ hashes', () => {
  assert.ok(vectors.some((v) => v.hash.startsWith('$2a$')));
  assert.ok(vectors.some((v) => v.hash.startsWith('$2b$')));
});

for (const { password, hash: stored, matches } of vectors) {
  Deno.test(`compare(${JSON.stringify(password.slice(0, 20))}, ${stored.slice(0, 7)}…) is ${matches}`, async () => {
    assert.equal(await compare(password, stored), matches);
  });
}

Deno.test('hash makes a $2b$ hash at the given cost that compares, for every vector password', async () => {
  for (const password of new Set(vectors.map((v) => v.password))) {
    const made = await hash(password, 4);
    assert.match(made, /^\$2b\$04\$/);
    assert.equal(await compare(password, made), true);
    // bcrypt reads 72 bytes at most, so only a shorter password can differ by one more byte.
    if (new TextEncoder().encode(password).length < 72) assert.equal(await compare(`${password}x`, made), false);
  }
});
