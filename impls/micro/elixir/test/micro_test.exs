defmodule MicroTest do
  # End-to-end tests run the manifest's start command exactly as `concur
  # micro` does (sh -c in this folder), so the wrapper, the halt codes, the
  # watchdog and stdout are tested as concur sees them.
  use ExUnit.Case, async: true

  @small %{
    "pingping" => "--size 100 --reps 500",
    "pingpong" => "--reps 500",
    "spawn" => "--procs 300",
    "maxprocs" => "--procs 300",
    "pairs" => "--pairs 3 --seconds 0.1",
    "idle" => "--procs 300 --sleep-ms 20",
    "supervised" => "--pairs 3 --seconds 0.2 --kill-rate 0"
  }

  @params %{
    "pingping" => ~w(cores reps size),
    "pingpong" => ~w(cores reps),
    "spawn" => ~w(cores procs),
    "maxprocs" => ~w(cores procs),
    "pairs" => ~w(cores pairs seconds),
    "idle" => ~w(cores procs sleep_ms),
    "supervised" => ~w(cores kill_rate pairs seconds)
  }

  @extra_fields %{
    "pingping" => [],
    "pingpong" => [],
    "spawn" => ~w(procs ns_per_proc),
    "maxprocs" => ~w(procs ns_per_proc),
    "pairs" => ~w(round_trips messages messages_per_s min_pair_round_trips),
    "idle" => ~w(tasks sleep_ns),
    "supervised" =>
      ~w(round_trips messages messages_per_s kills lost restart_p50_ns restart_p99_ns late_restarts)
  }

  for {bench, args} <- @small do
    test "#{bench} prints one valid JSON line" do
      bench = unquote(bench)
      {0, stdout, stderr} = run("#{bench} --cores 1 #{unquote(args)}")
      assert stderr == ""
      assert [line, ""] = String.split(stdout, "\n")
      result = JsonLine.decode(line)

      assert %{"schema" => 1, "runtime" => "elixir", "bench" => ^bench} = result
      assert %{"checks" => %{"received" => same, "expected" => same}} = result
      assert same > 0 and result["ops"] > 0 and result["elapsed_ns"] > 0
      assert is_number(result["ns_per_op"])
      assert result["params"]["cores"] == 1
      assert Enum.sort(Map.keys(result["params"])) == @params[bench]
      for field <- @extra_fields[bench], do: assert(Map.has_key?(result, field), field)
    end
  end

  # spec §3.3: one lost message makes every benchmark exit 1 with an empty
  # stdout, through its checks (pingping) or its watchdog (the others). The
  # seven runs go in parallel, since six of them wait for the watchdog.
  # supervised runs with no killer here: a kill of pair 0 would end its wait.
  @tag timeout: 120_000
  test "--drop-one makes every benchmark exit 1 with nothing on stdout" do
    @small
    |> Task.async_stream(
      fn {bench, args} -> {bench, run("#{bench} --cores 1 #{args} --drop-one --timeout 5")} end,
      timeout: 60_000,
      max_concurrency: map_size(@small)
    )
    |> Enum.each(fn {:ok, {bench, {code, stdout, stderr}}} ->
      assert {code, stdout} == {1, ""}, "#{bench}: exit #{code}, stdout #{inspect(stdout)}"
      assert stderr =~ ~r/\Amicro: .+\n\z/, "#{bench}: stderr #{inspect(stderr)}"
    end)
  end

  test "pingping's lost message is caught by the sequence check" do
    assert {1, "", "micro: pingping: process B expected message 1, got 2\n"} ==
             run("pingping --reps 10 --drop-one --timeout 5")
  end

  for {args, hint} <- [
        {"", "benchmark"},
        {"pingpang", "'pingpang'"},
        {"pingping --reps 10k", "--reps: '10k' is not an integer >= 1"},
        {"pingping --reps 0", "--reps: '0'"},
        {"pingping --size", "--size: missing value"},
        {"spawn --procs 5 --procs 6", "given twice"},
        {"pairs --seconds -1", "--seconds"},
        {"idle --sleep-ms 1.5", "--sleep-ms"},
        {"spawn --bogus 1", "unknown flag '--bogus'"},
        {"spawn --drop-one=yes", "--drop-one takes no value"},
        {"supervised --kill-rate 1001", "--kill-rate: '1001' is not a number >= 0 and <= 1000"},
        {"supervised --kill-rate -1", "--kill-rate: '-1'"},
        {"supervised --kill-rate 5%", "(e.g. --kill-rate 5)"},
        {"pairs --kill-rate", "--kill-rate: missing value"}
      ] do
    test "bad arguments exit 2: '#{args}'" do
      {code, stdout, stderr} = run(unquote(args))
      assert {code, stdout} == {2, ""}
      assert stderr =~ ~r/\Amicro: [^\n]*\n\z/
      assert stderr =~ unquote(hint)
    end
  end

  test "a bad CONCUR_CORES exits 2" do
    {2, "", stderr} = run("spawn --procs 3", [{~c"CONCUR_CORES", ~c"two"}])
    assert stderr =~ "CONCUR_CORES: 'two'"
  end

  # spec §3.4: the process limit is a runtime failure, reported in one line
  # with exit 1 and nothing on stdout (the VM's own report goes to stderr).
  # ERL_FLAGS set outside comes after ./micro's +P, so it wins.
  test "the process limit exits 1 with nothing on stdout (the VM report once went there)" do
    env = [{~c"CONCUR_CORES", false}, {~c"ERL_FLAGS", ~c"+P 1024"}]
    {1, "", stderr} = run("maxprocs --procs 2000", env)
    assert stderr =~ ~r/micro: spawn failed .*system limit.* 1024/
  end

  test "--flag=value is accepted" do
    {0, stdout, _} = run("pingpong --reps=7 --cores=1")

    assert %{"ops" => 7, "params" => %{"cores" => 1, "reps" => 7}} =
             stdout |> String.trim_trailing() |> JsonLine.decode()
  end

  describe "Micro.Args.parse/3" do
    test "defaults, CONCUR_CORES, and --cores overriding it" do
      assert {:ok,
              %{
                bench: :pingping,
                size: 5120,
                reps: 10_000,
                cores: 4,
                timeout: 300,
                drop_one: false
              }} = Micro.Args.parse(["pingping"], "", 4)

      assert {:ok, %{cores: 3}} = Micro.Args.parse(["spawn"], "3", 4)
      assert {:ok, %{cores: 1}} = Micro.Args.parse(["spawn", "--cores", "1"], "3", 4)
    end

    test "decimal seconds and a zero sleep" do
      assert {:ok, %{seconds: 0.5, sleep_ms: 0}} =
               Micro.Args.parse(~w(pairs --seconds 0.5 --sleep-ms 0), "", 1)

      assert {:error, _} = Micro.Args.parse(~w(pairs --seconds 1e9), "", 1)
    end

    test "the kill rate: 0 by default, a decimal, ignored by other benchmarks" do
      assert {:ok, %{kill_rate: 0}} = Micro.Args.parse(~w(supervised), "", 1)
      assert {:ok, %{kill_rate: 2.5}} = Micro.Args.parse(~w(supervised --kill-rate 2.5), "", 1)
      assert {:ok, %{kill_rate: 1000}} = Micro.Args.parse(~w(supervised --kill-rate 1000), "", 1)
      assert {:ok, %{bench: :spawn}} = Micro.Args.parse(~w(spawn --kill-rate 5), "", 1)
    end
  end

  # spec §4.1: a payload of 64 bytes or less is copied into the receiver's
  # heap, a larger one is shared. Process.info(pid, :binary) lists the
  # off-heap binaries a process references, with their reference counts.
  test "payloads are copied up to 64 bytes and shared above" do
    assert shared_refcount(Micro.Latency.payload(7, 64)) == :none
    assert shared_refcount(Micro.Latency.payload(7, 65)) == 2
    assert shared_refcount(Micro.Latency.payload(7, 5120)) == 2
  end

  test "payloads fill every byte" do
    for size <- [1, 64, 65, 255, 256, 257, 5120, 5121, 51200], k <- [1, 250, 251, 502] do
      fill = rem(k, 251)
      assert Micro.Latency.payload(fill, size) == :binary.copy(<<fill>>, size)
    end
  end

  test "JSON numbers are plain decimals" do
    json = Micro.Result.to_json(%{a: 1, b: 0.5, c: "x", d: %{e: 123_456_789.125}})
    assert IO.iodata_to_binary(json) == ~s({"a":1,"b":0.5,"c":"x","d":{"e":123456789.125}})
  end

  defp shared_refcount(payload) do
    test = self()

    receiver =
      spawn(fn ->
        receive do
          {:bin, bin} ->
            {:binary, bins} = Process.info(self(), :binary)
            send(test, {:refs, bins})
            receive do: (:stop -> byte_size(bin))
        end
      end)

    send(receiver, {:bin, payload})
    refs = receive do: ({:refs, bins} -> bins)
    send(receiver, :stop)
    size = byte_size(payload)

    case refs do
      [] -> :none
      [{_id, ^size, refcount}] -> refcount
    end
  end

  # Runs `<start command> <args>` in this folder with sh -c, as concur micro
  # does, stderr captured through a file. CONCUR_CORES is unset unless a test
  # sets it.
  # Regression for "B expected GO, got Parcel" (spec §4.1): each side of
  # pingping starts on its own go, and A's message 1 may reach B before it.
  test "pingping sides start on their own go" do
    main = self()
    a = spawn_link(fn -> Micro.Latency.exchanger("A", main, 100, 50, false) end)
    b = spawn_link(fn -> Micro.Latency.exchanger("B", main, 100, 50, false) end)
    for pid <- [a, b], do: assert_receive({:ready, ^pid}, 5000)

    send(a, {:go, b})
    assert wait_for_messages(b, 1, 5000)
    refute_receive {:done, _, _}, 100
    assert Process.info(b, :message_queue_len) == {:message_queue_len, 1}

    send(b, {:go, a})
    for pid <- [a, b], do: assert_receive({:done, ^pid, 50}, 5000)
  end

  defp wait_for_messages(pid, n, ms) do
    case Process.info(pid, :message_queue_len) do
      {:message_queue_len, ^n} -> true
      _ when ms <= 0 -> false
      _ -> Process.sleep(1) && wait_for_messages(pid, n, ms - 1)
    end
  end

  # spec §4.5: a run in which no pair completed a round trip is a result.
  test "pairs with no round trip print zeros" do
    line =
      Micro.Pairs.result(2, 0.001, 1_500_000, [{0, 0}, {0, 0}])
      |> Map.put(:bench, :pairs)
      |> Micro.Result.to_json()
      |> IO.iodata_to_binary()

    result = JsonLine.decode(line)

    for field <- ~w(ops round_trips messages min_pair_round_trips),
        do: assert({field, result[field]} == {field, 0})

    assert result["ns_per_op"] == 0
    assert result["messages_per_s"] == 0
    assert result["checks"] == %{"received" => 0, "expected" => 0}
  end

  describe "supervised (spec §4.7)" do
    test "with kills: every kill replaced, the tree still exchanging" do
      # 2P = 8 processes at 200 % a second: a kill every 62.5 ms, 7 in 0.5 s.
      {0, stdout, ""} = run("supervised --cores 1 --pairs 4 --seconds 0.5 --kill-rate 200")
      result = stdout |> String.trim_trailing() |> JsonLine.decode()

      assert %{"params" => %{"pairs" => 4, "seconds" => 0.5, "kill_rate" => 200}} = result
      assert result["kills"] > 0 and result["kills"] <= 7
      assert result["restart_p50_ns"] > 0
      assert result["restart_p99_ns"] >= result["restart_p50_ns"]
      assert result["round_trips"] > 0 and result["ops"] == result["round_trips"]
      assert result["lost"] <= result["kills"]
      assert result["late_restarts"] >= 0 and result["late_restarts"] <= result["kills"]
      assert result["messages"] == result["checks"]["received"]
      assert result["checks"]["received"] + result["lost"] == result["checks"]["expected"]
    end

    test "without kills: nothing lost, no restart figures" do
      {0, stdout, ""} = run("supervised --cores 2 --pairs 2 --seconds 0.2 --kill-rate 0")
      result = stdout |> String.trim_trailing() |> JsonLine.decode()

      assert %{"kills" => 0, "lost" => 0, "restart_p50_ns" => 0, "restart_p99_ns" => 0} = result
      assert result["late_restarts"] == 0
      assert result["round_trips"] > 0
      assert result["checks"]["received"] == result["checks"]["expected"]
      assert result["messages"] == 2 * result["round_trips"]
    end

    # The test process is main: it starts the tree, kills B of pair 1 by
    # hand, and sees the whole pair restarted, both processes new.
    test "a pair killed by hand (one role) restarts as a whole pair" do
      alias Micro.Supervised
      # The pair supervisor's report of the kill, dropped as the escript does.
      sasl = {&:logger_filters.domain/2, {:stop, :sub, [:otp, :sasl]}}
      :ok = :logger.add_primary_filter(:supervised_test, sasl)
      on_exit(fn -> :logger.remove_primary_filter(:supervised_test) end)

      tree = Supervised.start(2, 0, false)
      starts = Supervised.collect_starts(%{}, 4)
      Supervised.release(tree, starts, 2)

      [a0, b0, a1, b1] = for i <- 0..1, role <- [:a, :b], do: Supervised.current(starts, i, role)
      assert Supervised.holder(1, :b) == b1
      assert wait_until(fn -> round_trips(tree, 1) > 0 end)

      Process.exit(b1, :kill)
      starts = Supervised.collect_starts(starts, 2)
      new_a1 = Supervised.current(starts, 1, :a)
      new_b1 = Supervised.current(starts, 1, :b)

      assert new_a1 not in [a1, b1] and new_b1 not in [a1, b1]
      refute Process.alive?(a1) or Process.alive?(b1)
      assert Process.alive?(new_a1) and Process.alive?(new_b1)
      assert Process.alive?(a0) and Process.alive?(b0)
      refute_received {:started, 0, _, _, _, _}

      # The new pair starts from ping(1) without a go and keeps exchanging.
      before = round_trips(tree, 1)
      assert wait_until(fn -> round_trips(tree, 1) > before + 100 end)
      [ps, pr, gs, gr] = tree.counters |> Supervised.read_counters(2) |> Enum.at(1)
      # One message lost to the kill at most, one in flight as they are read.
      assert ps - pr + (gs - gr) <= 2

      for a <- [a0, new_a1], do: send(a, :stop)
      for i <- 0..1, do: assert_receive({:stopped, ^i, _}, 5000)
      Supervisor.stop(tree.top)
    end

    # §4.7's end: a replacement that first runs after the stop reports it,
    # ends at once without a message, and is not started again.
    test "a pair restarted after the stop ends at once, not started again" do
      alias Micro.Supervised
      sasl = {&:logger_filters.domain/2, {:stop, :sub, [:otp, :sasl]}}
      :ok = :logger.add_primary_filter(:supervised_test_late, sasl)
      on_exit(fn -> :logger.remove_primary_filter(:supervised_test_late) end)

      tree = Supervised.start(2, 0, false)
      starts = Supervised.collect_starts(%{}, 4)
      Supervised.release(tree, starts, 2)
      assert wait_until(fn -> round_trips(tree, 1) > 0 end)

      # The stop, with :stop sent to pair 0 only, so that pair 1 still runs.
      Supervised.stop(tree, starts, 1)
      assert_receive({:stopped, 0, _}, 5000)
      [a1, b1] = for role <- [:a, :b], do: Supervised.current(starts, 1, role)
      Process.exit(b1, :kill)

      starts = Supervised.collect_starts(starts, 2)
      new_a1 = Supervised.current(starts, 1, :a)
      new_b1 = Supervised.current(starts, 1, :b)
      assert new_a1 not in [a1, b1] and new_b1 not in [a1, b1]
      for role <- [:a, :b], do: assert({_, _, true} = starts[{1, role}] |> Enum.max())

      # Both end (A at once, B on A's :stop) and stay ended.
      assert wait_until(fn -> not (Process.alive?(new_a1) or Process.alive?(new_b1)) end)
      Process.sleep(50)
      refute_received {:started, _, _, _, _, _}
      {1, pair1, _, _} = List.keyfind(Supervisor.which_children(tree.top), 1, 0)
      assert %{active: 0} = Supervisor.count_children(pair1)

      # The late pair sent nothing: at most the kill's message was lost.
      Supervisor.stop(tree.top)
      [ps, pr, gs, gr] = tree.counters |> Supervised.read_counters(2) |> Enum.at(1)
      assert ps - pr + (gs - gr) <= 1
    end

    test "restart percentiles are nearest-rank" do
      assert Micro.Supervised.nearest_rank([], 50) == 0
      assert Micro.Supervised.nearest_rank([7], 99) == 7
      assert Micro.Supervised.nearest_rank(Enum.to_list(1..100), 50) == 50
      assert Micro.Supervised.nearest_rank(Enum.to_list(1..100), 99) == 99
      assert Micro.Supervised.nearest_rank(Enum.to_list(1..10), 99) == 10
    end
  end

  defp round_trips(tree, i),
    do: tree.counters |> Micro.Supervised.read_counters(i + 1) |> Enum.at(i) |> Enum.at(3)

  defp wait_until(fun, ms \\ 5000) do
    cond do
      fun.() -> true
      ms <= 0 -> false
      true -> Process.sleep(5) && wait_until(fun, ms - 5)
    end
  end

  defp run(args, env \\ [{~c"CONCUR_CORES", false}]) do
    err_file = Path.join(System.tmp_dir!(), "micro-stderr-#{System.unique_integer([:positive])}")
    command = "#{start_command()} #{args} 2>#{err_file}"

    port =
      Port.open({:spawn_executable, "/bin/sh"}, [
        :binary,
        :exit_status,
        args: ["-c", command],
        env: env
      ])

    {code, stdout} = collect(port, [])
    stderr = File.read!(err_file)
    File.rm!(err_file)
    {code, stdout, stderr}
  end

  defp collect(port, acc) do
    receive do
      {^port, {:data, data}} -> collect(port, [acc, data])
      {^port, {:exit_status, code}} -> {code, IO.iodata_to_binary(acc)}
    end
  end

  # The `command` of the manifest's [start] table.
  defp start_command do
    [_, command] = Regex.run(~r/\[start\]\s*command\s*=\s*"([^"]*)"/, File.read!("concur.toml"))
    command
  end
end
