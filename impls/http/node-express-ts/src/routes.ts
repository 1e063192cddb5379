// The routes of SPEC §2 on an express.Router, in the order of the bad-input
// rules of §3: a path no route matches falls through to notFound (404), a
// route's .all() after its real method answers 405, then `userName` checks
// {user} (400), then the body middleware (413, 400) and the handler.

import { Router, type RequestHandler, type Response } from 'express';
import { setTimeout as sleep } from 'node:timers/promises';
import { isObject, jsonBody } from './body.js';
import type { Config } from './config.js';
import { HttpError, methodNotAllowed } from './errors.js';
import { Passwords } from './passwords.js';
import type { JsonValue, Store } from './store.js';

declare global {
  namespace Express {
    interface Locals {
      /** The {user} of the path, once userName has accepted it. */
      user: string;
    }
  }
}

const USER = /^[A-Za-z0-9_.-]{1,64}$/;
const PASSWORD_MAX_BYTES = 72;
const MAX_SPIN_MS = 10_000;

export function createRouter(config: Config, store: Store): Router {
  const passwords = new Passwords(store, config.bcryptCost);
  // Counted per process, as the blog's server did: each cluster worker has its own.
  let pageRequests = 0;

  // '/JSON' and '/json/' are not '/json'.
  const router = Router({ caseSensitive: true, strict: true });

  router
    .route('/')
    .get((req, res) => text(res, 'Hello, World!'))
    .all(methodNotAllowed('GET'));

  router
    .route('/json')
    .get((req, res) => res.json({ message: 'Hello, World!' }))
    .all(methodNotAllowed('GET'));

  router
    .route('/page')
    .get(async (req, res) => {
      if (++pageRequests % config.pageDelayEvery === 0) await sleep(config.pageDelayMs);
      await sendPage(res, config.pageFile);
    })
    .all(methodNotAllowed('GET'));

  router
    .route('/longPoll')
    .get(async (req, res) => {
      await sleep(config.longPollMs);
      text(res, 'OK');
    })
    .all(methodNotAllowed('GET'));

  router
    .route('/password/set/{*user}')
    .post(userName, ...jsonBody, async (req, res) => {
      await passwords.set(res.locals.user, passwordOf(req.body));
      text(res, 'OK');
    })
    .all(methodNotAllowed('POST'));

  router
    .route('/password/verify/{*user}')
    .post(userName, ...jsonBody, async (req, res) => {
      const { user } = res.locals;
      switch (await passwords.verify(user, passwordOf(req.body))) {
        case 'match':
          return text(res, 'OK');
        case 'mismatch':
          throw new HttpError(403, `wrong password for user ${user}`);
        case 'unknown user':
          throw new HttpError(404, `no password is set for user ${user}`);
      }
    })
    .all(methodNotAllowed('POST'));

  router
    .route('/user/set/{*user}')
    .post(userName, ...jsonBody, async (req, res) => {
      const info = req.body as JsonValue;
      if (!isObject(info)) throw new HttpError(400, 'user info must be a JSON object');
      await store.setUser(res.locals.user, info);
      text(res, 'OK');
    })
    .all(methodNotAllowed('POST'));

  router
    .route('/user/get/{*user}')
    .get(userName, async (req, res) => {
      const info = await store.getUser(res.locals.user);
      if (info === undefined) throw new HttpError(404, `no user info is stored for user ${res.locals.user}`);
      res.json(info);
    })
    .all(methodNotAllowed('GET'));

  // SPEC §9, only with CONCUR_FAULTS=1 (otherwise notFound answers 404).
  if (config.faults) {
    // A bug in a handler: nothing is written for it, Express and errorHandler take it as any other.
    router
      .route('/fault/panic')
      .get(() => {
        throw new Error('fault: /fault/panic');
      })
      .all(methodNotAllowed('GET'));

    // A runaway computation on this process' one event loop, which serves nothing else meanwhile.
    router
      .route('/fault/spin')
      .get((req, res) => {
        const until = performance.now() + spinMs(req.query.ms);
        while (performance.now() < until) {
          // busy: no await, so nothing else runs until the time is up
        }
        text(res, 'OK');
      })
      .all(methodNotAllowed('GET'));
  }

  return router;
}

/**
 * `ms` of /fault/spin as Express parsed it, read as /queries reads `queries`:
 * clamped to 0..10000; anything but an integer counts as 0.
 */
function spinMs(raw: unknown): number {
  const n = typeof raw === 'string' && /^[+-]?\d+$/.test(raw) ? Number(raw) : 0;
  return Math.min(Math.max(n, 0), MAX_SPIN_MS);
}

/**
 * SPEC §3.4 judges {user} as sent: `%41` is not `A`, and `a/b` is no name.
 * req.params.user is decoded and split at slashes, so this takes the raw path
 * after the route's fixed part instead.
 */
const userName: RequestHandler = (req, res, next) => {
  const prefix = (req.route as { path: string }).path.replace('{*user}', '');
  const user = req.path.slice(prefix.length);
  if (!USER.test(user)) throw new HttpError(400, 'invalid user name: must match [A-Za-z0-9_.-]{1,64}');
  res.locals.user = user;
  next();
};

function passwordOf(body: JsonValue): string {
  if (!isObject(body) || typeof body.password !== 'string') {
    throw new HttpError(400, 'body must be a JSON object with a string member "password"');
  }
  const { password } = body;
  if (Buffer.byteLength(password) > PASSWORD_MAX_BYTES) {
    throw new HttpError(400, `password is longer than ${PASSWORD_MAX_BYTES} bytes of UTF-8 (the bcrypt limit)`);
  }
  if (password.includes('\0')) {
    // The native bcrypt stops at a NUL; the contract refuses rather than truncates.
    throw new HttpError(400, 'password contains a NUL character');
  }
  return password;
}

function text(res: Response, body: string): void {
  res.type('text/plain').send(body);
}

/** res.sendFile streams the file from disk on every request; its errors become HttpErrors. */
function sendPage(res: Response, file: string): Promise<void> {
  res.type('html'); // text/html; charset=utf-8, whatever the file's extension
  return new Promise((resolve, reject) => {
    res.sendFile(file, { dotfiles: 'allow' }, (err?: NodeJS.ErrnoException) => {
      if (!err || err.code === 'ECONNABORTED' || res.headersSent) resolve();
      else reject(new HttpError(500, `cannot read CONCUR_PAGE_FILE: ${err.code ?? err.message}`));
    });
  });
}
