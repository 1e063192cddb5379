%% The command line of spec/MICRO.md §2, parsed once into a map. Parsing does
%% no I/O: main/0 prints the error and picks exit code 2, so a typo never
%% measures a silently different workload.
-module(micro_args).
-export([parse/3]).

-define(BENCHES, ["pingping", "pingpong", "spawn", "maxprocs", "pairs", "idle",
                  "supervised"]).
-define(FLAGS, ["--size", "--reps", "--procs", "--pairs", "--seconds", "--sleep-ms",
                "--kill-rate", "--cores", "--timeout", "--drop-one"]).

-spec parse([string()], string(), pos_integer()) -> {ok, map()} | {error, iolist()}.
parse(Args, EnvCores, CpuCores) ->
    try
        {ok, parse_args(Args, defaults(EnvCores, CpuCores))}
    catch
        throw:{usage, Message} -> {error, Message}
    end.

defaults(EnvCores, CpuCores) ->
    Cores = case EnvCores of
                "" -> CpuCores;
                _ -> value(positive_int, "CONCUR_CORES", EnvCores)
            end,
    #{size => 5120, reps => 10000, procs => 10000, pairs => 4, seconds => 1,
      sleep_ms => 1000, kill_rate => 0, cores => Cores, timeout => 300, drop_one => false}.

parse_args([Bench | Flags], Cfg) ->
    case lists:member(Bench, ?BENCHES) of
        true -> flags(Flags, Cfg#{bench => list_to_atom(Bench)}, []);
        false -> no_bench(io_lib:format("'~ts'", [Bench]))
    end;
parse_args([], _) ->
    no_bench("nothing").

no_bench(Got) ->
    usage("the first argument must be a benchmark, one of ~s, got ~s "
          "(e.g. pingping --size 5120 --reps 10000)",
          [lists:join(", ", ?BENCHES), Got]).

flags([], Cfg, _Seen) ->
    Cfg;
flags([Arg | Rest], Cfg, Seen) ->
    {Flag, Inline} = case string:split(Arg, "=") of
                         ["--" ++ _ = Name, Value] -> {Name, [Value]};
                         _ -> {Arg, []}
                     end,
    lists:member(Flag, Seen) andalso usage("~ts: given twice", [Flag]),
    case {flag(Flag), Inline, Rest} of
        {unknown, _, _} -> usage("unknown flag '~ts' (the flags are ~s)", [Flag, lists:join(", ", ?FLAGS)]);
        {drop_one, [], _} -> flags(Rest, Cfg#{drop_one => true}, [Flag | Seen]);
        {drop_one, _, _} -> usage("~ts takes no value", [Flag]);
        {{Key, Kind}, [V], _} -> flags(Rest, Cfg#{Key => value(Kind, Flag, V)}, [Flag | Seen]);
        {{Key, Kind}, [], [V | Rest1]} -> flags(Rest1, Cfg#{Key => value(Kind, Flag, V)}, [Flag | Seen]);
        {_, [], []} -> usage("~ts: missing value (e.g. ~ts ~s)", [Flag, Flag, example(Flag)])
    end.

flag("--size") -> {size, positive_int};
flag("--reps") -> {reps, positive_int};
flag("--procs") -> {procs, positive_int};
flag("--pairs") -> {pairs, positive_int};
flag("--cores") -> {cores, positive_int};
flag("--seconds") -> {seconds, seconds};
flag("--timeout") -> {timeout, seconds};
flag("--sleep-ms") -> {sleep_ms, natural};
flag("--kill-rate") -> {kill_rate, percent};
flag("--drop-one") -> drop_one;
flag(_) -> unknown.

example("--size") -> "5120";
example("--reps") -> "10000";
example("--procs") -> "10000";
example("--pairs") -> "4";
example("--seconds") -> "0.5";
example("--sleep-ms") -> "1000";
example("--kill-rate") -> "5";
example("--cores") -> "2";
example("--timeout") -> "300".

value(positive_int, Name, V) ->
    case to_integer(V) of
        N when is_integer(N), N >= 1 -> N;
        _ -> bad(Name, V, "an integer >= 1")
    end;
value(natural, Name, V) ->
    case to_integer(V) of
        N when is_integer(N), N >= 0 -> N;
        _ -> bad(Name, V, "an integer >= 0")
    end;
%% Capped at 10^6 s so that every wait fits `receive after` (< 2^32 ms).
value(seconds, Name, V) ->
    case to_number(V) of
        S when is_number(S), S > 0, S =< 1000000 -> S;
        _ -> bad(Name, V, "a number of seconds > 0")
    end;
%% Percent of the processes a second (supervised, spec §4.7).
value(percent, Name, V) ->
    case to_number(V) of
        K when is_number(K), K >= 0, K =< 1000 -> K;
        _ -> bad(Name, V, "a number >= 0 and <= 1000")
    end.

bad("CONCUR_CORES", V, What) ->
    usage("CONCUR_CORES: '~ts' is not ~s (e.g. CONCUR_CORES=2)", [V, What]);
bad(Name, V, What) ->
    usage("~ts: '~ts' is not ~s (e.g. ~ts ~s)", [Name, V, What, Name, example(Name)]).

to_integer(V) ->
    try list_to_integer(V) catch error:badarg -> error end.

to_number(V) ->
    try list_to_float(V) catch error:badarg -> to_integer(V) end.

usage(Format, Args) ->
    throw({usage, io_lib:format(Format, Args)}).
