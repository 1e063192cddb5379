// How every response leaves the server: the headers SPEC §4 requires (Bun
// adds Date and Content-Length itself, except Date on an answer to HEAD), and
// the error type handlers throw to answer 4xx/5xx.

export const SERVER = "concur-bun";
export const TEXT = "text/plain; charset=utf-8";
export const JSON_TYPE = "application/json";

/** Thrown by a handler to answer `status` with a one-line text/plain reason. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    reason: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(reason.replace(/[\r\n]+/g, " "));
  }
}

export function send(req: Request, status: number, type: string, body: string | Uint8Array, headers: Record<string, string> = {}): Response {
  const all: Record<string, string> = { Server: SERVER, "Content-Type": type, ...headers };
  // Bun writes Date on every answer but the one to HEAD (checked by hand with Bun 1.4.5).
  if (req.method === "HEAD") all.Date = new Date().toUTCString();
  return new Response(body, { status, headers: all });
}

export const text = (req: Request, status: number, body: string, headers?: Record<string, string>) =>
  send(req, status, TEXT, body, headers);

export const errorResponse = (req: Request, err: HttpError) => text(req, err.status, err.message, err.headers);
