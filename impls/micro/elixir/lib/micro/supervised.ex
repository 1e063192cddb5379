defmodule Micro.Supervised do
  @moduledoc """
  supervised (spec/MICRO.md §4.7): the pairs of §4.5 under OTP supervision
  while a killer ends processes at K percent of the 2P per second.

  The tree is Elixir's `Supervisor`: a `:one_for_one` top supervisor with one
  `:one_for_all` supervisor per pair (`Micro.Supervised.Pair`), whose two
  children are the echoer B and the initiator A, both `Task`s. When either
  dies, the pair supervisor kills the other and starts both again: fresh
  processes with fresh mailboxes, the new A starting from ping(1). The killer
  finds the process that holds a role now in a `Registry` (key `{i, role}`,
  each process registering itself when it starts) and ends it with
  `Process.exit(pid, :kill)`.

  Per-pair counters outlive the processes (`:counters`, four slots a pair):
  pings sent, pings received, pongs sent, pongs received, each written by one
  process of the pair. Every process reads the clock first thing, then the
  run's state, and reports `{:started, i, role, pid, t, late}` to main: the
  first generation's report is its ready message, a replacement's gives the
  restart latency, and `late` says that it first ran after the stop.
  """

  import Micro.CLI, only: [fail: 1, now_ns: 0]

  # Who holds each role now: {i, :a | :b} => pid.
  @roles Micro.Supervised.Roles

  # Slots of a pair's counters, after its base 4 * i.
  @pings_sent 1
  @pings_received 2
  @pongs_sent 3
  @pongs_received 4

  # The run's state, one atomic shared by all generations: before t0 (a
  # starting process is of the first generation and waits for go), running
  # (a replacement starts exchanging at once), stopped (a replacement ends at
  # once).
  @before 0
  @running 1
  @stopped 2

  def supervised(%{pairs: p, seconds: seconds, kill_rate: kill_rate, drop_one: drop_one}) do
    %{top: top, counters: counters} = tree = start(p, kill_rate, drop_one)
    starts = collect_starts(%{}, 2 * p)

    t0 = now_ns()
    release(tree, starts, p)
    killer = start_killer(p, kill_rate, t0, t0 + round(seconds * 1.0e9))
    Process.sleep(round(seconds * 1000))
    # §4.7's order: the killer, then every pair, and only then the wait for
    # the replacements, which may not run until the busy pairs have stopped.
    kills = stop_killer(killer)
    stop(tree, starts, p)
    starts = await_end(starts, kills, p)
    t1 = now_ns()

    Supervisor.stop(top)
    result(p, seconds, kill_rate, t1 - t0, read_counters(counters, p), kills, starts)
  end

  @doc false
  # Public for the tests, which act as main. Starts the whole tree; every
  # process reports to the caller.
  def start(p, kill_rate, drop_one) do
    env = %{
      main: self(),
      # :write_concurrency: frequent adds, one read at the end (A and B of a
      # pair run on different schedulers and would share a cache line).
      counters: :counters.new(4 * p, [:write_concurrency]),
      # The run's state (@before, @running, @stopped), which a starting
      # process reads right after its first clock read.
      state: :atomics.new(1, []),
      drop_one: drop_one,
      max_restarts: max_restarts(p, kill_rate)
    }

    roles = {Registry, keys: :unique, name: @roles, partitions: System.schedulers_online()}
    pairs = for i <- 0..(p - 1), do: Supervisor.child_spec({__MODULE__.Pair, {i, env}}, id: i)
    {:ok, top} = Supervisor.start_link([roles | pairs], strategy: :one_for_one)
    Map.put(env, :top, top)
  end

  @doc """
  The restart limit (§4.7: configuration, sized for the failure rate). The
  killer makes at most one kill every 1 / (K/100 × 2P) s, and OTP counts a
  supervisor's restarts in whole seconds (those stamped Now − max_seconds or
  later), a window shorter than 2 s at `max_seconds: 1`. So no supervisor can
  see more than ⌈2 × rate⌉ + 1 restarts in it, even if every kill landed on
  its pair; OTP's default of 3 when there is no killer.
  """
  def max_restarts(p, kill_rate), do: max(3, ceil(2 * kill_rate / 100 * 2 * p) + 1)

  defmodule Pair do
    @moduledoc "The supervisor of one pair: B and A, one for all."
    use Supervisor

    def start_link({i, env}), do: Supervisor.start_link(__MODULE__, {i, env})

    @impl true
    def init({i, env}) do
      # B first, so that A finds it among its siblings when it starts.
      children = [
        {Micro.Supervised.Echoer, {i, env}},
        {Micro.Supervised.Initiator, {i, env}}
      ]

      Supervisor.init(children,
        strategy: :one_for_all,
        max_restarts: env.max_restarts,
        max_seconds: 1
      )
    end
  end

  defmodule Initiator do
    @moduledoc false
    # :transient: a kill (reason :killed) restarts the pair, the end after
    # :stop (reason :normal) does not. The partner is ended at once.
    use Task, restart: :transient, shutdown: :brutal_kill

    # Runs in the pair supervisor: self() is the supervisor.
    def start_link(arg), do: Task.start_link(Micro.Supervised, :initiator, [self(), arg])
  end

  defmodule Echoer do
    @moduledoc false
    use Task, restart: :transient, shutdown: :brutal_kill

    def start_link(arg), do: Task.start_link(Micro.Supervised, :echoer, [arg])
  end

  @doc false
  # A decides for its generation of the pair: a replacement A that first runs
  # after the stop tells its B to stop and ends without a ping, so no message
  # of a late generation is ever sent, whichever of the two ran first.
  def initiator(sup, {i, %{main: main, counters: counters, state: state}}) do
    t = now_ns()
    run = :atomics.get(state, 1)
    {:ok, _} = Registry.register(@roles, {i, :a}, nil)
    # The call waits until the supervisor has started both children.
    {_, b, _, _} = List.keyfind(Supervisor.which_children(sup), __MODULE__.Echoer, 0)
    send(main, {:started, i, :a, self(), t, run == @stopped})

    case run do
      # The first generation waits for main's go; a replacement starts at once.
      @before -> receive(do: (:go -> rally(main, counters, 4 * i, i, b, self(), 1)))
      @running -> rally(main, counters, 4 * i, i, b, self(), 1)
      # Late: ends normally, so the :transient child is not started again.
      @stopped -> send(b, :stop)
    end
  end

  # As pairs' rally, with the counts: after each round trip one look for
  # :stop, `after 0` making it a poll of a mailbox that is normally empty.
  defp rally(main, counters, base, i, b, self, k) do
    :counters.add(counters, base + @pings_sent, 1)
    send(b, {:ping, self, k})

    receive do
      {:pong, ^k} -> :counters.add(counters, base + @pongs_received, 1)
      {:pong, got} -> fail("supervised: pair #{i} expected pong #{k}, got #{got}")
    end

    receive do
      :stop ->
        send(b, :stop)
        send(main, {:stopped, i, self})
    after
      0 -> rally(main, counters, base, i, b, self, k + 1)
    end
  end

  @doc false
  # B reads the state only to report it. A late B still answers its A: when
  # that A ran before the stop it is exchanging, and main stops it as any
  # other; when the A is late too it sends :stop at once, without a ping.
  def echoer({i, %{main: main, counters: counters, state: state, drop_one: drop_one}}) do
    t = now_ns()
    run = :atomics.get(state, 1)
    {:ok, _} = Registry.register(@roles, {i, :b}, nil)
    send(main, {:started, i, :b, self(), t, run == @stopped})

    # --drop-one: B of pair 0 of the first generation discards its first ping.
    if drop_one and i == 0 and run == @before,
      do: receive(do: ({:ping, _, _} -> :dropped))

    echo(counters, 4 * i, i, 0)
  end

  defp echo(counters, base, i, received) do
    receive do
      {:ping, from, k} when k == received + 1 ->
        :counters.add(counters, base + @pings_received, 1)
        :counters.add(counters, base + @pongs_sent, 1)
        send(from, {:pong, k})
        echo(counters, base, i, k)

      {:ping, _from, k} ->
        fail("supervised: pair #{i} expected ping #{received + 1}, got #{k}")

      :stop ->
        :ok
    end
  end

  @doc false
  # Main's record of every process's first clock read:
  # {i, role} => [{t, pid, late}].
  def collect_starts(starts, 0), do: starts

  def collect_starts(starts, n) do
    receive do
      {:started, i, role, pid, t, late} ->
        starts |> add_start(i, role, pid, t, late) |> collect_starts(n - 1)
    end
  end

  defp add_start(starts, i, role, pid, t, late),
    do: Map.update(starts, {i, role}, [{t, pid, late}], &[{t, pid, late} | &1])

  @doc false
  # t0 has been taken: from now on a starting A needs no go.
  def release(%{state: state}, starts, p) do
    :atomics.put(state, 1, @running)
    for i <- 0..(p - 1), do: send(current(starts, i, :a), :go)
  end

  @doc false
  # The stop (§4.7): from now on a starting process is late and its A ends at
  # once; every A that main knows of is sent :stop (one that has died
  # meanwhile drops it). A replacement that ran before this and that main
  # does not know of yet gets its :stop in await_end/3.
  def stop(%{state: state}, starts, p) do
    :atomics.put(state, 1, @stopped)
    for i <- 0..(p - 1), do: send(current(starts, i, :a), :stop)
  end

  @doc false
  # The process of the latest generation: the one with the latest first
  # clock read (each starts after its predecessor has died).
  def current(starts, i, role), do: starts |> latest(i, role) |> elem(1)

  defp latest(starts, i, role), do: starts |> Map.fetch!({i, role}) |> Enum.max()

  # The killer: kill j at t0 + j / (K/100 × 2P) s while before t0 + D. It
  # runs at high priority, as the watchdog does, so that it keeps its
  # schedule however many benchmark processes are runnable.
  defp start_killer(_p, kill_rate, _t0, _t_end) when kill_rate == 0, do: nil

  defp start_killer(p, kill_rate, t0, t_end) do
    interval = 1.0e9 / (kill_rate / 100 * 2 * p)
    :erlang.spawn_opt(fn -> killer(p, t0, t_end, interval) end, [:link, priority: :high])
  end

  defp stop_killer(nil), do: []

  defp stop_killer(killer) do
    send(killer, {:stop, self()})
    receive do: ({:kills, ^killer, kills} -> kills)
  end

  defp killer(p, t0, t_end, interval) do
    :rand.seed(:exsss, {2018, 4, 7})
    kill_loop(p, t0, t_end, interval, 1, {[], MapSet.new()})
  end

  # A kill that falls behind its time is made at once, so the count holds.
  defp kill_loop(p, t0, t_end, interval, j, {kills, _killed} = done) do
    due = t0 + round(j * interval)
    wait = if due < t_end, do: max(0, ceil((due - now_ns()) / 1.0e6)), else: :infinity

    receive do
      {:stop, main} -> send(main, {:kills, self(), kills})
    after
      wait -> kill_loop(p, t0, t_end, interval, j + 1, kill(p, done))
    end
  end

  @doc false
  # One kill: a uniformly random pair and role, the process that holds it
  # now, ended from outside. The registry may still name a process that has
  # died (its entry goes when the registry hears of the death), or none yet,
  # so only a live process is killed: a role whose process is gone (its pair
  # being restarted) is skipped, not counted. t_kill is read before that
  # check, so a process that passes it dies after t_kill, and so does its
  # replacement's first clock read.
  #
  # A process this killer has killed already is skipped without asking:
  # `Process.alive?` would wait until it has handled the kill signal (the
  # BEAM orders the answer after the caller's earlier signals to it).
  def kill(p, {kills, killed} = done) do
    i = :rand.uniform(p) - 1
    role = if :rand.uniform(2) == 1, do: :a, else: :b
    pid = holder(i, role)
    t_kill = now_ns()

    if is_pid(pid) and not MapSet.member?(killed, pid) and Process.alive?(pid) do
      Process.exit(pid, :kill)
      {[{i, role, t_kill} | kills], MapSet.put(killed, pid)}
    else
      done
    end
  end

  @doc false
  def holder(i, role) do
    case Registry.lookup(@roles, {i, role}) do
      [{pid, _}] -> pid
      [] -> nil
    end
  end

  # After the stop main reads every report until it knows that each pair has
  # stopped and that each kill's replacement has run: t1. Each pair that was
  # killed must have both processes started after its last kill (a
  # one_for_all restart replaces both, and no kill comes after the stop), and
  # its latest A must have been late or have reported {:stopped, ...}. An A
  # that ran before the stop and that main hears of only now is sent :stop.
  defp await_end(starts, kills, p) do
    last_kill =
      Enum.reduce(kills, %{}, fn {i, _, t}, acc -> Map.update(acc, i, t, &max(&1, t)) end)

    # Plain maps as sets: a module that the run has not used yet (MapSet's
    # Collectable, say) would be loaded now from the escript by the code
    # server, which waits its turn behind the runnable processes (75-500 ms
    # here, inside t1).
    stopped = %{}
    pending = for i <- 0..(p - 1), not ended?(starts, stopped, last_kill, i), do: {i, true}
    await_end(starts, stopped, last_kill, Map.new(pending))
  end

  # Each report concerns one pair, so only that pair is looked at again.
  defp await_end(starts, stopped, last_kill, pending) do
    if map_size(pending) == 0,
      do: starts,
      else: await_report(starts, stopped, last_kill, pending)
  end

  defp await_report(starts, stopped, last_kill, pending) do
    {starts, stopped, i} =
      receive do
        {:started, i, role, pid, t, late} ->
          if role == :a and not late, do: send(pid, :stop)
          {add_start(starts, i, role, pid, t, late), stopped, i}

        {:stopped, i, pid} ->
          {starts, Map.put(stopped, pid, true), i}
      end

    if Map.has_key?(pending, i) and ended?(starts, stopped, last_kill, i),
      do: await_end(starts, stopped, last_kill, Map.delete(pending, i)),
      else: await_end(starts, stopped, last_kill, pending)
  end

  defp ended?(starts, stopped, last_kill, i) do
    restarted =
      case last_kill do
        %{^i => t_kill} -> restarted?(starts, i, t_kill)
        _ -> true
      end

    restarted and
      case latest(starts, i, :a) do
        {_, _, true} -> true
        {_, pid, false} -> Map.has_key?(stopped, pid)
      end
  end

  defp restarted?(starts, i, t_kill) do
    Enum.all?([:a, :b], fn role ->
      starts |> Map.fetch!({i, role}) |> Enum.any?(fn {t, _, _} -> t > t_kill end)
    end)
  end

  @doc false
  # Per pair: [pings_sent, pings_received, pongs_sent, pongs_received].
  def read_counters(counters, p) do
    for i <- 0..(p - 1) do
      base = 4 * i

      for slot <- [@pings_sent, @pings_received, @pongs_sent, @pongs_received],
          do: :counters.get(counters, base + slot)
    end
  end

  @doc false
  # Public for the tests. counts: per pair, as read_counters/2 gives them;
  # kills: [{i, role, t_kill}]; starts: main's record of first clock reads.
  def result(p, seconds, kill_rate, elapsed, counts, kills, starts) do
    kills_per_pair = Enum.frequencies_by(kills, &elem(&1, 0))

    # A pair holds one message in flight and a kill ends the pair: each of
    # its kills loses at most one message, and nothing is received unsent.
    for {[ps, pr, gs, gr], i} <- Enum.with_index(counts),
        pr > ps or gr > gs or ps - pr + (gs - gr) > Map.get(kills_per_pair, i, 0) do
      fail(
        "supervised: pair #{i} sent #{ps} pings and #{gs} pongs, received #{pr} and #{gr}, " <>
          "with #{Map.get(kills_per_pair, i, 0)} kills"
      )
    end

    round_trips = counts |> Enum.map(&Enum.at(&1, 3)) |> Enum.sum()
    messages = counts |> Enum.map(fn [_, pr, _, gr] -> pr + gr end) |> Enum.sum()
    sent = counts |> Enum.map(fn [ps, _, gs, _] -> ps + gs end) |> Enum.sum()
    replacements = Enum.map(kills, &replacement(&1, starts))
    latencies = replacements |> Enum.map(&elem(&1, 0)) |> Enum.sort()

    %{pairs: p, seconds: seconds, kill_rate: kill_rate}
    |> Micro.Result.new(round_trips, elapsed, messages, sent)
    |> Map.merge(%{
      round_trips: round_trips,
      messages: messages,
      messages_per_s: messages / (elapsed / 1.0e9),
      kills: length(kills),
      lost: sent - messages,
      restart_p50_ns: nearest_rank(latencies, 50),
      restart_p99_ns: nearest_rank(latencies, 99),
      late_restarts: Enum.count(replacements, &elem(&1, 1))
    })
  end

  # The kill's replacement, the first process of that role of that pair that
  # started after it: {its restart latency, from t_kill to its first clock
  # read; whether it first ran after the stop}.
  defp replacement({i, role, t_kill}, starts) do
    {t, _pid, late} =
      starts |> Map.fetch!({i, role}) |> Enum.filter(&(elem(&1, 0) > t_kill)) |> Enum.min()

    {t - t_kill, late}
  end

  @doc false
  def nearest_rank([], _percent), do: 0
  def nearest_rank(sorted, percent), do: Enum.at(sorted, ceil(percent / 100 * length(sorted)) - 1)
end
