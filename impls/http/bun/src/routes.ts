// The routes of SPEC §2 as a Bun.serve `routes` table, and the order of the
// bad-input rules of §3: a path no route matches falls through to `fallback`
// (404, or 405 with Allow when the path is known); then the {user} check
// (400) and the body rules, which the handlers apply as they read it.

import type { BunRequest, Server } from "bun";
import { isObject, parseJson, readBody } from "./body.ts";
import type { Config } from "./config.ts";
import type { Database } from "./database.ts";
import { Passwords, passwordOf } from "./passwords.ts";
import { HttpError, JSON_TYPE, errorResponse, send, text } from "./respond.ts";
import type { Store } from "./store.ts";
import { createDatabaseRoutes } from "./worlds.ts";

const USER = /^[A-Za-z0-9_.-]{1,64}$/;
const MAX_SPIN_MS = 10_000;

type Handler = (req: BunRequest, server: Server<undefined>) => Response | Promise<Response>;
type UserHandler = (req: BunRequest, user: string, server: Server<undefined>) => Promise<Response>;
type Methods = { GET?: Handler; POST?: Handler };

export function createRoutes(config: Config, store: Store, db: Database) {
  const passwords = new Passwords(config.bcryptCost);
  const database = createDatabaseRoutes(config, db);
  // Counted per process, as the blog's server did: each worker has its own.
  let pageRequests = 0;

  async function page(req: BunRequest, server: Server<undefined>) {
    if (++pageRequests % config.pageDelayEvery === 0) {
      server.timeout(req, 0);
      await Bun.sleep(config.pageDelayMs);
    }
    let html: Uint8Array;
    try {
      html = await Bun.file(config.pageFile).bytes();
    } catch (err) {
      throw new HttpError(500, `cannot read CONCUR_PAGE_FILE: ${(err as NodeJS.ErrnoException).code ?? err}`);
    }
    return send(req, 200, "text/html; charset=utf-8", html);
  }

  async function longPoll(req: BunRequest, server: Server<undefined>) {
    // Bun's idle timer also runs while a response is pending: a long wait must not be cut.
    server.timeout(req, 0);
    await Bun.sleep(config.longPollMs);
    return text(req, 200, "OK");
  }

  // SPEC §9: a handler bug. Nothing here catches it; what happens is the server's general error handling.
  function panic(): Response {
    throw new Error("fault: /fault/panic raised an unhandled error");
  }

  // SPEC §9: a runaway computation on this process' event loop, which serves nothing else meanwhile.
  function spin(req: BunRequest) {
    const until = performance.now() + spinMs(req);
    while (performance.now() < until) {
      // busy: no await, so nothing else runs until the time is up
    }
    return text(req, 200, "OK");
  }

  async function setPassword(req: BunRequest, user: string) {
    const password = passwordOf(parseJson(await readBody(req)));
    await store.set("passwords", user, await passwords.hash(password));
    return text(req, 200, "OK");
  }

  async function verifyPassword(req: BunRequest, user: string) {
    const password = passwordOf(parseJson(await readBody(req)));
    const stored = await store.get("passwords", user);
    if (typeof stored !== "string") {
      // Hash anyway, so that an unknown user costs as much as a wrong password.
      await passwords.hash(password);
      throw new HttpError(404, `no password is set for user ${user}`);
    }
    if (!(await passwords.verify(password, stored))) throw new HttpError(403, `wrong password for user ${user}`);
    return text(req, 200, "OK");
  }

  async function setUser(req: BunRequest, user: string) {
    const value = parseJson(await readBody(req));
    if (!isObject(value)) throw new HttpError(400, "user info must be a JSON object");
    await store.set("users", user, value);
    return text(req, 200, "OK");
  }

  async function getUser(req: BunRequest, user: string) {
    const value = await store.get("users", user);
    if (value === undefined) throw new HttpError(404, `no user info is stored for user ${user}`);
    return send(req, 200, JSON_TYPE, JSON.stringify(value));
  }

  // Without CONCUR_FAULTS=1 these paths are unknown (404).
  const faults: Record<string, Methods> = config.faults
    ? { "/fault/panic": { GET: guard(panic) }, "/fault/spin": { GET: guard(spin) } }
    : {};
  const routes = {
    "/": { GET: guard((req) => text(req, 200, "Hello, World!")) },
    "/json": { GET: guard((req) => send(req, 200, JSON_TYPE, JSON.stringify({ message: "Hello, World!" }))) },
    "/page": { GET: guard(page) },
    "/longPoll": { GET: guard(longPoll) },
    "/password/set/*": { POST: withUser("/password/set/", setPassword) },
    "/password/verify/*": { POST: withUser("/password/verify/", verifyPassword) },
    "/user/set/*": { POST: withUser("/user/set/", setUser) },
    "/user/get/*": { GET: withUser("/user/get/", getUser) },
    "/db": { GET: guard(database.single) },
    "/queries": { GET: guard(database.queries) },
    "/updates": { GET: guard(database.updates) },
    "/fortunes": { GET: guard(database.fortunes) },
    "/slowdb": { GET: guard(database.slow) },
    ...faults,
  } satisfies Record<string, Methods>;

  /** Requests no route took: an unknown path (404) or a known path with another method (405). */
  function fallback(req: Request): Response {
    const path = pathOf(req.url);
    const known = Object.entries(routes as Record<string, Methods>).find(([pattern]) =>
      pattern.endsWith("/*") ? path.startsWith(pattern.slice(0, -1)) : path === pattern,
    );
    if (!known) return errorResponse(req, new HttpError(404, `no route for ${path.slice(0, 200)}`));
    const allow = Object.keys(known[1]).flatMap((m) => (m === "GET" ? ["GET", "HEAD"] : [m]));
    return errorResponse(
      req,
      new HttpError(405, `method ${req.method} is not allowed here; use ${allow.join(" or ")}`, { Allow: allow.join(", ") }),
    );
  }

  return { routes, fallback };
}

