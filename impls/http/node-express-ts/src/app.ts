// One HTTP server process: the Express application (middleware, the routers,
// the view engine, the 404 and the error handler) and how it listens
// (backlog, keep-alive).

import express, { type Express, type RequestHandler } from 'express';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Config } from './config.js';
import type { Database } from './database.js';
import { errorHandler, notFound } from './errors.js';
import { createRouter } from './routes.js';
import type { Store } from './store.js';
import { worldRouter } from './worlds.js';

export const SERVER = 'concur-node-express-ts';

// Node closes idle keep-alive connections after 5 s; a benchmark whose
// connections pause between phases (or an open-loop run at a low rate) would
// see them cut. 75 s is nginx's default.
const KEEP_ALIVE_TIMEOUT_MS = 75_000;

// Compiled to dist/src/app.js: the templates are in the entry's views/.
const VIEWS = fileURLToPath(new URL('../../views', import.meta.url));

export function createApp(config: Config, store: Store, db: Database): Express {
  const app = express();
  app.disable('x-powered-by');
  // Express's own guide to template engines: with NODE_ENV=production its
  // 'view cache' keeps each compiled template, else it compiles per render.
  app.set('views', VIEWS);
  app.set('view engine', 'pug');
  app.use(oneRequestAtATime);
  app.use(serverHeader);
  app.use(createRouter(config, store));
  app.use(worldRouter(config, db));
  app.use(notFound);
  app.use(errorHandler);
  return app;
}

/** Listens on 127.0.0.1 with SPEC §1's backlog; resolves once the socket is open. */
export function listen(app: Express, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    // Node's default backlog is 511. In a cluster the primary opens the socket
    // with the backlog of the workers' listen().
    const server = app.listen(port, '127.0.0.1', 4096, (err?: Error) => (err ? reject(err) : resolve(server)));
    server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  });
}

const serverHeader: RequestHandler = (req, res, next) => {
  res.setHeader('Server', SERVER);
  next();
};

/**
 * Node parses pipelined requests as soon as they arrive and only keeps their
 * responses in order, so a GET pipelined behind a POST of the same user would
 * read the store before the POST wrote it. RFC 9112 §9.3.2 wants each request
 * to see the ones before it: a request waits for the previous response on its
 * connection to finish.
 */
const previousOnSocket = new WeakMap<Socket, Promise<void>>();
const oneRequestAtATime: RequestHandler = (req, res, next) => {
  const previous = previousOnSocket.get(req.socket);
  previousOnSocket.set(req.socket, new Promise((resolve) => res.once('close', resolve)));
  if (previous) previous.then(() => next());
  else next();
};
