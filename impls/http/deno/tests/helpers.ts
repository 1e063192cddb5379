// Shared by the tests: an in-process server on port 0, a raw TCP client for
// the framings fetch() will not send, and the real entry point as a child
// process (for the workers and the environment checks).

import { createHandler } from '../src/app.ts';
import { type Config, DEFAULT_PAGE_FILE } from '../src/config.ts';
import { Database } from '../src/database.ts';
import { MemoryStore } from '../src/store.ts';

export const FOLDER = new URL('..', import.meta.url).pathname;

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

/** Starts the server in this process on a port the OS picks; `stop()` closes it. */
export async function startServer(overrides: Partial<Config> = {}): Promise<TestServer> {
  const config = { ...TEST_CONFIG, ...overrides };
  const { promise: listening, resolve } = Promise.withResolvers<number>();
  const db = new Database(config);
  const server = Deno.serve(
    { hostname: '127.0.0.1', port: 0, onListen: ({ port }) => resolve(port) },
    createHandler(config, new MemoryStore(), db),
  );
  const port = await listening;
  const stop = async () => {
    await server.shutdown();
    await db.close();
  };
  return { port, url: `http://127.0.0.1:${port}`, config, stop };
}

/** Sanitizers off: the server's connections outlive a step by design. */
export const step = (t: Deno.TestContext, name: string, fn: () => Promise<void>) =>
  t.step({ name, fn, sanitizeOps: false, sanitizeResources: false });

/**
 * Writes `chunks` (strings or bytes, `pauseMs` apart) on a new connection and
 * resolves with everything read until the server closes it, or until `idleMs`
 * passes without data (then `closed` is false).
 */
export async function raw(
  port: number,
  chunks: string | (string | Uint8Array)[],
  { pauseMs = 0, idleMs = 1500 } = {},
): Promise<{ text: string; closed: boolean }> {
  const conn = await Deno.connect({ hostname: '127.0.0.1', port });
  const encoder = new TextEncoder();
  const writing = (async () => {
    for (const chunk of [chunks].flat()) {
      try {
        await conn.write(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
      } catch {
        return; // The server closed the connection while we were still sending.
      }
      if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
    }
  })();
  const received: number[] = [];
  const buffer = new Uint8Array(64 * 1024);
  let closed = false;
  for (;;) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const idle = new Promise<'idle'>((r) => (timer = setTimeout(() => r('idle'), idleMs)));
    const read = conn.read(buffer).catch(() => null);
    const n = await Promise.race([read, idle]);
    clearTimeout(timer);
    if (n === 'idle') break;
    if (n === null) {
      closed = true;
      break;
    }
    received.push(...buffer.subarray(0, n));
  }
  try {
    conn.close();
  } catch { /* already closed */ }
  await writing;
  return { text: new TextDecoder('latin1').decode(new Uint8Array(received)), closed };
}

export interface RawResponse {
  statusLine: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Splits a raw byte stream into responses: status, lower-case headers, body (Content-Length framed). */
export function parseResponses(text: string): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = text;
  while (rest.startsWith('HTTP/')) {
    const end = rest.indexOf('\r\n\r\n');
    if (end === -1) break;
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers = Object.fromEntries(
      lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
    );
    const length = Number(headers['content-length'] ?? 0);
    const bodyStart = end + 4;
    responses.push({
      statusLine,
      status: Number(statusLine.split(' ')[1]),
      headers,
      body: rest.slice(bodyStart, bodyStart + length),
    });
    rest = rest.slice(bodyStart + length);
  }
  return responses;
}

/** One HTTP/1.1 request's bytes. */
export function request(method: string, path: string, body = '', headers: Record<string, string> = {}): string {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: test'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (body || method === 'POST') lines.push(`Content-Length: ${new TextEncoder().encode(body).length}`);
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

export interface SpawnedServer {
  child: Deno.ChildProcess;
  /** Resolves with the port once the server printed its listening line; rejects if it exited first. */
  started: Promise<number>;
  output: Promise<Deno.CommandOutput>;
  stop(): Promise<Deno.CommandStatus>;
}

/** Runs the real entry point (src/main.ts) with `env` on a free port. */
export function spawnServer(env: Record<string, string>): SpawnedServer {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ['run', '-P', 'src/main.ts'],
    cwd: FOLDER,
    env: { PORT: String(port), CONCUR_BCRYPT_COST: '4', ...env },
    stdout: 'piped',
    stderr: 'piped',
  }).spawn();
  const { promise: started, resolve, reject } = Promise.withResolvers<number>();
  const decoder = new TextDecoder();
  const readStdout = async () => {
    let seen = '';
    for await (const chunk of child.stdout) {
      seen += decoder.decode(chunk, { stream: true });
      if (seen.includes('listening on')) resolve(port);
    }
    reject(new Error(`the server exited before it listened: ${seen}`));
    return new TextEncoder().encode(seen);
  };
  const output = (async () => {
    const [stdout, stderr, status] = await Promise.all([
      readStdout(),
      new Response(child.stderr).arrayBuffer(),
      child.status,
    ]);
    return { ...status, stdout, stderr: new Uint8Array(stderr) };
  })();
  return {
    child,
    started,
    output,
    stop: async () => {
      try {
        child.kill('SIGTERM');
      } catch { /* already gone */ }
      return (await output);
    },
  };
}

function freePort(): number {
  const listener = Deno.listen({ hostname: '127.0.0.1', port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

let database: Promise<string> | undefined;
let concurDb: Deno.ChildProcess | undefined;

/**
 * PostgreSQL seeded as SPEC §8.1: CONCUR_DB_URL's (`concur test` gives it),
 * else a `concur db` started now (the repository's release build); stop it
 * with `stopDatabase`.
 */
export function databaseUrl(): Promise<string> {
  database ??= (async () => {
    const given = Deno.env.get('CONCUR_DB_URL');
    if (given) return given;
    const concur = new URL('../../../../target/release/concur', import.meta.url).pathname;
    try {
      await Deno.stat(concur);
    } catch {
      throw new Error(
        `the database routes need PostgreSQL: no ${concur}; run \`cargo build --release\`, or \`concur test deno\``,
      );
    }
    concurDb = new Deno.Command(concur, { args: ['db'], stdout: 'piped', stderr: 'inherit' }).spawn();
    const reader = concurDb.stdout.getReader();
    let text = '';
    while (!text.includes('\n')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    reader.releaseLock();
    concurDb.stdout.cancel();
    const line = text.split('\n')[0].trim();
    if (!line.startsWith('CONCUR_DB_URL=')) {
      throw new Error(`concur db printed '${line}' where CONCUR_DB_URL=... was expected`);
    }
    return line.slice('CONCUR_DB_URL='.length);
  })();
  return database;
}

/**
 * The superuser login of the cluster `url` (a `databaseUrl`) is on, to its
 * `postgres` database: concur's own (src/db/seed.rs), as `concur verify` uses
 * it to turn the server's logins away (`ALTER DATABASE … ALLOW_CONNECTIONS`,
 * which PostgreSQL takes only from another database).
 */
export function superuserUrl(url: string): string {
  const { host } = new URL(url);
  return `postgres://concur:concur-admin@${host}/postgres`;
}

/** Stops the `concur db` that `databaseUrl` started, if any. */
export async function stopDatabase(): Promise<void> {
  if (!concurDb) return;
  concurDb.kill('SIGINT');
  await concurDb.status;
  concurDb = undefined;
  database = undefined;
}
