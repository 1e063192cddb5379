defmodule Micro.Pairs do
  @moduledoc """
  pairs (spec/MICRO.md §4.5): P pairs of processes bouncing an integer for D
  seconds; main stops them with a :stop message in each initiator's mailbox.
  """

  import Micro.CLI, only: [fail: 1, now_ns: 0, await_ready: 1]

  def pairs(%{pairs: p, seconds: seconds, drop_one: drop_one}) do
    main = self()
    pairs = for i <- 0..(p - 1), do: start_pair(main, i, drop_one and i == 0)
    await_ready(Enum.flat_map(pairs, &Tuple.to_list/1))

    t0 = now_ns()
    for {a, _b} <- pairs, do: send(a, :go)
    Process.sleep(round(seconds * 1000))
    for {a, _b} <- pairs, do: send(a, :stop)

    counts =
      for i <- 0..(p - 1) do
        {receive(do: ({:initiated, ^i, round_trips} -> round_trips)),
         receive(do: ({:echoed, ^i, pings} -> pings))}
      end

    t1 = now_ns()
    result(p, seconds, t1 - t0, counts)
  end

  defp start_pair(main, i, drop_one) do
    b = spawn(fn -> echoer(main, i, drop_one) end)
    a = spawn(fn -> initiator(main, i, b) end)
    {a, b}
  end

  defp initiator(main, i, b) do
    send(main, {:ready, self()})
    receive do: (:go -> :ok)
    rally(main, i, b, self(), 1)
  end

  # One round trip, then one look for :stop: `after 0` makes it a poll, and
  # the pong has just been taken out, so the mailbox is normally empty.
  defp rally(main, i, b, self, k) do
    send(b, {:ping, self, k})

    receive do
      {:pong, ^k} -> :ok
      {:pong, got} -> fail("pairs: pair #{i} expected pong #{k}, got #{got}")
    end

    receive do
      :stop ->
        send(b, :stop)
        send(main, {:initiated, i, k})
    after
      0 -> rally(main, i, b, self, k + 1)
    end
  end

  defp echoer(main, i, drop_one) do
    send(main, {:ready, self()})
    if drop_one, do: receive(do: ({:ping, _, _} -> :dropped))
    echo(main, i, 0)
  end

  defp echo(main, i, received) do
    receive do
      {:ping, from, k} when k == received + 1 ->
        send(from, {:pong, k})
        echo(main, i, k)

      {:ping, _from, k} ->
        fail("pairs: pair #{i} expected ping #{received + 1}, got #{k}")

      :stop ->
        send(main, {:echoed, i, received})
    end
  end

  @doc false
  # Public for the tests: the line of counts no run from outside can force.
  def result(p, seconds, elapsed, counts) do
    for {{round_trips, pings}, i} <- Enum.with_index(counts), round_trips != pings do
      fail(
        "pairs: pair #{i} made #{round_trips} round trips but its echoer received #{pings} pings"
      )
    end

    # No round trip at all is a result too (spec §4.5): every count is 0.
    round_trips = counts |> Enum.map(&elem(&1, 0)) |> Enum.sum()
    received = counts |> Enum.map(fn {rt, pings} -> rt + pings end) |> Enum.sum()

    %{pairs: p, seconds: seconds}
    |> Micro.Result.new(round_trips, elapsed, received, 2 * round_trips)
    |> Map.merge(%{
      round_trips: round_trips,
      messages: 2 * round_trips,
      messages_per_s: 2 * round_trips / (elapsed / 1.0e9),
      min_pair_round_trips: counts |> Enum.map(&elem(&1, 0)) |> Enum.min()
    })
  end
end
