// Reads the process environment of SPEC §1 into one plain Config. Every bad
// value is refused with a sentence naming the variable, so a typo in a
// benchmark setup stops the server instead of silently using a default.

export interface Config {
  port: number;
  cores: number;
  bcryptCost: number;
  pageFile: string;
  pageDelayEvery: number;
  pageDelayMs: number;
  longPollMs: number;
  /** "" when unset: the database routes answer 503 (SPEC §8.4). */
  dbUrl: string;
  /** Connections for all processes together (SPEC §8.2). */
  dbPool: number;
  dbSlowMs: number;
  /** CONCUR_FAULTS=1: the fault routes of SPEC §9 exist; otherwise they are unknown paths. */
  faults: boolean;
}

import { resolve } from "node:path";

export const DEFAULT_PAGE_FILE = resolve(import.meta.dir, "../../../../spec/static/hello.html");

// setTimeout() clamps anything larger to 1 ms, so longer waits are refused.
const MAX_TIMER_MS = 2 ** 31 - 1;

export class ConfigError extends Error {}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  if (!env.PORT) throw new ConfigError("PORT is not set: give the TCP port to listen on (e.g. PORT=8080)");
  return {
    port: integer(env, "PORT", 0, 65535),
    cores: integer(env, "CONCUR_CORES", 1, 1024, 1),
    bcryptCost: integer(env, "CONCUR_BCRYPT_COST", 4, 31, 10),
    pageFile: env.CONCUR_PAGE_FILE || DEFAULT_PAGE_FILE,
    pageDelayEvery: integer(env, "CONCUR_PAGE_DELAY_EVERY", 1, Number.MAX_SAFE_INTEGER, 10),
    pageDelayMs: integer(env, "CONCUR_PAGE_DELAY_MS", 0, MAX_TIMER_MS, 2000),
    longPollMs: integer(env, "CONCUR_LONGPOLL_MS", 0, MAX_TIMER_MS, 5000),
    dbUrl: env.CONCUR_DB_URL ?? "",
    dbPool: integer(env, "CONCUR_DB_POOL", 1, 1_000_000, 16),
    dbSlowMs: integer(env, "CONCUR_DB_SLOW_MS", 0, MAX_TIMER_MS, 20),
    faults: env.CONCUR_FAULTS === "1",
  };
}

function integer(env: Record<string, string | undefined>, name: string, min: number, max: number, fallback?: number): number {
  const raw = env[name];
  if ((raw === undefined || raw === "") && fallback !== undefined) return fallback;
  const trimmed = (raw ?? "").trim();
  const value = /^\d+$/.test(trimmed) ? Number(trimmed) : NaN;
  if (!(value >= min && value <= max)) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got '${raw}'`);
  }
  return value;
}
