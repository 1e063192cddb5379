// The routes of SPEC §2 and the order of the bad-input rules of §3: unknown
// path (404), wrong method (405), bad {user} (400), then the body rules,
// which the handlers apply as they read it.

import { isObject, parseJson, readBody } from './body.ts';
import type { Config } from './config.ts';
import type { Database } from './database.ts';
import { compare, hash } from './passwords.ts';
import { HttpError, JSON_TYPE, respond, text } from './respond.ts';
import type { Store } from './store.ts';
import { createDatabaseRoutes } from './worlds.ts';

const USER = /^[A-Za-z0-9_.-]{1,64}$/;
const PASSWORD_MAX_BYTES = 72;
const MAX_SPIN_MS = 10_000;

type Handler = (req: Request, user: string) => Promise<Response> | Response;
type Methods = Partial<Record<'GET' | 'POST', Handler>>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const utf8 = new TextEncoder();

export function createRoutes(
  config: Config,
  store: Store,
  db: Database,
): (req: Request) => Promise<Response> | Response {
  const database = createDatabaseRoutes(config, db);
  // Counted per isolate, as the blog's server counted per process: each worker has its own.
  let pageRequests = 0;

  const exact = new Map<string, Methods>([
    ['/', { GET: () => text(200, 'Hello, World!') }],
    ['/json', { GET: () => respond(200, JSON_TYPE, JSON.stringify({ message: 'Hello, World!' })) }],
    ['/page', { GET: page }],
    ['/longPoll', { GET: longPoll }],
    ['/db', { GET: database.single }],
    ['/queries', { GET: database.queries }],
    ['/updates', { GET: database.updates }],
    ['/fortunes', { GET: database.fortunes }],
    ['/slowdb', { GET: database.slow }],
  ]);
  // Without CONCUR_FAULTS=1 these paths are unknown (404).
  if (config.faults) {
    exact.set('/fault/panic', { GET: panic });
    exact.set('/fault/spin', { GET: spin });
  }
  const prefixed: [string, Methods][] = [
    ['/password/set/', { POST: setPassword }],
    ['/password/verify/', { POST: verifyPassword }],
    ['/user/set/', { POST: setUser }],
    ['/user/get/', { GET: getUser }],
  ];

  async function page(): Promise<Response> {
    if (++pageRequests % config.pageDelayEvery === 0) await sleep(config.pageDelayMs);
    let html: Uint8Array<ArrayBuffer>;
    try {
      html = await Deno.readFile(config.pageFile);
    } catch (err) {
      throw new HttpError(500, `cannot read CONCUR_PAGE_FILE: ${(err as Error).name}`);
    }
    return respond(200, 'text/html; charset=utf-8', html);
  }

  async function longPoll(): Promise<Response> {
    await sleep(config.longPollMs);
    return text(200, 'OK');
  }

  // SPEC §9: a handler bug. Nothing here catches it; what happens is the server's general error handling.
  function panic(): Response {
    throw new Error('fault: /fault/panic raised an unhandled error');
  }

  // SPEC §9: a runaway computation on this isolate's event loop, which serves nothing else meanwhile.
  function spin(req: Request): Response {
    const until = performance.now() + spinMs(new URL(req.url).searchParams.get('ms'));
    while (performance.now() < until) {
      // busy: no await, so nothing else runs until the time is up
    }
    return text(200, 'OK');
  }

  async function setPassword(req: Request, user: string): Promise<Response> {
    const password = await passwordOf(req);
    await store.set('passwords', user, await hash(password, config.bcryptCost));
    return text(200, 'OK');
  }

  async function verifyPassword(req: Request, user: string): Promise<Response> {
    const password = await passwordOf(req);
    const stored = await store.get('passwords', user);
    if (typeof stored !== 'string') {
      // Hash anyway, so that an unknown user costs as much as a wrong password.
      await hash(password, config.bcryptCost);
      throw new HttpError(404, `no password is set for user ${user}`);
    }
    if (!(await compare(password, stored))) throw new HttpError(403, `wrong password for user ${user}`);
    return text(200, 'OK');
  }

  async function setUser(req: Request, user: string): Promise<Response> {
    const value = parseJson(await readBody(req));
    if (!isObject(value)) throw new HttpError(400, 'user info must be a JSON object');
    await store.set('users', user, value);
    return text(200, 'OK');
  }

  async function getUser(_req: Request, user: string): Promise<Response> {
    const value = await store.get('users', user);
    if (value === undefined) throw new HttpError(404, `no user info is stored for user ${user}`);
    return respond(200, JSON_TYPE, JSON.stringify(value));
  }

  /** Resolves a request to its handler and {user}, or throws the 404, 405 or 400 of §3.2-3.4. */
  return function route(req: Request) {
    const path = pathOf(req.url);
    let methods = exact.get(path);
    let user: string | undefined;
    if (!methods) {
      const match = prefixed.find(([prefix]) => path.startsWith(prefix));
      if (!match) throw new HttpError(404, `no route for ${path.slice(0, 200)}`);
      [, methods] = match;
      user = path.slice(match[0].length);
    }
    const handler = methods[(req.method === 'HEAD' ? 'GET' : req.method) as keyof Methods];
    if (!handler) {
      const allow = Object.keys(methods).flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m]));
      throw new HttpError(405, `method ${req.method} is not allowed here; use ${allow.join(' or ')}`, {
        allow: allow.join(', '),
      });
    }
    if (user !== undefined && !USER.test(user)) {
      throw new HttpError(400, 'invalid user name: must match [A-Za-z0-9_.-]{1,64}');
    }
    return handler(req, user ?? '');
  };
}

/** `ms` of /fault/spin, read as /queries reads `queries`: clamped to 0..10000, anything that is not a decimal integer counts as 0. */
function spinMs(ms: string | null): number {
  if (ms === null || !/^-?\d+$/.test(ms)) return 0;
  return Math.min(Math.max(Number(ms), 0), MAX_SPIN_MS);
}

async function passwordOf(req: Request): Promise<string> {
  const body = parseJson(await readBody(req));
  if (!isObject(body) || typeof body.password !== 'string') {
    throw new HttpError(400, 'body must be a JSON object with a string member "password"');
  }
  if (utf8.encode(body.password).length > PASSWORD_MAX_BYTES) {
    throw new HttpError(400, `password is longer than ${PASSWORD_MAX_BYTES} bytes of UTF-8 (the bcrypt limit)`);
  }
  if (body.password.includes('\0')) {
    // The native bcrypt stops at a NUL; the contract refuses rather than truncates.
    throw new HttpError(400, 'password contains a NUL character');
  }
  return body.password;
}

/**
 * The raw, undecoded path of a request: Deno's `req.url` joins the Host to the
 * request target as sent (an absolute-form target is kept whole), so the path
 * starts at the first `/` after the authority and the query is dropped.
 */
export function pathOf(url: string): string {
  const authority = url.indexOf('://');
  const start = url.slice(authority + 3).search(/[/?]/);
  if (start === -1) return '/';
  const rest = url.slice(authority + 3 + start);
  const query = rest.indexOf('?');
  const path = query === -1 ? rest : rest.slice(0, query);
  return path === '' ? '/' : path;
}
