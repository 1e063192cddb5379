// Shared by the tests: an in-process server on port 0, a raw TCP client for
// the framings fetch() will not send, the real entry point as a child
// process (for the cluster and the environment checks), and the PostgreSQL
// of the database routes.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { createServer } from '../src/app.js';
import { DEFAULT_PAGE_FILE } from '../src/config.js';
import { openDatabase } from '../src/database.js';
import { MemoryStore } from '../src/store.js';

export const FOLDER = fileURLToPath(new URL('..', import.meta.url));

export const TEST_CONFIG = {
  port: 0,
  cores: 1,
  bcryptCost: 4,
  pageFile: DEFAULT_PAGE_FILE,
  pageDelayEvery: 3,
  pageDelayMs: 300,
  longPollMs: 200,
  dbUrl: '',
  dbPool: 4,
  dbSlowMs: 20,
  faults: false,
};

/** Starts the server in this process; `stop()` closes it and its connections. */
export async function startServer(overrides = {}) {
  const config = { ...TEST_CONFIG, ...overrides };
  const db = openDatabase(config.dbUrl, config.dbPool);
  const server = createServer(config, new MemoryStore(), db);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    config,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await db.pool?.end();
    },
  };
}

let database;

/**
 * The URL of a seeded PostgreSQL (SPEC §8.1): CONCUR_DB_URL when set
 * (`concur test` sets it), else a `concur db` started now (the repository's
 * release build, else concur on PATH), which `stopDatabase()` stops. setpriv gives
 * it SIGINT should this test process die first, so no database outlives it.
 */
export function databaseUrl() {
  if (process.env.CONCUR_DB_URL) return Promise.resolve(process.env.CONCUR_DB_URL);
  database ??= startConcurDb();
  return database.then((d) => d.url);
}

export async function stopDatabase() {
  if (!database) return;
  const { child, exited } = await database;
  child.kill('SIGINT');
  await exited;
}

function startConcurDb() {
  const built = fileURLToPath(new URL('../../../../target/release/concur', import.meta.url));
  const concur = existsSync(built) ? built : 'concur';
  const child = spawn('setpriv', ['--pdeathsig', 'SIGINT', concur, 'db'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const match = out.match(/^CONCUR_DB_URL=(\S+)$/m);
      if (match) resolve({ url: match[1], child, exited });
    });
    child.on('error', (err) => reject(new Error(`cannot run ${concur} db (${err.message}): cargo build --release, or export the CONCUR_DB_URL of a running \`concur db\``)));
    exited.then((code) => reject(new Error(`${concur} db exited (code ${code}) before printing CONCUR_DB_URL`)));
  });
}

/**
 * Writes `chunks` (strings or Buffers, `pauseMs` apart) on a new connection
 * and resolves with everything read until the server closes it, or until
 * `idleMs` passes without data (then `closed` is false).
 */
export function raw(port, chunks, { pauseMs = 0, idleMs = 1500 } = {}) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const received = [];
    let timer;
    const finish = (closed) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text: Buffer.concat(received).toString('latin1'), closed });
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => finish(false), idleMs);
    };
    socket.on('data', (data) => {
      received.push(data);
      arm();
    });
    socket.on('close', () => finish(true));
    socket.on('error', (err) => (err.code === 'ECONNRESET' || err.code === 'EPIPE' ? finish(true) : reject(err)));
    socket.on('connect', async () => {
      arm();
      for (const chunk of [chunks].flat()) {
        if (socket.destroyed) return;
        socket.write(chunk);
        if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
      }
    });
  });
}

/** Splits a raw byte stream into responses: status, lower-case headers, body. */
export function parseResponses(text) {
  const responses = [];
  let rest = text;
  while (rest.startsWith('HTTP/')) {
    const end = rest.indexOf('\r\n\r\n');
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
    const length = Number(headers['content-length'] ?? 0);
    const status = Number(statusLine.split(' ')[1]);
    const body = status === 100 ? '' : rest.slice(end + 4, end + 4 + length);
    responses.push({ statusLine, status, headers, body });
    rest = rest.slice(end + 4 + body.length);
  }
  return responses;
}

/** A request in bytes, with Host and Content-Length as a plain client sends them. */
export function request(method, target, body = '', headers = {}) {
  const lines = [`${method} ${target} HTTP/1.1`, 'Host: 127.0.0.1'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (body || method === 'POST') lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

/**
 * Runs `node server.js` in its own process group, as the orchestrator does,
 * and resolves once it prints the port it listens on.
 */
export function spawnServer(env = {}) {
  const child = spawn(process.execPath, ['server.js'], {
    cwd: FOLDER,
    env: { ...process.env, PORT: '0', CONCUR_BCRYPT_COST: '4', ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stderr })));
  const started = new Promise((resolve, reject) => {
    let stdout = '';
    child.stdout.on('data', (d) => {
      stdout += d;
      const match = stdout.match(/listening on http:\/\/127\.0\.0\.1:(\d+)/);
      if (match) resolve(Number(match[1]));
    });
    exited.then(({ code }) => reject(new Error(`server exited (code ${code}) before listening: ${stderr}`)));
  });
  return {
    child,
    exited,
    started,
    /** SIGTERM to the server only; resolves when the whole process group is gone. */
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      for (let i = 0; i < 50 && groupAlive(child.pid); i++) await new Promise((r) => setTimeout(r, 100));
      if (groupAlive(child.pid)) process.kill(-child.pid, 'SIGKILL');
    },
  };
}

export function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}
