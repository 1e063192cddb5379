// Request bodies: read while streaming up to the 1 MiB limit of SPEC §3.5,
// then decoded as JSON (§3.6). Answering 100 Continue is deferred to here, so
// a request refused on its path, method or Content-Length never gets one.

import { HttpError } from './respond.js';

export const BODY_LIMIT = 1024 * 1024;

/** Responses whose request sent `Expect: 100-continue` and still waits for it. */
export const awaitingContinue = new WeakSet();

// After a 413 the rest of the body is not read, so the connection cannot carry
// another request: Node closes it once the answer is written.
const tooLarge = () =>
  new HttpError(413, `request body is over the limit of ${BODY_LIMIT} bytes`, { Connection: 'close' });

export function readBody(req, res) {
  if (Number(req.headers['content-length']) > BODY_LIMIT) return Promise.reject(tooLarge());
  if (awaitingContinue.delete(res)) res.writeContinue();
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    const onData = (chunk) => {
      size += chunk.length;
      if (size > BODY_LIMIT) {
        // Chunked bodies show their size only while arriving: stop reading here.
        req.pause();
        req.off('data', onData);
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks, size)));
    // The connection broke (or its chunk framing did, which Node answers itself).
    const cutOff = () => reject(new HttpError(400, 'the request body was cut off'));
    req.once('error', cutOff);
    req.once('close', cutOff);
  });
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function parseJson(body) {
  let text;
  try {
    text = utf8.decode(body);
  } catch {
    throw new HttpError(400, 'request body is not valid UTF-8');
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, 'request body is not valid JSON');
  }
}

export const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);
