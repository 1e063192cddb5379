defmodule Micro.CLI do
  @moduledoc """
  Concur's process micro-benchmarks (spec/MICRO.md) on plain BEAM processes:
  `spawn/1`, `send/2` and `receive`. One benchmark per run, one JSON line on
  stdout; exit 1 when a message was lost, a count is wrong or the runtime
  failed, exit 2 on a bad argument.

  The escript entry point. `./micro` (the manifest's start command) starts it
  with `+P` and `+S` derived from the arguments.
  """

  alias Micro.{Args, Latency, Pairs, Result, Spawn, Supervised}

  def main(argv) do
    log_to_stderr()

    case Args.parse(argv, System.get_env("CONCUR_CORES", ""), default_cores()) do
      {:ok, config} -> run(config)
      {:error, message} -> stop(2, message)
    end
  end

  defp run(%{bench: bench} = config) do
    arm_watchdog(bench, config.timeout)
    use_cores(config.cores)

    result =
      try do
        bench(config)
      catch
        kind, reason -> fail("#{bench}: #{Exception.format_banner(kind, reason, __STACKTRACE__)}")
      end

    case Result.verify(result) do
      :ok ->
        IO.write([Result.to_json(Map.put(result, :bench, bench)), ?\n])
        System.halt(0)

      {:error, message} ->
        fail("#{bench}: #{message}")
    end
  end

  defp bench(%{bench: :pingping} = config), do: Latency.pingping(config)
  defp bench(%{bench: :pingpong} = config), do: Latency.pingpong(config)
  defp bench(%{bench: :spawn} = config), do: Spawn.dormant(config)
  defp bench(%{bench: :maxprocs} = config), do: Spawn.dormant(config)
  defp bench(%{bench: :pairs} = config), do: Pairs.pairs(config)
  defp bench(%{bench: :idle} = config), do: Spawn.idle(config)
  defp bench(%{bench: :supervised} = config), do: Supervised.supervised(config)

  # The watchdog of spec §3.2 runs at high priority so that a flood of
  # runnable benchmark processes cannot delay it.
  defp arm_watchdog(bench, seconds) do
    ms = round(seconds * 1000)

    watchdog = fn ->
      receive do
      after
        ms -> fail("timeout after #{Result.number(seconds)} s in #{bench}")
      end
    end

    :erlang.spawn_opt(watchdog, priority: :high)
  end

  # ./micro starts the VM with `+S C:C` already; lowering schedulers_online
  # here makes a start without it (plain `escript`) mean the same. Raising it
  # above the schedulers the VM started with is impossible, and then the run
  # stops rather than measure other parallelism.
  defp use_cores(cores) do
    if cores <= :erlang.system_info(:schedulers) do
      :erlang.system_flag(:schedulers_online, cores)
    end

    case :erlang.system_info(:schedulers_online) do
      ^cores ->
        :ok

      online ->
        fail(
          "schedulers_online is #{online}, --cores asked for #{cores} " <>
            "(start the VM with +S #{cores}:#{cores}, e.g. through ./micro)"
        )
    end
  end

  # The VM's own reports (a crashed process, "Too many processes") go to
  # standard_io by default; stdout is only for the result line (spec §7).
  #
  # Supervisor, progress and crash reports (the [:otp, :sasl] domain) are
  # dropped, as Elixir's Logger drops them unless `handle_sasl_reports: true`
  # (its default is false); the escript does not start Logger, so the filter
  # is set here. Otherwise every kill of supervised (spec §4.7) would print a
  # SUPERVISOR REPORT, formatted in the pair's supervisor before it restarts
  # the pair; the first one also loads the formatter's modules from the
  # escript, which held restarts up for a second under load.
  defp log_to_stderr do
    :ok = :logger.remove_handler(:default)
    :ok = :logger.add_handler(:default, :logger_std_h, %{config: %{type: :standard_error}})
    {:module, _} = Code.ensure_loaded(:logger_filters)
    sasl = {&:logger_filters.domain/2, {:stop, :sub, [:otp, :sasl]}}
    :ok = :logger.add_primary_filter(:sasl_reports, sasl)
  end

  # "The CPUs the process may run on" (spec §2): the affinity mask.
  defp default_cores do
    case :erlang.system_info(:logical_processors_available) do
      :unknown -> :erlang.system_info(:schedulers_online)
      n -> n
    end
  end

  @doc """
  Ends the whole program at once (spec §3.1): the other processes would
  otherwise wait forever for a message that never comes.
  """
  @spec fail(String.t()) :: no_return()
  def fail(message), do: stop(1, message)

  defp stop(code, message) do
    IO.write(:stderr, ["micro: ", message, ?\n])
    System.halt(code)
  end

  @doc "The clock of spec §1."
  def now_ns, do: System.monotonic_time(:nanosecond)

  @doc "Every benchmark process sends `{:ready, self()}` before main reads t0."
  def await_ready(pids) do
    for pid <- pids do
      receive do
        {:ready, ^pid} -> :ok
      end
    end

    :ok
  end
end
