defmodule Concur.RoutesTest do
  # Not async: /page counts requests for the whole server.
  use ExUnit.Case
  import Concur.Test.Client
  alias Concur.Test.Client.Response

  defp ok?(%Response{status: 200, body: "OK"} = r), do: Response.header(r, "content-type") == "text/plain"
  defp ok?(_), do: false

  test "GET / and GET /json" do
    r = get("/")
    assert {r.status, r.body, Response.header(r, "content-type")} == {200, "Hello, World!", "text/plain"}
    r = get("/json?pretty=1")
    assert {r.status, Response.header(r, "content-type")} == {200, "application/json"}
    assert :jiffy.decode(r.body, [:return_maps]) == %{"message" => "Hello, World!"}
  end

  test "GET /page serves the file, every Nth request after the delay" do
    page = File.read!(Concur.Config.get().page_file)
    every = Concur.Config.get().page_delay_every

    timed =
      for _ <- 1..(2 * every) do
        {micros, r} = :timer.tc(fn -> get("/page") end)
        assert {r.status, r.body} == {200, page}
        assert Response.header(r, "content-type") == "text/html; charset=utf-8"
        micros >= 1000 * Concur.Config.get().page_delay_ms * 0.9
      end

    delayed = for {true, i} <- Enum.with_index(timed, 1), do: i
    assert length(delayed) == 2
    assert [a, b] = delayed
    assert b - a == every
  end

  test "a delayed /page does not hold up other requests" do
    every = Concur.Config.get().page_delay_every
    tasks = for _ <- 1..every, do: Task.async(fn -> :timer.tc(fn -> get("/page") end) end)
    times = Enum.map(tasks, &Task.await/1)
    slow = Enum.count(times, fn {micros, _} -> micros >= 1000 * Concur.Config.get().page_delay_ms * 0.9 end)
    assert slow <= 1
  end

  test "password set, verify, wrong, unknown, replaced" do
    body = ~s({"password":"s3cret pässword"})
    assert ok?(post("/password/set/alice", body))
    assert ok?(post("/password/verify/alice", body))
    assert post("/password/verify/alice", ~s({"password":"s3cret password"})).status == 403
    assert post("/password/verify/nobody_here", body).status == 404
    assert ok?(post("/password/set/alice", ~s({"password":""})))
    assert post("/password/verify/alice", body).status == 403
    assert ok?(post("/password/verify/alice", ~s({"password":""})))
  end

  test "the stores are separate" do
    assert ok?(post("/user/set/info_only", ~s({"password":"x"})))
    assert post("/password/verify/info_only", ~s({"password":"x"})).status == 404
  end

  test "user set then get returns the same JSON value" do
    value = %{
      "name" => "Ada",
      "tags" => ["x", "y"],
      "nested" => %{"ok" => true, "none" => :null, "list" => [1, [2, 3], %{"k" => "v"}]},
      "unicode" => "héllo ✓ 🚀 \"quoted\" \\ slash",
      "ratio" => 2.5,
      "big" => 9_007_199_254_740_993_123
    }

    assert ok?(post("/user/set/A-z_0.9", :jiffy.encode(value)))
    r = get("/user/get/A-z_0.9")
    assert {r.status, Response.header(r, "content-type")} == {200, "application/json"}
    assert :jiffy.decode(r.body, [:return_maps]) == value

    assert ok?(post("/user/set/A-z_0.9", " { } "))
    assert get("/user/get/A-z_0.9").body == "{}"
    assert get("/user/get/never_set").status == 404
  end

  test "GET /longPoll answers OK after CONCUR_LONGPOLL_MS, many at once" do
    wait = Concur.Config.get().longpoll_ms
    {micros, responses} = :timer.tc(fn ->
      1..100 |> Enum.map(fn _ -> Task.async(fn -> get("/longPoll") end) end) |> Enum.map(&Task.await/1)
    end)

    assert Enum.all?(responses, &ok?/1)
    assert micros >= wait * 1000
    assert micros < (wait + 1000) * 1000
  end

  # SPEC §9: unknown paths without CONCUR_FAULTS=1; with it, a spin takes its
  # time and a bad ms counts as 0, and a raise is the connection's 500.
  test "the fault routes exist only with CONCUR_FAULTS=1" do
    for path <- ~w(/fault/panic /fault/spin?ms=1), do: assert(get(path).status == 404)
    config = Concur.Config.get()
    Concur.Config.put(%{config | faults: true})

    try do
      {micros, r} = :timer.tc(fn -> get("/fault/spin?ms=100") end)
      assert ok?(r) and micros >= 100_000
      for q <- ["", "?ms=", "?ms=x", "?ms=-5"], do: assert(ok?(get("/fault/spin" <> q)))
      assert get("/fault/panic/x").status == 404
      ExUnit.CaptureLog.capture_log(fn -> assert get("/fault/panic").status == 500 end)
      assert get("/").status == 200
    after
      Concur.Config.put(config)
    end
  end
end
