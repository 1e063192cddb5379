// SPEC §7: the shared vectors verify with the `bcrypt` package, so a hash made
// by any implementation verifies in every other.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import bcrypt from 'bcrypt';
import { REPO } from './helpers.js';

interface Vector {
  password: string;
  hash: string;
  matches: boolean;
}

const { vectors } = JSON.parse(await readFile(join(REPO, 'spec/bcrypt-vectors.json'), 'utf8')) as { vectors: Vector[] };

test('the shared vectors include $2a$ and $2b$ hashes', () => {
  assert.ok(vectors.some((v) => v.hash.startsWith('$2a$')));
  assert.ok(vectors.some((v) => v.hash.startsWith('$2b$')));
});

for (const { password, hash: stored, matches } of vectors) {
  test(`compare(${JSON.stringify(password.slice(0, 20))}, ${stored.slice(0, 7)}…) is ${matches}`, async () => {
    assert.equal(await bcrypt.compare(password, stored), matches);
  });
}

test('hash makes a $2b$ hash at the given cost that compares', async () => {
  const made = await bcrypt.hash('correct horse', 5);
  assert.match(made, /^\$2b\$05\$/);
  assert.equal(await bcrypt.compare('correct horse', made), true);
  assert.equal(await bcrypt.compare('correct horsf', made), false);
});
