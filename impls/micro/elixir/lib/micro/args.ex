defmodule Micro.Args do
  @moduledoc """
  The command line of spec/MICRO.md §2, parsed once into a map. Parsing does
  no I/O: `Micro.CLI` prints the error and picks exit code 2, so a typo never
  measures a silently different workload.

  `OptionParser` is not used: it accepts unknown switches, abbreviations and
  negations (`--no-drop-one`) that the spec does not allow, and its messages
  would not name the fix.
  """

  @benches ~w(pingping pingpong spawn maxprocs pairs idle supervised)

  # flag => {key, kind, example}
  @flags %{
    "--size" => {:size, :positive_int, "5120"},
    "--reps" => {:reps, :positive_int, "10000"},
    "--procs" => {:procs, :positive_int, "10000"},
    "--pairs" => {:pairs, :positive_int, "4"},
    "--seconds" => {:seconds, :seconds, "0.5"},
    "--sleep-ms" => {:sleep_ms, :natural, "1000"},
    "--kill-rate" => {:kill_rate, :rate, "5"},
    "--cores" => {:cores, :positive_int, "2"},
    "--timeout" => {:timeout, :seconds, "300"},
    "--drop-one" => {:drop_one, :switch, nil}
  }
  @flag_order ~w(--size --reps --procs --pairs --seconds --sleep-ms --kill-rate --cores --timeout --drop-one)

  @spec parse([String.t()], String.t(), pos_integer()) :: {:ok, map()} | {:error, String.t()}
  def parse(argv, env_cores, cpu_cores) do
    {:ok, parse!(argv, defaults(env_cores, cpu_cores))}
  catch
    {:usage, message} -> {:error, message}
  end

  defp defaults(env_cores, cpu_cores) do
    cores =
      case env_cores do
        "" -> cpu_cores
        value -> value!(:positive_int, "CONCUR_CORES", value, "CONCUR_CORES=2")
      end

    %{
      size: 5120,
      reps: 10_000,
      procs: 10_000,
      pairs: 4,
      seconds: 1,
      sleep_ms: 1000,
      kill_rate: 0,
      cores: cores,
      timeout: 300,
      drop_one: false
    }
  end

  defp parse!([bench | flags], config) when bench in @benches do
    flags!(flags, Map.put(config, :bench, String.to_atom(bench)), MapSet.new())
  end

  defp parse!(argv, _config) do
    got = if argv == [], do: "nothing", else: "'#{hd(argv)}'"

    usage!(
      "the first argument must be a benchmark, one of #{Enum.join(@benches, ", ")}, " <>
        "got #{got} (e.g. pingping --size 5120 --reps 10000)"
    )
  end

  defp flags!([], config, _seen), do: config

  defp flags!([arg | rest], config, seen) do
    {flag, inline} =
      case String.split(arg, "=", parts: 2) do
        ["--" <> _ = name, value] -> {name, [value]}
        _ -> {arg, []}
      end

    if flag in seen, do: usage!("#{flag}: given twice")
    seen = MapSet.put(seen, flag)

    case {Map.get(@flags, flag), inline, rest} do
      {nil, _, _} ->
        usage!("unknown flag '#{flag}' (the flags are #{Enum.join(@flag_order, ", ")})")

      {{key, :switch, _}, [], _} ->
        flags!(rest, Map.put(config, key, true), seen)

      {{_, :switch, _}, _, _} ->
        usage!("#{flag} takes no value")

      {{key, kind, example}, [value], _} ->
        flags!(rest, Map.put(config, key, value!(kind, flag, value, "#{flag} #{example}")), seen)

      {{key, kind, example}, [], [value | rest]} ->
        flags!(rest, Map.put(config, key, value!(kind, flag, value, "#{flag} #{example}")), seen)

      {{_, _, example}, [], []} ->
        usage!("#{flag}: missing value (e.g. #{flag} #{example})")
    end
  end

  defp value!(:positive_int, name, value, example) do
    case Integer.parse(value) do
      {n, ""} when n >= 1 -> n
      _ -> bad!(name, value, "an integer >= 1", example)
    end
  end

  defp value!(:natural, name, value, example) do
    case Integer.parse(value) do
      {n, ""} when n >= 0 -> n
      _ -> bad!(name, value, "an integer >= 0", example)
    end
  end

  # Capped at 10^6 s so that every wait fits `receive after` (< 2^32 ms).
  defp value!(:seconds, name, value, example) do
    seconds = number(value)

    if is_number(seconds) and seconds > 0 and seconds <= 1_000_000,
      do: seconds,
      else: bad!(name, value, "a number of seconds > 0", example)
  end

  # Percent of the processes killed per second, 0 (no killer) to 1000.
  defp value!(:rate, name, value, example) do
    case number(value) do
      rate when is_number(rate) and rate >= 0 and rate <= 1000 -> rate
      _ -> bad!(name, value, "a number >= 0 and <= 1000", example)
    end
  end

  # An integer stays one, so that params echo it as given.
  defp number(value) do
    case {Integer.parse(value), Float.parse(value)} do
      {{n, ""}, _} -> n
      {_, {f, ""}} -> f
      _ -> nil
    end
  end

  defp bad!(name, value, what, example),
    do: usage!("#{name}: '#{value}' is not #{what} (e.g. #{example})")

  defp usage!(message), do: throw({:usage, message})
end
