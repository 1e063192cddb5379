// SPEC §4 through raw sockets: keep-alive, Connection: close, HTTP/1.0,
// chunked bodies, Expect: 100-continue, pipelining, split requests.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parseResponses, raw, request, startServer } from "./helpers.ts";

describe("protocol", () => {
  let server: ReturnType<typeof startServer>;
  beforeAll(() => void (server = startServer()));
  afterAll(() => server.stop());

  test("keep-alive: many requests on one connection, and it stays open", async () => {
    const batch = Array.from({ length: 20 }, () => request("GET", "/")).join("");
    const { text, closed } = await raw(server.port, batch, 300);
    expect(parseResponses(text).map((r) => r.body)).toEqual(Array(20).fill("Hello, World!"));
    expect(closed).toBe(false);
  });

  test("Connection: close and HTTP/1.0 get their answer, then the connection closes", async () => {
    for (const bytes of [request("GET", "/", "", { Connection: "close" }), "GET / HTTP/1.0\r\n\r\n"]) {
      const { text, closed } = await raw(server.port, bytes);
      const [res] = parseResponses(text);
      expect(res?.body).toBe("Hello, World!");
      expect(res?.headers["transfer-encoding"]).toBeUndefined();
      expect(closed).toBe(true);
    }
  });

  test("pipelined requests are answered in order, each seeing the ones before it", async () => {
    const batch = [request("GET", "/"), request("POST", "/user/set/pipe", '{"p":1}'), request("GET", "/user/get/pipe"), request("GET", "/nope")];
    const responses = parseResponses((await raw(server.port, batch.join(""), 300)).text);
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 404]);
    expect(responses[2]?.body).toBe('{"p":1}');
  });

  test("a chunked body, a body split into small segments, header names in any case", async () => {
    const chunked = `POST /user/set/ch HTTP/1.1\r\nhOsT: x\r\ntRaNsFeR-eNcOdInG: chunked\r\n\r\n4\r\n{"a"\r\n3\r\n:1}\r\n0\r\n\r\n`;
    const pieces = chunked.match(/[\s\S]{1,3}/g)!;
    expect(parseResponses((await raw(server.port, pieces)).text)[0]?.body).toBe("OK");
    expect(await (await fetch(`${server.url}/user/get/ch`)).json()).toEqual({ a: 1 });
  });

  test("Expect: 100-continue gets 100 Continue, then the answer", async () => {
    const head = `POST /user/set/cont HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 7\r\n\r\n`;
    const { text } = await raw(server.port, [head, '{"c":1}']);
    expect(text).toStartWith("HTTP/1.1 100 Continue\r\n\r\n");
    expect(parseResponses(text.slice(text.indexOf("\r\n\r\n") + 4))[0]?.body).toBe("OK");
  });
});
