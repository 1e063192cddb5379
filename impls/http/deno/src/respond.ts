// How every response leaves the server: the headers SPEC §4 requires (Deno
// adds Date and Content-Length for a string or byte body, so nothing is
// chunked), and the error type handlers throw to answer 4xx/5xx.

export const SERVER = 'concur-deno';
export const TEXT = 'text/plain; charset=utf-8';
export const JSON_TYPE = 'application/json';

/** Thrown by a handler to answer `status` with a one-line text/plain reason. */
export class HttpError extends Error {
  constructor(readonly status: number, reason: string, readonly headers: Record<string, string> = {}) {
    super(reason);
  }
}

export function respond(
  status: number,
  type: string,
  body: BodyInit,
  headers: Record<string, string> = {},
): Response {
  return new Response(body, { status, headers: { server: SERVER, 'content-type': type, ...headers } });
}

export const text = (status: number, body: string, headers?: Record<string, string>) =>
  respond(status, TEXT, body, headers);

export const errorResponse = (err: HttpError) => text(err.status, err.message.replace(/[\r\n]+/g, ' '), err.headers);
