// Request bodies for the POST routes: at most 1 MiB (SPEC §3.5), then JSON
// (§3.6). express.raw collects the bytes whatever the Content-Type (the
// contract does not require one); the JSON is decoded here rather than by
// express.json, which would turn an empty body into {} and let the UTF-8
// decoder replace bad bytes with U+FFFD instead of refusing them.

import express, { type RequestHandler } from 'express';
import { HttpError } from './errors.js';
import type { JsonObject, JsonValue } from './store.js';

export const BODY_LIMIT = 1024 * 1024;

/**
 * A Content-Length over the limit is answered at once, and the connection is
 * closed instead of read to its end. (body-parser would read off the whole
 * body first, to keep the connection; it still does that for a chunked body
 * that passes the limit.)
 */
const refuseDeclaredOversize: RequestHandler = (req, res, next) => {
  if (Number(req.headers['content-length']) > BODY_LIMIT) {
    throw new HttpError(413, `request body is over the limit of ${BODY_LIMIT} bytes`, { Connection: 'close' });
  }
  next();
};

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Replaces req.body's bytes with the JSON value they hold. */
const parseJson: RequestHandler = (req, res, next) => {
  // express.raw leaves req.body undefined for a request without a body.
  const bytes: Buffer = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new HttpError(400, 'request body is not valid UTF-8');
  }
  try {
    req.body = JSON.parse(text) as JsonValue;
  } catch {
    throw new HttpError(400, 'request body is not valid JSON');
  }
  next();
};

/** The middleware of every route that takes a JSON body; afterwards req.body is a JsonValue. */
export const jsonBody: RequestHandler[] = [
  refuseDeclaredOversize,
  express.raw({ type: () => true, limit: BODY_LIMIT }),
  parseJson,
];

export const isObject = (value: JsonValue): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
