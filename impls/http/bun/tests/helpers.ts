// Shared by the tests: an in-process server on port 0, a raw TCP client for
// the framings fetch() will not send, and the real entry point as a child
// process (for the multi-process store and the environment checks).

import net from "node:net";
import { resolve } from "node:path";
import { createServer } from "../src/app.ts";
import { type Config, DEFAULT_PAGE_FILE } from "../src/config.ts";
import { MemoryStore } from "../src/store.ts";

export const FOLDER = resolve(import.meta.dir, "..");

export const TEST_CONFIG: Config = {
  port: 0,
  cores: 1,
  bcryptCost: 4,
  pageFile: DEFAULT_PAGE_FILE,
  pageDelayEvery: 3,
  pageDelayMs: 300,
  longPollMs: 200,
  dbUrl: "",
  dbPool: 4,
  dbSlowMs: 20,
  faults: false,
};

/** Starts the server in this process; `stop()` closes it and its connections. */
export function startServer(overrides: Partial<Config> = {}) {
  const config = { ...TEST_CONFIG, ...overrides };
  const { server, db } = createServer(config, new MemoryStore());
  const stop = async () => {
    await server.stop(true);
    await db.close();
  };
  return { port: server.port as number, url: `http://127.0.0.1:${server.port}`, config, stop };
}

/**
 * Writes `chunks` on a new connection and resolves with everything read
 * until the server closes it, or until `idleMs` passes without data (then
 * `closed` is false).
 */
export function raw(port: number, chunks: string | (string | Uint8Array)[], idleMs = 1000): Promise<{ text: string; closed: boolean }> {
  return new Promise((done, fail) => {
    const socket = net.connect(port, "127.0.0.1");
    const received: Buffer[] = [];
    let timer: Timer | undefined;
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      done({ text: Buffer.concat(received).toString("latin1"), closed });
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => finish(false), idleMs);
    };
    socket.on("data", (data: Buffer) => {
      received.push(data);
      arm();
    });
    socket.on("close", () => finish(true));
    socket.on("error", (err: NodeJS.ErrnoException) => (err.code === "ECONNRESET" || err.code === "EPIPE" ? finish(true) : fail(err)));
    socket.on("connect", () => {
      arm();
      for (const chunk of [chunks].flat()) if (!socket.destroyed) socket.write(chunk);
    });
  });
}

export interface RawResponse {
  statusLine: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Splits a raw byte stream into responses (Content-Length framed). */
export function parseResponses(text: string): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = text;
  while (rest.startsWith("HTTP/")) {
    const end = rest.indexOf("\r\n\r\n");
    const [statusLine = "", ...lines] = rest.slice(0, end).split("\r\n");
    const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
    const length = Number(headers["content-length"] ?? 0);
    responses.push({ statusLine, status: Number(statusLine.split(" ")[1]), headers, body: rest.slice(end + 4, end + 4 + length) });
    rest = rest.slice(end + 4 + length);
  }
  return responses;
}

export const request = (method: string, path: string, body = "", headers: Record<string, string> = {}) =>
  `${method} ${path} HTTP/1.1\r\nHost: x\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("")}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

/** Runs the real entry point with `env`; `started` resolves with its port once GET / answers. */
export function spawnServer(env: Record<string, string>) {
  // A port the kernel has free now (a listener on port 0, closed at once): a random pick from a
  // fixed range can be a port in use (the range meets the ephemeral ports other tests' clients hold).
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  const child = Bun.spawn([process.execPath, "src/server.ts"], {
    cwd: FOLDER,
    env: { ...process.env, PORT: String(port), CONCUR_BCRYPT_COST: "4", ...env },
    stdout: "ignore",
    stderr: "pipe",
  });
  const started = (async () => {
    for (let i = 0; i < 100; i++) {
      if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
      try {
        if ((await fetch(`http://127.0.0.1:${port}/`)).ok) return port;
      } catch {}
      await Bun.sleep(100);
    }
    throw new Error("the server did not answer GET / within 10 s");
  })();
  return { child, port, started, stop: () => child.kill("SIGTERM") };
}

/** Whether any process of the group `pgid` is still alive. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

let database: Promise<string> | undefined;
let concurDb: ReturnType<typeof Bun.spawn> | undefined;

/**
 * PostgreSQL seeded as SPEC §8.1: CONCUR_DB_URL's (`concur test` gives it),
 * else a `concur db` started now (the repository's release build) and
 * stopped when this test process exits.
 */
export function databaseUrl(): Promise<string> {
  database ??= (async () => {
    if (process.env.CONCUR_DB_URL) return process.env.CONCUR_DB_URL;
    const concur = Bun.which("concur") ?? resolve(FOLDER, "../../../target/release/concur");
    if (!(await Bun.file(concur).exists())) {
      throw new Error(`the database routes need PostgreSQL: no concur on PATH nor at ${concur}; run \`cargo build --release\`, or \`concur test bun\``);
    }
    concurDb = Bun.spawn([concur, "db"], { stdout: "pipe", stderr: "inherit" });
    process.once("exit", () => concurDb?.kill("SIGINT"));
    const reader = (concurDb.stdout as ReadableStream<Uint8Array>).getReader();
    let text = "";
    while (!text.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    const line = text.split("\n")[0]!.trim();
    if (!line.startsWith("CONCUR_DB_URL=")) throw new Error(`concur db printed '${line}' where CONCUR_DB_URL=... was expected`);
    return line.slice("CONCUR_DB_URL=".length);
  })();
  return database;
}

/** Stops the `concur db` that `databaseUrl` started, if any. */
export async function stopDatabase() {
  concurDb?.kill("SIGINT");
  await concurDb?.exited;
  concurDb = undefined;
}
