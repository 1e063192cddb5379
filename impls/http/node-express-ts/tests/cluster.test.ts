// SPEC §5 with CONCUR_CORES=2: the compiled entry point forks two workers,
// and every write through one connection is seen through every other,
// whichever worker serves it, because the store lives in the primary; a
// worker that dies is replaced and the store survives it.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { groupAlive, spawnServer, type SpawnedServer } from './helpers.js';

/** One request on a new connection (no keep-alive agent), so connections spread over the workers. */
function call(port: number, method: string, path: string, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The pids of a process's children (ps exits 1 when there are none). */
function workersOf(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)]).toString().trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

describe('cluster (CONCUR_CORES=2)', () => {
  let server: SpawnedServer;
  let port: number;
  before(async () => {
    server = spawnServer({ CONCUR_CORES: '2' });
    port = await server.started;
  });
  after(() => server.stop());

  test('two workers besides the primary', () => {
    assert.equal(workersOf(server.child.pid!).length, 2);
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

  test('a killed worker is replaced, and the store survives it', async () => {
    assert.equal((await call(port, 'POST', '/user/set/survivor', '{"kept":true}')).status, 200);
    const [victim] = workersOf(server.child.pid!);
    process.kill(victim!, 'SIGKILL');
    let workers: number[] = [];
    for (let i = 0; i < 100; i++) {
      workers = workersOf(server.child.pid!);
      if (workers.length === 2 && !workers.includes(victim!)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(workers.length, 2);
    assert.ok(!workers.includes(victim!));
    // Give the new worker time to listen, then read through both.
    await new Promise((r) => setTimeout(r, 500));
    const reads = await Promise.all(Array.from({ length: 10 }, () => call(port, 'GET', '/user/get/survivor')));
    assert.deepEqual(new Set(reads.map((r) => r.body)), new Set(['{"kept":true}']));
  });

  test('SIGTERM stops the primary and its workers', async () => {
    await server.stop();
    const { code, signal } = await server.exited;
    assert.ok(code === 0 || signal === 'SIGTERM', `exit code ${code}, signal ${signal}`);
    assert.equal(groupAlive(server.child.pid!), false);
  });
});

describe('single process (CONCUR_CORES=1)', () => {
  test('no workers, and SIGTERM stops it', async () => {
    const server = spawnServer({ CONCUR_CORES: '1' });
    try {
      const port = await server.started;
      assert.equal(workersOf(server.child.pid!).length, 0);
      assert.equal((await call(port, 'GET', '/')).body, 'Hello, World!');
    } finally {
      await server.stop();
    }
    const { signal, code } = await server.exited;
    assert.ok(signal === 'SIGTERM' || code === 0);
    assert.equal(groupAlive(server.child.pid!), false);
  });
});
