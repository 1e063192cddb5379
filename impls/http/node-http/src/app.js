// One HTTP server process: Node's `http` module with the routes wired in,
// answering every error with the headers of SPEC §4, including the errors
// Node would otherwise answer itself (malformed requests, a missing Host).

import http from 'node:http';
import { awaitingContinue } from './body.js';
import { HttpError, rawError, sendText } from './respond.js';
import { createRoutes } from './routes.js';

// Node closes idle keep-alive connections after 5 s; a benchmark whose
// connections pause between phases (or an open-loop run at a low rate) would
// see them cut. 75 s is nginx's default. headersTimeout only runs while a
// request's headers arrive, so it need not be larger.
const KEEP_ALIVE_TIMEOUT_MS = 75_000;

export function createServer(config, store, db) {
  const route = createRoutes(config, store, db);

  async function handle(req, res) {
    try {
      if (req.httpVersion === '1.1' && req.headers.host === undefined) {
        throw new HttpError(400, 'an HTTP/1.1 request needs a Host header', { Connection: 'close' });
      }
      const { handler, user } = route(req);
      await handler(req, res, user);
    } catch (err) {
      if (err instanceof HttpError) {
        sendText(res, err.status, err.message, err.headers);
      } else {
        console.error(err);
        sendText(res, 500, 'internal server error');
      }
    }
  }

  // Node emits 'request' for each pipelined request as soon as it is parsed
  // and only keeps the responses in order. A GET must not run before the POST
  // ahead of it on the same connection has stored its value (RFC 9112 §9.3.2),
  // so the requests of one connection are handled one after the other.
  const lastOnSocket = new WeakMap();
  function serve(req, res) {
    const previous = lastOnSocket.get(req.socket);
    lastOnSocket.set(req.socket, previous ? previous.then(() => handle(req, res)) : handle(req, res));
  }

  // Node's own 400 for a missing Host has no Server nor Content-Type: check it in handle().
  const server = http.createServer({ requireHostHeader: false }, serve);
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;

  // With this listener Node leaves `Expect: 100-continue` to us: readBody()
  // answers 100 when it starts reading, and a request refused before that
  // gets its final status without one (Node then closes the connection).
  server.on('checkContinue', (req, res) => {
    awaitingContinue.add(res);
    serve(req, res);
  });
  server.on('checkExpectation', (req, res) => {
    sendText(res, 417, `unsupported expectation: ${req.headers.expect}`, { Connection: 'close' });
  });
  server.on('clientError', answerClientError);
  return server;
}

// Mirrors Node's default handler, with our headers and a reason in the body.
function answerClientError(err, socket) {
  // A response already on the wire must not be followed by a second one
  // (Node's default handler checks the same field).
  const responding = socket._httpMessage?.headersSent;
  if (err.code === 'ECONNRESET' || !socket.writable || responding) {
    socket.destroy();
    return;
  }
  const [status, reason] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'request headers are too large']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'the request took too long to arrive']
        : [400, `malformed HTTP request: ${err.reason ?? err.code}`];
  socket.end(rawError(status, reason.replace(/[\r\n]+/g, ' ')), () => socket.destroy());
}
