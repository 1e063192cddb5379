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
    "idle" => "--procs 300 --sleep-ms 20"
  }

  @params %{
    "pingping" => ~w(cores reps size),
    "pingpong" => ~w(cores reps),
    "spawn" => ~w(cores procs),
    "maxprocs" => ~w(cores procs),
    "pairs" => ~w(cores pairs seconds),
    "idle" => ~w(cores procs sleep_ms)
  }

  @extra_fields %{
    "pingping" => [],
    "pingpong" => [],
    "spawn" => ~w(procs ns_per_proc),
    "maxprocs" => ~w(procs ns_per_proc),
    "pairs" => ~w(round_trips messages messages_per_s min_pair_round_trips),
    "idle" => ~w(tasks sleep_ns)
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
  # six runs go in parallel, since five of them wait for the watchdog.
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
        {"spawn --drop-one=yes", "--drop-one takes no value"}
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
