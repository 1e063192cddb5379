// How every response leaves the server: one helper that sets the headers
// SPEC §4 requires (Node adds Date; Content-Length is always explicit, so no
// response is chunked), and the error type handlers throw to answer 4xx/5xx.

import { STATUS_CODES } from 'node:http';

export const SERVER = 'concur-node-http';
export const TEXT = 'text/plain; charset=utf-8';
export const JSON_TYPE = 'application/json';

/** Thrown by a handler to answer `status` with a one-line text/plain reason. */
export class HttpError extends Error {
  constructor(status, reason, headers = {}) {
    super(reason);
    this.status = status;
    this.headers = headers;
  }
}

export function send(res, status, type, body, headers = {}) {
  // A client that went away while we hashed or waited gets nothing.
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, {
    Server: SERVER,
    'Content-Type': type,
    'Content-Length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

export const sendText = (res, status, text, headers) => send(res, status, TEXT, text, headers);

/**
 * The raw answer to bytes that are not HTTP (the parser failed, so there is
 * no ServerResponse to use), with the same headers as every other response.
 */
export function rawError(status, reason) {
  const body = reason;
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    `Server: ${SERVER}`,
    `Date: ${new Date().toUTCString()}`,
    `Content-Type: ${TEXT}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}
