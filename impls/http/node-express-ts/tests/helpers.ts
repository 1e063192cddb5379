// Shared by the tests: the app on a real server on port 0, a raw TCP client
// for the framings fetch() will not send, the compiled entry point as a
// child process (for the cluster and the environment checks), and the
// PostgreSQL of the database routes.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createApp, listen } from '../src/app.js';
import { DEFAULT_PAGE_FILE, type Config } from '../src/config.js';
import { openDatabase } from '../src/database.js';
import { MemoryStore } from '../src/store.js';

// Compiled to dist/tests/: the folder is two levels up, the repository five.
export const FOLDER = fileURLToPath(new URL('../../', import.meta.url));
export const REPO = fileURLToPath(new URL('../../../../../', import.meta.url));

export const TEST_CONFIG: Config = {
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

export interface TestServer {
  port: number;
  url: string;
  config: Config;
  stop(): Promise<void>;
}

/** Starts the app in this process; `stop()` closes it and its connections. */
export async function startServer(overrides: Partial<Config> = {}): Promise<TestServer> {
  const config = { ...TEST_CONFIG, ...overrides };
  const db = openDatabase(config.dbUrl, config.dbPool);
  const server = await listen(createApp(config, new MemoryStore(), db), 0);
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    config,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await db.pool?.end();
    },
  };
}

interface ConcurDb {
  url: string;
  child: ChildProcess;
  exited: Promise<unknown>;
}

let database: Promise<ConcurDb> | undefined;

/**
 * The URL of a seeded PostgreSQL (SPEC §8.1): CONCUR_DB_URL when set
 * (`concur test` sets it), else a `concur db` started now (the repository's
 * release build, else concur on PATH), which `stopDatabase()` stops.
 * setpriv gives it SIGINT should this test process die first, so no
 * database outlives it.
 */
export async function databaseUrl(): Promise<string> {
  if (process.env.CONCUR_DB_URL) return process.env.CONCUR_DB_URL;
  database ??= startConcurDb();
  return (await database).url;
}

export async function stopDatabase(): Promise<void> {
  if (!database) return;
  const { child, exited } = await database;
  child.kill('SIGINT');
  await exited;
}

function startConcurDb(): Promise<ConcurDb> {
  const built = `${REPO}target/release/concur`;
  const concur = existsSync(built) ? built : 'concur';
  const child = spawn('setpriv', ['--pdeathsig', 'SIGINT', concur, 'db'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d) => {
      out += d;
      const match = out.match(/^CONCUR_DB_URL=(\S+)$/m);
      if (match?.[1]) resolve({ url: match[1], child, exited });
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
export function raw(
  port: number,
  chunks: string | Buffer | (string | Buffer)[],
  { pauseMs = 0, idleMs = 1500 } = {},
): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    const finish = (closed: boolean) => {
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
    socket.on('error', (err: NodeJS.ErrnoException) =>
      err.code === 'ECONNRESET' || err.code === 'EPIPE' ? finish(true) : reject(err),
    );
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

export interface RawResponse {
  statusLine: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Splits a raw byte stream into responses: status, lower-case headers, body. */
export function parseResponses(text: string): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = text;
  while (rest.startsWith('HTTP/')) {
    const end = rest.indexOf('\r\n\r\n');
    const [statusLine = '', ...lines] = rest.slice(0, end).split('\r\n');
    const headers = Object.fromEntries(
      lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
    );
    const length = Number(headers['content-length'] ?? 0);
    const status = Number(statusLine.split(' ')[1]);
    const body = status === 100 ? '' : rest.slice(end + 4, end + 4 + length);
    responses.push({ statusLine, status, headers, body });
    rest = rest.slice(end + 4 + body.length);
  }
  return responses;
}

/** A request in bytes, with Host and Content-Length as a plain client sends them. */
export function request(method: string, target: string, body = '', headers: Record<string, string> = {}): string {
  const lines = [`${method} ${target} HTTP/1.1`, 'Host: 127.0.0.1'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (body || method === 'POST') lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

export interface SpawnedServer {
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
  started: Promise<number>;
  /** SIGTERM to the server only; resolves when the whole process group is gone. */
  stop(): Promise<void>;
}

/**
 * Runs `node dist/src/server.js` in its own process group, as the
 * orchestrator does, and resolves `started` once it prints its port.
 */
export function spawnServer(env: Record<string, string> = {}): SpawnedServer {
  const child = spawn(process.execPath, ['dist/src/server.js'], {
    cwd: FOLDER,
    env: { ...process.env, PORT: '0', CONCUR_BCRYPT_COST: '4', ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, stderr })),
  );
  const started = new Promise<number>((resolve, reject) => {
    let stdout = '';
    child.stdout?.on('data', (d) => {
      stdout += d;
      const match = stdout.match(/listening on http:\/\/127\.0\.0\.1:(\d+)/);
      if (match) resolve(Number(match[1]));
    });
    exited.then(({ code }) => reject(new Error(`server exited (code ${code}) before listening: ${stderr}`)));
  });
  started.catch(() => {}); // a test that expects the failure awaits it itself
  return {
    child,
    exited,
    started,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      for (let i = 0; i < 50 && groupAlive(child.pid!); i++) await new Promise((r) => setTimeout(r, 100));
      if (groupAlive(child.pid!)) process.kill(-child.pid!, 'SIGKILL');
    },
  };
}

export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}
