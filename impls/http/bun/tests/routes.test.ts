// SPEC §2: every route's happy path, against an in-process server on port 0.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startServer } from "./helpers.ts";

describe("routes", () => {
  let server: ReturnType<typeof startServer>;
  beforeAll(() => void (server = startServer()));
  afterAll(() => server.stop());

  const get = (path: string, init?: RequestInit) => fetch(server.url + path, init);
  const post = (path: string, body: unknown) =>
    fetch(server.url + path, { method: "POST", body: typeof body === "string" ? body : JSON.stringify(body) });

  test("GET / is Hello, World! with Server and Date", async () => {
    const res = await get("/");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/plain");
    expect(res.headers.get("server")).toBe("concur-bun");
    expect(res.headers.get("date")).toBeTruthy();
    expect(await res.text()).toBe("Hello, World!");
  });

  test("GET /json is the message object", async () => {
    const res = await get("/json?pretty");
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.json()).toEqual({ message: "Hello, World!" });
  });

  test("GET /page serves the page file", async () => {
    const res = await get("/page");
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await res.text()).toBe(await Bun.file(server.config.pageFile).text());
  });

  test("GET /longPoll answers OK after CONCUR_LONGPOLL_MS", async () => {
    const started = performance.now();
    expect(await (await get("/longPoll")).text()).toBe("OK");
    expect(performance.now() - started).toBeGreaterThanOrEqual(server.config.longPollMs - 5);
  });

  test("password set, verify, mismatch, unknown user, replace, empty", async () => {
    expect(await (await post("/password/set/alice", { password: "s3cret pässword" })).text()).toBe("OK");
    expect((await post("/password/verify/alice", { password: "s3cret pässword" })).status).toBe(200);
    expect((await post("/password/verify/alice", { password: "s3cret password" })).status).toBe(403);
    expect((await post("/password/verify/nobody", { password: "x" })).status).toBe(404);
    expect((await post("/password/set/alice", { password: "second" })).status).toBe(200);
    expect((await post("/password/verify/alice", { password: "second" })).status).toBe(200);
    expect((await post("/password/set/empty", { password: "" })).status).toBe(200);
    expect((await post("/password/verify/empty", { password: "" })).status).toBe(200);
    expect((await post("/password/verify/empty", { password: "x" })).status).toBe(403);
    const max = "é".repeat(36);
    expect((await post("/password/set/max", { password: max })).status).toBe(200);
    expect((await post("/password/verify/max", { password: max })).status).toBe(200);
  });

  test("user set then get returns the same JSON value, parsed and serialized anew", async () => {
    const value = { name: "Ada", tags: ["x"], nested: { ok: true, none: null, list: [1, [2, 3]] }, unicode: 'héllo ✓ 🚀 "q"', ratio: 2.5, big: 9007199254740991 };
    expect((await post("/user/set/A-z_0.9", value)).status).toBe(200);
    const res = await get("/user/get/A-z_0.9");
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.json()).toEqual(value);
    await post("/user/set/A-z_0.9", ' { "a" : 1.0 } ');
    expect(await (await get("/user/get/A-z_0.9")).text()).toBe('{"a":1}');
    expect((await get("/user/get/unknown")).status).toBe(404);
  });

  test("the password and user stores are separate", async () => {
    expect((await post("/user/set/infoonly", { password: "x" })).status).toBe(200);
    expect((await post("/password/verify/infoonly", { password: "x" })).status).toBe(404);
  });

  test("HEAD on a GET route is 200 without a body, with Date", async () => {
    const res = await get("/json", { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(res.headers.get("date")).toBeTruthy();
    expect(await res.text()).toBe("");
  });
});

describe("/page delay", () => {
  let server: ReturnType<typeof startServer>;
  beforeAll(() => void (server = startServer({ pageDelayEvery: 3, pageDelayMs: 400 })));
  afterAll(() => server.stop());

  const delayed = async () => {
    const started = performance.now();
    await (await fetch(`${server.url}/page`)).arrayBuffer();
    return performance.now() - started >= server.config.pageDelayMs - 5;
  };

  test("every Nth request is delayed, counted from 1, and blocks no other", async () => {
    const inOrder = [];
    for (let i = 0; i < 6; i++) inOrder.push(await delayed());
    expect(inOrder).toEqual([false, false, true, false, false, true]);
    const together = await Promise.all(Array.from({ length: 6 }, delayed));
    expect(together.filter(Boolean)).toHaveLength(2);
  });
});

describe("fault routes (SPEC §9)", () => {
  test("are unknown paths without CONCUR_FAULTS=1", async () => {
    const server = startServer();
    for (const path of ["/fault/panic", "/fault/spin?ms=1"]) expect((await fetch(server.url + path)).status).toBe(404);
    await server.stop();
  });

  test("spin answers OK after ms, and clamps a bad ms to 0", async () => {
    const server = startServer({ faults: true });
    const started = performance.now();
    expect(await (await fetch(`${server.url}/fault/spin?ms=100`)).text()).toBe("OK");
    expect(performance.now() - started).toBeGreaterThanOrEqual(100);
    for (const query of ["", "?ms=", "?ms=x", "?ms=-5", "?ms=1.5"]) expect((await fetch(`${server.url}/fault/spin${query}`)).status).toBe(200);
    expect((await fetch(`${server.url}/fault/panic/x`)).status).toBe(404);
    await server.stop();
  });
});
