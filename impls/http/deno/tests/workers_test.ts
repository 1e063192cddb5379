// SPEC §5 with CONCUR_CORES=2: the real entry point starts two serving
// workers, and every write through one connection is seen through every
// other, whichever worker accepts it, because the store lives on the main
// thread. SIGTERM ends the process, workers and all.

import assert from 'node:assert/strict';
import { parseResponses, raw, request, spawnServer, step } from './helpers.ts';

/** One request on a new connection, so connections spread over the workers. */
async function call(port: number, method: string, path: string, body = '') {
  const { text } = await raw(port, request(method, path, body, { Connection: 'close' }));
  const [res] = parseResponses(text);
  return { status: res.status, body: res.body };
}

Deno.test('workers (CONCUR_CORES=2)', async (t) => {
  const server = spawnServer({ CONCUR_CORES: '2' });
  const port = await server.started;

  await step(t, 'two workers listen on the port with SO_REUSEPORT', async () => {
    const ss = await new Deno.Command('ss', { args: ['-Hltn', `sport = :${port}`] }).output().catch(() => null);
    if (ss === null) return; // no ss on this machine: the shared-store steps still run
    const sockets = new TextDecoder().decode(ss.stdout).trim().split('\n');
    assert.equal(sockets.length, 2, sockets.join('\n'));
    for (const line of sockets) assert.match(line, /LISTEN\s+\d+\s+4096\b/);
  });

  await step(t, 'a user set through one connection is seen on 40 new connections', async () => {
    for (let i = 0; i < 5; i++) {
      const value = JSON.stringify({ shared: i, list: [i, 'x'] });
      assert.equal((await call(port, 'POST', '/user/set/shared', value)).body, 'OK');
      const reads = await Promise.all(Array.from({ length: 40 }, () => call(port, 'GET', '/user/get/shared')));
      assert.deepEqual(new Set(reads.map((r) => r.body)), new Set([value]));
    }
  });

  await step(t, 'concurrent writes to distinct users are all kept', async () => {
    const users = Array.from({ length: 50 }, (_, i) => `cw_${i}`);
    await Promise.all(users.map((u) => call(port, 'POST', `/user/set/${u}`, JSON.stringify({ u }))));
    const reads = await Promise.all(users.map((u) => call(port, 'GET', `/user/get/${u}`)));
    assert.deepEqual(reads.map((r) => JSON.parse(r.body).u), users);
  });

  await step(t, 'a password set through one worker verifies through all', async () => {
    const body = '{"password":"everywhere"}';
    assert.equal((await call(port, 'POST', '/password/set/sharedpw', body)).status, 200);
    const verifies = await Promise.all(
      Array.from({ length: 8 }, () => call(port, 'POST', '/password/verify/sharedpw', body)),
    );
    assert.deepEqual(verifies.map((r) => r.status), Array(8).fill(200));
    assert.equal((await call(port, 'POST', '/password/verify/nobody', body)).status, 404);
  });

  await step(t, 'SIGTERM stops the process and its workers', async () => {
    const { signal } = await server.stop();
    assert.equal(signal, 'SIGTERM');
    // The workers are threads of that process: once it is reaped, nothing listens.
    await assert.rejects(Deno.connect({ hostname: '127.0.0.1', port }));
  });
});
