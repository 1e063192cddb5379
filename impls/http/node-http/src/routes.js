// The routes of SPEC §2 (and the database routes of §8, in worlds.js) and
// the order of the bad-input rules of §3: unknown path (404), wrong method
// (405), bad {user} (400), then the body rules, which the handlers apply as
// they read it.

import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { isObject, parseJson, readBody } from './body.js';
import { compare, hash } from './passwords.js';
import { HttpError, JSON_TYPE, send, sendText } from './respond.js';
import { worldRoutes } from './worlds.js';

const USER = /^[A-Za-z0-9_.-]{1,64}$/;
const PASSWORD_MAX_BYTES = 72;
const MAX_SPIN_MS = 10_000;

export function createRoutes(config, store, db) {
  // Counted per process, as the blog's server did: each cluster worker has its own.
  let pageRequests = 0;

  const exact = new Map([
    ['/', { GET: (req, res) => sendText(res, 200, 'Hello, World!') }],
    ['/json', { GET: (req, res) => send(res, 200, JSON_TYPE, JSON.stringify({ message: 'Hello, World!' })) }],
    ['/page', { GET: page }],
    ['/longPoll', { GET: longPoll }],
    ...Object.entries(worldRoutes(config, db)).map(([path, GET]) => [path, { GET }]),
    ...(config.faults ? [['/fault/panic', { GET: panic }], ['/fault/spin', { GET: spin }]] : []),
  ]);
  const prefixed = [
    ['/password/set/', { POST: setPassword }],
    ['/password/verify/', { POST: verifyPassword }],
    ['/user/set/', { POST: setUser }],
    ['/user/get/', { GET: getUser }],
  ];

  async function page(req, res) {
    if (++pageRequests % config.pageDelayEvery === 0) await sleep(config.pageDelayMs);
    let html;
    try {
      html = await readFile(config.pageFile);
    } catch (err) {
      throw new HttpError(500, `cannot read CONCUR_PAGE_FILE: ${err.code}`);
    }
    send(res, 200, 'text/html; charset=utf-8', html);
  }

  async function longPoll(req, res) {
    await sleep(config.longPollMs);
    sendText(res, 200, 'OK');
  }

  // SPEC §9: a bug in a handler. Nothing is written for it: it ends where every handler's error does.
  function panic() {
    throw new Error('fault: /fault/panic');
  }

  // SPEC §9: a runaway computation on this process' one event loop, which serves nothing else meanwhile.
  function spin(req, res) {
    const until = performance.now() + spinMs(req.url);
    while (performance.now() < until) {
      // busy: no await, so nothing else runs until the time is up
    }
    sendText(res, 200, 'OK');
  }

  async function setPassword(req, res, user) {
    const password = await passwordOf(req, res);
    await store.set('passwords', user, await hash(password, config.bcryptCost));
    sendText(res, 200, 'OK');
  }

  async function verifyPassword(req, res, user) {
    const password = await passwordOf(req, res);
    const stored = await store.get('passwords', user);
    if (stored === undefined) {
      // Hash anyway, so that an unknown user costs as much as a wrong password.
      await hash(password, config.bcryptCost);
      throw new HttpError(404, `no password is set for user ${user}`);
    }
    if (!(await compare(password, stored))) throw new HttpError(403, `wrong password for user ${user}`);
    sendText(res, 200, 'OK');
  }

  async function setUser(req, res, user) {
    const value = parseJson(await readBody(req, res));
    if (!isObject(value)) throw new HttpError(400, 'user info must be a JSON object');
    await store.set('users', user, value);
    sendText(res, 200, 'OK');
  }

  async function getUser(req, res, user) {
    const value = await store.get('users', user);
    if (value === undefined) throw new HttpError(404, `no user info is stored for user ${user}`);
    send(res, 200, JSON_TYPE, JSON.stringify(value));
  }

  /** Resolves a request to its handler and {user}, or throws the 404, 405 or 400 of §3.2-3.4. */
  return function route(req) {
    const path = pathOf(req.url);
    let methods = exact.get(path);
    let user;
    if (!methods) {
      const match = prefixed.find(([prefix]) => path.startsWith(prefix));
      if (!match) throw new HttpError(404, `no route for ${path.slice(0, 200)}`);
      [, methods] = match;
      user = path.slice(match[0].length);
    }
    const handler = methods[req.method === 'HEAD' ? 'GET' : req.method];
    if (!handler) {
      const allow = Object.keys(methods).flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m]));
      throw new HttpError(405, `method ${req.method} is not allowed here; use ${allow.join(' or ')}`, {
        Allow: allow.join(', '),
      });
    }
    if (user !== undefined && !USER.test(user)) {
      throw new HttpError(400, 'invalid user name: must match [A-Za-z0-9_.-]{1,64}');
    }
    return { handler, user };
  };
}

async function passwordOf(req, res) {
  const body = parseJson(await readBody(req, res));
  if (!isObject(body) || typeof body.password !== 'string') {
    throw new HttpError(400, 'body must be a JSON object with a string member "password"');
  }
  if (Buffer.byteLength(body.password) > PASSWORD_MAX_BYTES) {
    throw new HttpError(400, `password is longer than ${PASSWORD_MAX_BYTES} bytes of UTF-8 (the bcrypt limit)`);
  }
  if (body.password.includes('\0')) {
    // The native bcrypt stops at a NUL; the contract refuses rather than truncates.
    throw new HttpError(400, 'password contains a NUL character');
  }
  return body.password;
}

/** `ms` of /fault/spin, read as /queries reads `queries`: clamped to 0..10000, anything but an integer counts as 0. */
function spinMs(target) {
  const query = target.indexOf('?');
  const raw = new URLSearchParams(query === -1 ? '' : target.slice(query + 1)).get('ms') ?? '';
  const n = /^[+-]?\d+$/.test(raw) ? Number(raw) : 0;
  return Math.min(Math.max(n, 0), MAX_SPIN_MS);
}

/**
 * The raw, undecoded path of a request target: the query is dropped, and an
 * absolute-form target (`http://host/path`, RFC 9112 §3.2.2) is cut to its path.
 */
export function pathOf(target) {
  let start = 0;
  if (!target.startsWith('/')) {
    const scheme = target.indexOf('://');
    if (scheme !== -1) {
      start = target.slice(scheme + 3).search(/[/?]/);
      start = start === -1 ? target.length : start + scheme + 3;
    }
  }
  const query = target.indexOf('?', start);
  const path = target.slice(start, query === -1 ? undefined : query);
  return path === '' ? '/' : path;
}
