// Request bodies: read while streaming up to the 1 MiB limit of SPEC §3.5,
// then decoded as JSON (§3.6) with strict UTF-8.

import { HttpError } from "./respond.ts";

export const BODY_LIMIT = 1024 * 1024;

// The rest of an oversized body is not read, so the connection cannot carry
// another request: `Connection: close` makes Bun close it after the answer.
const tooLarge = () => new HttpError(413, `request body is over the limit of ${BODY_LIMIT} bytes`, { Connection: "close" });

export async function readBody(req: Request): Promise<Uint8Array> {
  if (Number(req.headers.get("content-length")) > BODY_LIMIT) throw tooLarge();
  if (!req.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    // A chunked body shows its size only while it arrives: stop reading at the limit.
    for await (const chunk of req.body) {
      size += chunk.byteLength;
      if (size > BODY_LIMIT) throw tooLarge();
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof HttpError) throw err;
    throw new HttpError(400, "the request body was cut off");
  }
  return Buffer.concat(chunks, size);
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

export function parseJson(body: Uint8Array): unknown {
  let source: string;
  try {
    source = utf8.decode(body);
  } catch {
    throw new HttpError(400, "request body is not valid UTF-8");
  }
  try {
    return JSON.parse(source);
  } catch {
    throw new HttpError(400, "request body is not valid JSON");
  }
}

export type JsonObject = { [key: string]: unknown };

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);
