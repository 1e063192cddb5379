defmodule Micro.Latency do
  @moduledoc """
  pingping and pingpong (spec/MICRO.md §4.1, §4.2): two processes, each
  receiving from its own mailbox.
  """

  import Micro.CLI, only: [fail: 1, now_ns: 0, await_ready: 1]

  @doc """
  pingping (IMB PingPing): A and B both send message k, then both receive
  the other's message k. A BEAM mailbox is unbounded, so sending before
  receiving never blocks.
  """
  def pingping(%{size: size, reps: reps, drop_one: drop_one}) do
    main = self()
    a = spawn(fn -> exchanger("A", main, size, reps, false) end)
    b = spawn(fn -> exchanger("B", main, size, reps, drop_one) end)
    await_ready([a, b])

    t0 = now_ns()
    send(a, {:go, b})
    send(b, {:go, a})
    received_a = receive do: ({:done, ^a, n} -> n)
    received_b = receive do: ({:done, ^b, n} -> n)
    t1 = now_ns()

    Micro.Result.new(%{size: size, reps: reps}, reps, t1 - t0, received_a + received_b, 2 * reps)
  end

  @doc false
  # Public for the tests. Main's go (carrying the peer's pid) is this
  # process's own message, but the peer's message 1 may arrive before it
  # (spec §4.1): the selective receive takes go first and leaves
  # {:msg, 1, _} in the mailbox until then.
  def exchanger(name, main, size, reps, drop_one) do
    send(main, {:ready, self()})
    peer = receive do: ({:go, peer} -> peer)
    if drop_one, do: receive(do: ({:msg, _, _} -> :dropped))
    send(main, {:done, self(), exchange(name, peer, size, reps, 1, 0)})
  end

  defp exchange(_name, _peer, _size, reps, k, received) when k > reps, do: received

  defp exchange(name, peer, size, reps, k, received) do
    fill = rem(k, 251)
    send(peer, {:msg, k, payload(fill, size)})

    receive do
      {:msg, got, payload} -> check(name, k, size, fill, got, payload)
    end

    exchange(name, peer, size, reps, k + 1, received + 1)
  end

  @doc """
  A fresh binary for every message (spec §4.1 "fresh payload"). At 64 bytes
  or less it is a heap binary, which a send copies into the receiver's heap.
  Above 64 bytes it is a reference-counted off-heap binary: a send copies
  only the small ProcBin that points at it and shares the bytes. Both are
  what the BEAM does with any binary; nothing here adds or avoids a copy.

  `:binary.copy(<<fill>>, size)` would be the one-liner, but it copies one
  byte at a time (about 7 ns a byte: 35 µs for 5 KiB, ten times the rest of
  the exchange). So a 256-byte seed is built by doubling and `:binary.copy`
  repeats it with one memcpy per 256 bytes. Every byte is still written for
  every message. The paper's sizes are multiples of 256; any other size
  appends the rest, copying the body once more.
  """
  def payload(fill, size) when size <= 64, do: :binary.copy(<<fill>>, size)

  def payload(fill, size) do
    seed = double(<<fill>>, 8)
    body = :binary.copy(seed, div(size, 256))

    case rem(size, 256) do
      0 -> body
      rest -> <<body::binary, seed::binary-size(rest)>>
    end
  end

  defp double(bin, 0), do: bin
  defp double(bin, times), do: double(<<bin::binary, bin::binary>>, times - 1)

  defp check(name, k, size, fill, got, payload) do
    cond do
      got != k ->
        fail("pingping: process #{name} expected message #{k}, got #{got}")

      byte_size(payload) != size ->
        fail(
          "pingping: process #{name}: message #{k} has #{byte_size(payload)} bytes, expected #{size}"
        )

      :binary.first(payload) != fill or :binary.last(payload) != fill ->
        fail("pingping: process #{name}: message #{k} is not filled with #{fill}")

      true ->
        :ok
    end
  end

  @doc """
  pingpong (Savina PingPong): one round trip at a time, the ping carrying
  the pinger's pid as the BEAM's idiom has it.
  """
  def pingpong(%{reps: reps, drop_one: drop_one}) do
    main = self()
    ponger = spawn(fn -> ponger(main, drop_one) end)
    pinger = spawn(fn -> pinger(main, ponger, reps) end)
    await_ready([ponger, pinger])

    t0 = now_ns()
    send(pinger, :go)
    pongs = receive do: ({:done, ^pinger, n} -> n)
    t1 = now_ns()

    send(ponger, :stop)
    pings = receive do: ({:stopped, ^ponger, n} -> n)
    Micro.Result.new(%{reps: reps}, reps, t1 - t0, pings + pongs, 2 * reps)
  end

  defp pinger(main, ponger, reps) do
    send(main, {:ready, self()})
    receive do: (:go -> :ok)
    send(main, {:done, self(), ping(ponger, self(), reps, 1)})
  end

  defp ping(_ponger, _self, reps, k) when k > reps, do: reps

  defp ping(ponger, self, reps, k) do
    send(ponger, {:ping, self, k})

    receive do
      {:pong, ^k} -> ping(ponger, self, reps, k + 1)
      {:pong, got} -> fail("pingpong: pinger expected pong #{k}, got #{got}")
    end
  end

  defp ponger(main, drop_one) do
    send(main, {:ready, self()})
    if drop_one, do: receive(do: ({:ping, _, _} -> :dropped))
    pong(main, 0)
  end

  defp pong(main, received) do
    receive do
      {:ping, from, k} when k == received + 1 ->
        send(from, {:pong, k})
        pong(main, k)

      {:ping, _from, k} ->
        fail("pingpong: ponger expected ping #{received + 1}, got #{k}")

      :stop ->
        send(main, {:stopped, self(), received})
    end
  end
end
