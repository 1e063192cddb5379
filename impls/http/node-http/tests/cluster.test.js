// SPEC §5 with CONCUR_CORES=2: the real entry point forks two workers, and
// every write through one connection is seen through every other, whichever
// worker serves it, because the store lives in the primary.

import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { groupAlive, spawnServer } from './helpers.js';

/** One request on a new connection (no keep-alive agent), so connections spread over the workers. */
function call(port, method, path, body) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('cluster (CONCUR_CORES=2)', () => {
  let server;
  let port;
  before(async () => {
    server = spawnServer({ CONCUR_CORES: '2' });
    port = await server.started;
  });
  after(() => server.stop());

  test('two workers besides the primary', async () => {
    const { execFileSync } = await import('node:child_process');
    const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(server.child.pid)]).toString().trim().split(/\s+/);
    assert.equal(children.length, 2);
  });

  test('a user set through one connection is seen on 40 new connections', async () => {
    for (let i = 0; i < 5; i++) {
      const value = JSON.stringify({ shared: i, list: [i, 'x'] });
      assert.equal((await call(port, 'POST', '/user/set/shared', value)).body, 'OK');
      const reads = await Promise.all(Array.from({ length: 40 }, () => call(port, 'GET', '/user/get/shared')));
      assert.deepEqual(new Set(reads.map((r) => r.body)), new Set([value]));
    }
  });

  test('concurrent writes to distinct users are all kept', async () => {
    const users = Array.from({ length: 50 }, (_, i) => `cw_${i}`);
    await Promise.all(users.map((u) => call(port, 'POST', `/user/set/${u}`, JSON.stringify({ u }))));
    const reads = await Promise.all(users.map((u) => call(port, 'GET', `/user/get/${u}`)));
    assert.deepEqual(reads.map((r) => JSON.parse(r.body).u), users);
  });

  test('a password set through one worker verifies through all', async () => {
    const body = '{"password":"everywhere"}';
    assert.equal((await call(port, 'POST', '/password/set/sharedpw', body)).status, 200);
    const verifies = await Promise.all(Array.from({ length: 8 }, () => call(port, 'POST', '/password/verify/sharedpw', body)));
    assert.deepEqual(verifies.map((r) => r.status), Array(8).fill(200));
    assert.equal((await call(port, 'POST', '/password/verify/nobody', body)).status, 404);
  });

  test('SIGTERM stops the primary and its workers', async () => {
    await server.stop();
    const { code, signal } = await server.exited;
    assert.ok(code === 0 || signal === 'SIGTERM', `exit code ${code}, signal ${signal}`);
    assert.equal(groupAlive(server.child.pid), false);
  });
});
