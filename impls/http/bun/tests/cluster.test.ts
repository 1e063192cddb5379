// SPEC §5 with CONCUR_CORES=2: the real entry point spawns two reusePort
// workers, and every write through one connection is seen through every
// other, whichever worker serves it, because the store lives in the primary.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnServer } from "./helpers.ts";

/** One request on a new connection, so connections spread over the workers. */
const call = async (port: number, method: string, path: string, body?: string) => {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { method, body, keepalive: false, headers: { Connection: "close" } });
  return { status: res.status, body: await res.text() };
};

const childrenOf = (pid: number) =>
  Bun.spawnSync(["ps", "-o", "pid=", "--ppid", String(pid)]).stdout.toString().trim().split(/\s+/).filter(Boolean).map(Number);

describe("several processes (CONCUR_CORES=2)", () => {
  let server: ReturnType<typeof spawnServer>;
  let port: number;
  beforeAll(async () => {
    server = spawnServer({ CONCUR_CORES: "2" });
    port = await server.started;
  });
  afterAll(() => server.stop());

  test("two workers besides the primary", () => {
    expect(childrenOf(server.child.pid)).toHaveLength(2);
  });

  test("a user set through one connection is seen on 40 new connections", async () => {
    for (let i = 0; i < 3; i++) {
      const value = JSON.stringify({ shared: i, list: [i, "x"] });
      expect((await call(port, "POST", "/user/set/shared", value)).body).toBe("OK");
      const reads = await Promise.all(Array.from({ length: 40 }, () => call(port, "GET", "/user/get/shared")));
      expect(new Set(reads.map((r) => r.body))).toEqual(new Set([value]));
    }
  });

  test("a password set through one worker verifies through all; unknown is 404", async () => {
    const body = '{"password":"everywhere"}';
    expect((await call(port, "POST", "/password/set/sharedpw", body)).status).toBe(200);
    const verifies = await Promise.all(Array.from({ length: 8 }, () => call(port, "POST", "/password/verify/sharedpw", body)));
    expect(verifies.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect((await call(port, "POST", "/password/verify/nobody", body)).status).toBe(404);
  });

  test("a dead worker is replaced and the store survives it", async () => {
    await call(port, "POST", "/user/set/survivor", '{"alive":true}');
    const [victim] = childrenOf(server.child.pid);
    process.kill(victim!, "SIGKILL");
    for (let i = 0; i < 50 && childrenOf(server.child.pid).filter((p) => p !== victim).length < 2; i++) await Bun.sleep(100);
    expect(childrenOf(server.child.pid).filter((p) => p !== victim)).toHaveLength(2);
    await Bun.sleep(500);
    const reads = await Promise.all(Array.from({ length: 10 }, () => call(port, "GET", "/user/get/survivor")));
    expect(reads.map((r) => r.body)).toEqual(Array(10).fill('{"alive":true}'));
  });

  test("SIGTERM stops the primary and its workers", async () => {
    const workers = childrenOf(server.child.pid);
    server.stop();
    await server.child.exited;
    await Bun.sleep(200);
    for (const pid of workers) expect(() => process.kill(pid, 0)).toThrow();
  });
});
