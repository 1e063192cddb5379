// Reads the process environment of SPEC §1 into one plain config object.
// Every bad value is refused with a sentence naming the variable, so a typo in
// a benchmark setup stops the server instead of silently using a default.

import { fileURLToPath } from 'node:url';

export const DEFAULT_PAGE_FILE = fileURLToPath(new URL('../../../../spec/static/hello.html', import.meta.url));

// setTimeout() clamps anything larger to 1 ms, so longer waits are refused.
const MAX_TIMER_MS = 2 ** 31 - 1;

export class ConfigError extends Error {}

export function loadConfig(env = process.env) {
  if (!env.PORT) throw new ConfigError('PORT is not set: give the TCP port to listen on (e.g. PORT=8080)');
  const config = {
    port: integer(env, 'PORT', { min: 0, max: 65535 }),
    cores: integer(env, 'CONCUR_CORES', { min: 1, max: 1024, fallback: 1 }),
    bcryptCost: integer(env, 'CONCUR_BCRYPT_COST', { min: 4, max: 31, fallback: 10 }),
    pageFile: env.CONCUR_PAGE_FILE || DEFAULT_PAGE_FILE,
    pageDelayEvery: integer(env, 'CONCUR_PAGE_DELAY_EVERY', { min: 1, max: Number.MAX_SAFE_INTEGER, fallback: 10 }),
    pageDelayMs: integer(env, 'CONCUR_PAGE_DELAY_MS', { min: 0, max: MAX_TIMER_MS, fallback: 2000 }),
    longPollMs: integer(env, 'CONCUR_LONGPOLL_MS', { min: 0, max: MAX_TIMER_MS, fallback: 5000 }),
    // SPEC §8.2; no URL leaves the database routes answering 503.
    dbUrl: env.CONCUR_DB_URL || '',
    dbPool: integer(env, 'CONCUR_DB_POOL', { min: 1, max: 100_000, fallback: 16 }),
    dbSlowMs: integer(env, 'CONCUR_DB_SLOW_MS', { min: 0, max: MAX_TIMER_MS, fallback: 20 }),
    // SPEC §9: only CONCUR_FAULTS=1 adds the fault routes; otherwise they are unknown paths.
    faults: env.CONCUR_FAULTS === '1',
  };
  // CONCUR_DB_POOL bounds the whole server: each worker process needs at least one of it.
  if (config.dbUrl && config.dbPool < config.cores) {
    throw new ConfigError(
      `CONCUR_DB_POOL=${config.dbPool} is below CONCUR_CORES=${config.cores}: each of the ${config.cores} worker processes needs at least one connection; give CONCUR_DB_POOL at least ${config.cores}`,
    );
  }
  return config;
}

function integer(env, name, { min, max, fallback }) {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  if (!(value >= min && value <= max)) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got '${raw}'`);
  }
  return value;
}
