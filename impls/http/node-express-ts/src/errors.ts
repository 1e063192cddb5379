// How every error becomes a response: handlers and middleware throw an
// HttpError (or hand Express an error: body-parser's 413, a bad escape in a
// route parameter), and one error-handling middleware answers each with its
// status and a one-line text/plain reason. The 404 for unmatched paths and the
// 405 for known paths with another method are thrown here too, so Express's
// default HTML pages never reach a client.

import type { ErrorRequestHandler, RequestHandler } from 'express';

/** Thrown to answer `status` with a one-line text/plain reason and any extra headers. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    reason: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(reason);
  }
}

/** The last middleware: no route matched the path (SPEC §3.2). */
export const notFound: RequestHandler = (req) => {
  throw new HttpError(404, `no route for ${req.path.slice(0, 200)}`);
};

/** A route's `.all()` after its real methods: the path is known, the method is not (SPEC §3.3). */
export function methodNotAllowed(...methods: string[]): RequestHandler {
  const allow = methods.flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m])).join(', ');
  return (req) => {
    throw new HttpError(405, `method ${req.method} is not allowed here; use ${allow}`, { Allow: allow });
  };
}

/** Errors Express's own middleware raise (http-errors, with `status` and `type`). */
interface ExpressError extends Error {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  type?: string;
}

export const errorHandler: ErrorRequestHandler = (err: ExpressError, req, res, next) => {
  // A client that went away while we hashed or waited gets nothing; a response
  // already under way is Express's to cut off.
  if (res.headersSent) return next(err);
  if (req.socket.destroyed) return;
  const { status, reason, headers } = describe(err);
  if (status >= 500) console.error(err instanceof HttpError ? `node-express-ts: ${err.message}` : err);
  res.status(status).set(headers).type('text/plain').send(reason.replace(/\s*[\r\n]+\s*/g, ' '));
};

function describe(err: ExpressError): { status: number; reason: string; headers: Record<string, string> } {
  if (err instanceof HttpError) return { status: err.status, reason: err.message, headers: err.headers };
  const status = err.status ?? err.statusCode ?? 500;
  switch (err.type) {
    case 'entity.too.large':
      return { status, reason: `request body is over the limit of ${(err as { limit?: number }).limit} bytes`, headers: {} };
    case 'request.aborted':
    case 'request.size.invalid':
      return { status, reason: 'the request body was cut off', headers: {} };
  }
  if (status >= 400 && status < 500 && err.expose !== false) return { status, reason: err.message, headers: {} };
  return { status: 500, reason: 'internal server error', headers: {} };
}
