defmodule Concur.BadInputTest do
  use ExUnit.Case
  import Concur.Test.Client
  alias Concur.Test.Client.Response

  @mib 1_048_576

  # An error is text/plain with a one-line reason (SPEC §3).
  defp error?(%Response{} = r, status) do
    r.status == status and Response.header(r, "content-type") == "text/plain" and
      String.trim(r.body) != "" and not String.contains?(String.trim(r.body), "\n")
  end

  defp still_serving, do: assert(get("/").status == 200)

  defp object_of(size), do: ~s({"pad":") <> String.duplicate("a", size - 10) <> ~s("})

  test "unknown paths are 404" do
    for {method, path} <- [{"GET", "/nope"}, {"GET", "/JSON"}, {"GET", "/json/extra"}, {"GET", "/user/get"}, {"POST", "/password/reset/x"}] do
      assert error?(call(method, path), 404), "#{method} #{path}"
    end
  end

  test "a known path with another method is 405 with Allow" do
    for {method, path, allow} <- [
          {"POST", "/", "GET, HEAD"},
          {"DELETE", "/json", "GET, HEAD"},
          {"GET", "/password/set/alice", "POST"},
          {"PATCH", "/user/get/bob", "GET, HEAD"}
        ] do
      r = call(method, path, if(method == "GET", do: "", else: "{}"))
      assert error?(r, 405), "#{method} #{path}"
      assert Response.header(r, "allow") == allow
    end
  end

  test "a user outside [A-Za-z0-9_.-]{1,64} is 400 on every route, checked undecoded" do
    for name <- ["", "a/b", "%41", "a%20b", "%C3%BC", "a:b", "a+b", String.duplicate("x", 65)],
        {method, prefix} <- [{"POST", "/password/set/"}, {"POST", "/password/verify/"}, {"POST", "/user/set/"}, {"GET", "/user/get/"}] do
      body = if method == "POST", do: ~s({"password":"pw"}), else: ""
      assert error?(call(method, prefix <> name, body), 400), "#{method} #{prefix}#{name}"
    end

    assert get("/user/get/" <> String.duplicate("x", 64)).status == 404
  end

  test "a body of exactly 1 MiB is taken, one byte more is 413" do
    assert post("/user/set/big", object_of(@mib)).status == 200
    assert byte_size(get("/user/get/big").body) == @mib
    assert error?(post("/user/set/big", object_of(@mib + 1)), 413)
    assert error?(post("/password/set/big", object_of(@mib + 1)), 413)
  end

  test "the 413 comes from Content-Length alone, before the body is sent" do
    conn = connect() |> send_bytes("POST /user/set/big HTTP/1.1\r\nHost: x\r\nContent-Length: #{@mib + 1}\r\n\r\n")
    {r, conn} = read_response(conn)
    assert error?(r, 413)
    assert Response.header(r, "connection") == "close"
    assert closed_within?(conn, 1000)
  end

  test "a chunked body over 1 MiB is 413" do
    conn = connect() |> send_bytes("POST /user/set/big HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
    # 17 chunks of 64 KiB cross the limit; the server answers at the chunk that does.
    conn = Enum.reduce(1..17, conn, fn _, c -> send_bytes(c, "10000\r\n" <> String.duplicate("a", 65536) <> "\r\n") end)
    {r, _conn} = read_response(conn)
    assert error?(r, 413)
    still_serving()
  end

  test "bodies that are not JSON are 400" do
    for body <- ["not json", ~s({"password":), "{'password':'x'}", ~s({"password":"x"} trailing), ""],
        route <- ["password/set", "password/verify", "user/set"] do
      assert error?(post("/#{route}/badjson", body), 400), "#{route} with #{inspect(body)}"
    end
  end

  test "a password that is not a string of at most 72 bytes is 400" do
    for body <- ["{}", ~s({"password":5}), ~s({"password":null}), ~s(["password"]), ~s({"password":"#{String.duplicate("é", 36)}x"})],
        route <- ["password/set", "password/verify"] do
      assert error?(post("/#{route}/badpw", body), 400), "#{route} with #{body}"
    end

    max = ~s({"password":"#{String.duplicate("é", 36)}"})
    assert post("/password/set/badpw", max).status == 200
    assert post("/password/verify/badpw", max).status == 200
  end

  test "user/set with JSON that is not an object is 400" do
    for body <- ["[1,2]", ~s("str"), "42", "null", "true"] do
      assert error?(post("/user/set/not_object", body), 400), body
    end

    assert get("/user/get/not_object").status == 404
  end

  test "malformed requests are 400 and the server keeps serving" do
    for bytes <- [
          "GARBAGE\r\n\r\n",
          "GET / EXTRA JUNK HTTP/1.1\r\nHost: x\r\n\r\n",
          "GET / HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n",
          "POST /user/set/chunky HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n",
          "POST /user/set/x HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
          "GET / HTTP/1.1\r\n\r\n",
          "GET /\r\n\r\n"
        ] do
      {r, conn} = connect() |> send_bytes(bytes) |> read_response()
      assert error?(r, 400), inspect(bytes)
      assert Response.header(r, "server") && Response.header(r, "date")
      assert closed_within?(conn, 1000)
      still_serving()
    end
  end
end