/** Answers an HttpError thrown by `handler`, synchronously when the handler was synchronous. */
function guard(handler: Handler): Handler {
  const fail = (req: Request, err: unknown) => {
    if (err instanceof HttpError) return errorResponse(req, err);
    console.error(err);
    return errorResponse(req, new HttpError(500, "internal server error"));
  };
  return (req, server) => {
    try {
      const res = handler(req, server);
      return res instanceof Promise ? res.catch((err) => fail(req, err)) : res;
    } catch (err) {
      return fail(req, err);
    }
  };
}

/** `ms` of /fault/spin, read as /queries reads `queries`: clamped to 0..10000, anything that is not a decimal integer counts as 0. */
function spinMs(req: Request): number {
  const query = req.url.indexOf("?");
  const ms = query === -1 ? null : new URLSearchParams(req.url.slice(query + 1)).get("ms");
  if (ms === null || !/^-?\d+$/.test(ms)) return 0;
  return Math.min(Math.max(Number(ms), 0), MAX_SPIN_MS);
}

/** The {user} of SPEC §3.4, taken from the raw path: `%41` is not `A`, and `a/b` is not a name. */
function withUser(prefix: string, handler: UserHandler): Handler {
  return guard((req, server) => {
    const user = pathOf(req.url).slice(prefix.length);
    if (!USER.test(user)) throw new HttpError(400, "invalid user name: must match [A-Za-z0-9_.-]{1,64}");
    return handler(req, user, server);
  });
}

/**
 * The raw, undecoded path of `req.url`: Bun gives the absolute URL it built
 * from Host, or the target as sent when there is no Host (HTTP/1.0).
 */
export function pathOf(url: string): string {
  let start = 0;
  if (!url.startsWith("/")) {
    const scheme = url.indexOf("://");
    if (scheme !== -1) {
      const slash = url.slice(scheme + 3).search(/[/?]/);
      start = slash === -1 ? url.length : slash + scheme + 3;
    }
  }
  const query = url.indexOf("?", start);
  const path = url.slice(start, query === -1 ? undefined : query);
  return path === "" ? "/" : path;
}
