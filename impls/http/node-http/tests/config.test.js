// SPEC §1: the environment, its defaults, and a refusal naming the variable
// for every bad value.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_PAGE_FILE, loadConfig } from '../src/config.js';
import { spawnServer } from './helpers.js';

describe('config', () => {
  test('defaults', () => {
    assert.deepEqual(loadConfig({ PORT: '8080' }), {
      port: 8080,
      cores: 1,
      bcryptCost: 10,
      pageFile: DEFAULT_PAGE_FILE,
      pageDelayEvery: 10,
      pageDelayMs: 2000,
      longPollMs: 5000,
      dbUrl: '',
      dbPool: 16,
      dbSlowMs: 20,
      faults: false,
    });
    assert.equal(loadConfig({ PORT: '8080', CONCUR_FAULTS: '1' }).faults, true);
    assert.equal(loadConfig({ PORT: '8080', CONCUR_FAULTS: 'yes' }).faults, false);
  });

  test('CONCUR_DB_POOL below CONCUR_CORES is refused: every worker needs a connection', () => {
    const env = { PORT: '1', CONCUR_CORES: '4', CONCUR_DB_POOL: '3', CONCUR_DB_URL: 'postgres://u:p@127.0.0.1:1/db' };
    assert.throws(() => loadConfig(env), /CONCUR_DB_POOL=3 is below CONCUR_CORES=4/);
    assert.equal(loadConfig({ ...env, CONCUR_DB_POOL: '4' }).dbPool, 4);
  });

  test("the thesis' cost 20 and the bounds 4 and 31 are accepted", () => {
    for (const cost of [4, 20, 31]) assert.equal(loadConfig({ PORT: '1', CONCUR_BCRYPT_COST: String(cost) }).bcryptCost, cost);
  });

  test('every bad value is refused with the variable named', () => {
    const bad = {
      PORT: ['', 'x', '70000', '-1'],
      CONCUR_CORES: ['0', 'two', '1.5'],
      CONCUR_BCRYPT_COST: ['3', '32', '10x'],
      CONCUR_PAGE_DELAY_EVERY: ['0', '-3'],
      CONCUR_PAGE_DELAY_MS: ['-1', 'soon'],
      CONCUR_LONGPOLL_MS: ['1e3', '99999999999'],
      CONCUR_DB_POOL: ['0', 'many'],
      CONCUR_DB_SLOW_MS: ['-5', '0.5'],
    };
    for (const [name, values] of Object.entries(bad)) {
      for (const value of values) {
        assert.throws(() => loadConfig({ PORT: '8080', [name]: value }), new RegExp(name), `${name}=${value}`);
      }
    }
  });

  test('the server exits with a message naming the variable', async () => {
    const server = spawnServer({ CONCUR_BCRYPT_COST: '3' });
    await assert.rejects(server.started);
    const { code, stderr } = await server.exited;
    assert.equal(code, 2);
    assert.match(stderr, /CONCUR_BCRYPT_COST must be an integer from 4 to 31, got '3'/);
  });
});
