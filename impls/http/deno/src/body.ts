// Request bodies: read while streaming up to the 1 MiB limit of SPEC §3.5,
// then decoded as JSON (§3.6). Deno's HTTP stack answers `Expect:
// 100-continue` only when the body is first read, so a request refused on its
// path, method or Content-Length never gets a 100.

import { HttpError } from './respond.ts';

export const BODY_LIMIT = 1024 * 1024;

// The rest of a refused body is never read, so the connection cannot carry
// another request: Deno.serve sees the unread body and adds `connection: close` itself.
const tooLarge = () => new HttpError(413, `request body is over the limit of ${BODY_LIMIT} bytes`);

export async function readBody(req: Request): Promise<Uint8Array> {
  if (Number(req.headers.get('content-length')) > BODY_LIMIT) throw tooLarge();
  if (req.body === null) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of req.body) {
      size += chunk.length;
      // Chunked bodies show their size only while arriving: stop reading here
      // (leaving the loop cancels the stream).
      if (size > BODY_LIMIT) throw tooLarge();
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof HttpError) throw err;
    throw new HttpError(400, 'the request body was cut off');
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.length;
  }
  return body;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function parseJson(body: Uint8Array): unknown {
  let source: string;
  try {
    source = utf8.decode(body);
  } catch {
    throw new HttpError(400, 'request body is not valid UTF-8');
  }
  try {
    return JSON.parse(source);
  } catch {
    throw new HttpError(400, 'request body is not valid JSON');
  }
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
