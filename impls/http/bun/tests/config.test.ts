// SPEC §1: the environment, its defaults, and a refusal naming the variable
// for every bad value.

import { describe, expect, test } from "bun:test";
import { DEFAULT_PAGE_FILE, loadConfig } from "../src/config.ts";
import { spawnServer } from "./helpers.ts";

describe("config", () => {
  test("defaults", () => {
    expect(loadConfig({ PORT: "8080" })).toEqual({
      port: 8080, cores: 1, bcryptCost: 10, pageFile: DEFAULT_PAGE_FILE, pageDelayEvery: 10, pageDelayMs: 2000, longPollMs: 5000,
      dbUrl: "", dbPool: 16, dbSlowMs: 20, faults: false,
    });
    expect(loadConfig({ PORT: "8080", CONCUR_FAULTS: "1" }).faults).toBe(true);
    expect(loadConfig({ PORT: "8080", CONCUR_FAULTS: "yes" }).faults).toBe(false);
    expect(DEFAULT_PAGE_FILE).toEndWith("/spec/static/hello.html");
  });

  test("the thesis' cost 20 and the bounds 4 and 31 are accepted", () => {
    for (const cost of [4, 20, 31]) expect(loadConfig({ PORT: "1", CONCUR_BCRYPT_COST: String(cost) }).bcryptCost).toBe(cost);
  });

  test("every bad value is refused with the variable named", () => {
    const bad: Record<string, string[]> = {
      PORT: ["", "x", "70000", "-1"],
      CONCUR_CORES: ["0", "two", "1.5"],
      CONCUR_BCRYPT_COST: ["3", "32", "10x"],
      CONCUR_PAGE_DELAY_EVERY: ["0", "-3"],
      CONCUR_PAGE_DELAY_MS: ["-1", "soon"],
      CONCUR_LONGPOLL_MS: ["1e3", "99999999999"],
      CONCUR_DB_POOL: ["0", "many"],
      CONCUR_DB_SLOW_MS: ["-5"],
    };
    for (const [name, values] of Object.entries(bad)) {
      for (const value of values) expect(() => loadConfig({ PORT: "8080", [name]: value })).toThrow(name);
    }
  });

  test("the server exits with status 2 and a message naming the variable", async () => {
    const server = spawnServer({ CONCUR_BCRYPT_COST: "3" });
    expect(await server.child.exited).toBe(2);
    expect(await new Response(server.child.stderr).text()).toContain("CONCUR_BCRYPT_COST must be an integer from 4 to 31, got '3'");
    await server.started.catch(() => {});
  });
});
