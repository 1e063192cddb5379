defmodule Concur.ProtocolTest do
  use ExUnit.Case
  import Concur.Test.Client
  alias Concur.Test.Client.Response

  test "many requests on one keep-alive connection" do
    conn =
      Enum.reduce(1..30, connect(), fn i, conn ->
        conn = send_bytes(conn, request("POST", "/user/set/ka", ~s({"i":#{i}})))
        {r, conn} = read_response(conn)
        assert r.status == 200
        {r, conn} = conn |> send_bytes(request("GET", "/user/get/ka")) |> read_response()
        assert r.body == ~s({"i":#{i}})
        conn
      end)

    refute closed_within?(conn, 300)
  end

  test "Connection: close is answered, then closed" do
    {r, conn} = connect() |> send_bytes(request("GET", "/", "", [{"Connection", "close"}])) |> read_response()
    assert r.status == 200
    assert closed_within?(conn, 1000)
  end

  test "HTTP/1.0 is answered with a Content-Length, then closed unless Keep-Alive" do
    {r, conn} = connect() |> send_bytes("GET / HTTP/1.0\r\n\r\n") |> read_response()
    assert {r.version, r.status, r.body} == {{1, 0}, 200, "Hello, World!"}
    assert Response.header(r, "content-length") == "13"
    assert closed_within?(conn, 1000)

    {r, conn} = connect() |> send_bytes("GET /json HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n") |> read_response()
    assert Response.header(r, "connection") == "keep-alive"
    {r, _} = conn |> send_bytes("GET / HTTP/1.0\r\n\r\n") |> read_response()
    assert r.body == "Hello, World!"
  end

  test "chunked request bodies, with extensions and trailers" do
    body = "6;ext=1\r\n{\"a\":1\r\n8\r\n,\"b\":[2]\r\n1\r\n}\r\n0\r\nX-Trailer: yes\r\n\r\n"
    head = "POST /user/set/chunked HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
    {r, conn} = connect() |> send_bytes(head <> body) |> read_response()
    assert r.status == 200
    {r, _} = conn |> send_bytes(request("GET", "/user/get/chunked")) |> read_response()
    assert :jiffy.decode(r.body, [:return_maps]) == %{"a" => 1, "b" => [2]}
  end

  test "Expect: 100-continue gets 100 Continue, then the answer" do
    body = ~s({"expect":"continue"})
    head = "POST /user/set/expect HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: #{byte_size(body)}\r\n\r\n"
    {r, conn} = connect() |> send_bytes(head) |> read_response()
    assert r.status == 100
    {r, _} = conn |> send_bytes(body) |> read_response()
    assert r.status == 200
  end

  test "pipelined requests are answered in order" do
    batch =
      request("GET", "/") <>
        request("POST", "/user/set/pipe", ~s({"p":true})) <> request("GET", "/user/get/pipe") <> request("GET", "/nope")

    conn = connect() |> send_bytes(batch)
    {a, conn} = read_response(conn)
    {b, conn} = read_response(conn)
    {c, conn} = read_response(conn)
    {d, _} = read_response(conn)
    assert {a.body, b.body, c.body, d.status} == {"Hello, World!", "OK", ~s({"p":true}), 404}
  end

  test "a request written one byte at a time" do
    conn = connect()
    for <<byte <- request("POST", "/user/set/slow", ~s({"slow":1}))>>, do: send_bytes(conn, <<byte>>)
    {r, _} = read_response(conn)
    assert r.status == 200
  end

  test "header names in any case; HEAD has no body; absolute-form targets" do
    raw = "POST /user/set/case HTTP/1.1\r\nhOsT: x\r\ncOnTeNt-LeNgTh: 2\r\n\r\n{}"
    {r, _} = connect() |> send_bytes(raw) |> read_response()
    assert r.status == 200

    {r, conn} = connect() |> send_bytes(request("HEAD", "/json")) |> read_response(true)
    assert {r.status, Response.header(r, "content-length")} == {200, "27"}
    {r, _} = conn |> send_bytes(request("GET", "/")) |> read_response()
    assert r.body == "Hello, World!"

    assert get("http://127.0.0.1:#{port()}/json").status == 200
  end

  test "every response has Content-Length, Content-Type, Date and Server" do
    for r <- [get("/"), get("/nope"), call("DELETE", "/"), get("/user/get/%41"), post("/user/set/x", "[]")] do
      for name <- ["content-length", "content-type", "date", "server"] do
        assert Response.header(r, name), "#{r.status} lacks #{name}"
      end
    end
  end
end
