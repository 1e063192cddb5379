defmodule Micro.Spawn do
  @moduledoc """
  spawn, maxprocs and idle (spec/MICRO.md §4.3, §4.4, §4.6): many processes
  alive at once, each costing its process control block, its heap and its
  mailbox.
  """

  import Micro.CLI, only: [fail: 1, now_ns: 0]

  @doc "spawn and maxprocs: N processes that acknowledge and then wait for :stop."
  def dormant(%{procs: n, drop_one: drop_one}) do
    main = self()

    dormant = fn ->
      send(main, :ack)
      receive do: (:stop -> send(main, :stopped))
    end

    t0 = now_ns()
    pids = spawn_n(n, dormant, [])
    if drop_one, do: receive(do: (:ack -> :dropped))
    acks = await(:ack, n)
    t1 = now_ns()

    Enum.each(pids, &send(&1, :stop))
    stopped = await(:stopped, n)
    result = Micro.Result.new(%{procs: n}, n, t1 - t0, acks + stopped, 2 * n)
    Map.merge(result, %{procs: n, ns_per_proc: result.ns_per_op})
  end

  @doc """
  idle: N processes that sleep M ms on the BEAM's timer (a suspended process
  takes no scheduler), send a completion notice and end.
  """
  def idle(%{procs: n, sleep_ms: sleep_ms, drop_one: drop_one}) do
    main = self()

    task = fn ->
      Process.sleep(sleep_ms)
      send(main, :done)
    end

    t0 = now_ns()
    spawn_n(n, task)
    if drop_one, do: receive(do: (:done -> :dropped))
    notices = await(:done, n)
    t1 = now_ns()

    sleep_ns = sleep_ms * 1_000_000

    if t1 - t0 < sleep_ns,
      do: fail("idle: all tasks ended after #{t1 - t0} ns, before their sleep of #{sleep_ns} ns")

    result = Micro.Result.new(%{procs: n, sleep_ms: sleep_ms}, n, t1 - t0, notices, n)
    Map.merge(result, %{ns_per_op: (t1 - t0 - sleep_ns) / n, tasks: n, sleep_ns: sleep_ns})
  end

  # Main keeps the pids of dormant processes to stop them in teardown.
  defp spawn_n(0, _fun, pids), do: pids
  defp spawn_n(i, fun, pids), do: spawn_n(i - 1, fun, [spawn_or_fail(fun, i) | pids])

  # Idle tasks end by themselves: main keeps nothing.
  defp spawn_n(0, _fun), do: :ok

  defp spawn_n(i, fun) do
    spawn_or_fail(fun, i)
    spawn_n(i - 1, fun)
  end

  # The process limit (+P) raises system_limit, which can be caught (spec
  # §3.4); running out of memory aborts the VM and cannot be.
  defp spawn_or_fail(fun, remaining) do
    spawn(fun)
  rescue
    e in SystemLimitError ->
      fail(
        "spawn failed with #{remaining} processes still to create: " <>
          "#{Exception.message(e)} (the BEAM's process limit is " <>
          "#{:erlang.system_info(:process_limit)}, raise it with +P)"
      )
  end

  # Counts n copies of msg in main's mailbox. Each is the first message in
  # the queue, so this receive never scans.
  defp await(msg, n), do: await(msg, n, 0)
  defp await(_msg, n, n), do: n
  defp await(msg, n, count), do: receive(do: (^msg -> await(msg, n, count + 1)))
end
