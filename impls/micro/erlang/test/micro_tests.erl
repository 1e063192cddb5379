%% EUnit tests. The end-to-end ones run the manifest's start command exactly
%% as `concur micro` does (sh -c in this folder), so the wrapper, the halt
%% codes, the watchdog and stdout are tested as concur sees them.
-module(micro_tests).
-include_lib("eunit/include/eunit.hrl").

-define(SMALL, [{"pingping", "--size 100 --reps 500"},
                {"pingpong", "--reps 500"},
                {"spawn", "--procs 300"},
                {"maxprocs", "--procs 300"},
                {"pairs", "--pairs 3 --seconds 0.1 --kill-rate 5"}, % accepted, ignored
                {"idle", "--procs 300 --sleep-ms 20"},
                {"supervised", "--pairs 3 --seconds 0.1"}]).

%% Every benchmark prints one valid JSON line and exits 0.
every_bench_prints_one_json_line_test_() ->
    {inparallel, [{Bench, {timeout, 60, fun() -> check_line(Bench, Args) end}}
                  || {Bench, Args} <- ?SMALL]}.

check_line(Bench, Args) ->
    {0, Stdout, Stderr} = run(Bench ++ " --cores 1 " ++ Args),
    ?assertEqual(<<>>, Stderr),
    [Line, <<>>] = binary:split(Stdout, <<"\n">>),
    Result = decode(Line),
    ?assertMatch(#{<<"schema">> := 1, <<"runtime">> := <<"erlang">>}, Result),
    ?assertEqual(list_to_binary(Bench), maps:get(<<"bench">>, Result)),
    #{<<"checks">> := #{<<"received">> := Received, <<"expected">> := Expected},
      <<"ops">> := Ops, <<"elapsed_ns">> := Elapsed, <<"ns_per_op">> := NsPerOp,
      <<"params">> := Params} = Result,
    ?assertEqual(Expected, Received),
    ?assert(Received > 0 andalso Ops > 0 andalso Elapsed > 0),
    ?assert(is_number(NsPerOp)),
    ?assertEqual(1, maps:get(<<"cores">>, Params)),
    ?assertEqual(lists:sort([<<"cores">> | params(Bench)]), lists:sort(maps:keys(Params))),
    [?assert(maps:is_key(Field, Result)) || Field <- extra_fields(Bench)].

params("pingping") -> [<<"size">>, <<"reps">>];
params("pingpong") -> [<<"reps">>];
params("pairs") -> [<<"pairs">>, <<"seconds">>];
params("idle") -> [<<"procs">>, <<"sleep_ms">>];
params("supervised") -> [<<"pairs">>, <<"seconds">>, <<"kill_rate">>];
params(_) -> [<<"procs">>].

extra_fields("pairs") -> [<<"round_trips">>, <<"messages">>, <<"messages_per_s">>,
                          <<"min_pair_round_trips">>];
extra_fields("idle") -> [<<"tasks">>, <<"sleep_ns">>];
extra_fields("supervised") -> [<<"round_trips">>, <<"messages">>, <<"messages_per_s">>, <<"kills">>,
                               <<"lost">>, <<"restart_p50_ns">>, <<"restart_p99_ns">>,
                               <<"late_restarts">>];
extra_fields("pingping") -> [];
extra_fields("pingpong") -> [];
extra_fields(_) -> [<<"procs">>, <<"ns_per_proc">>].

%% spec §3.3: one lost message makes every benchmark exit 1 with an empty
%% stdout, through its checks (pingping) or its watchdog (the others).
drop_one_fails_every_bench_test_() ->
    {inparallel, [{Bench, {timeout, 60, fun() -> check_drop_one(Bench, Args) end}}
                  || {Bench, Args} <- ?SMALL]}.

check_drop_one(Bench, Args) ->
    {Code, Stdout, Stderr} = run(Bench ++ " --cores 1 " ++ Args ++ " --drop-one --timeout 5"),
    ?assertEqual({1, <<>>}, {Code, Stdout}),
    ?assertMatch({match, _}, re:run(Stderr, "^micro: .+\n$")).

pingping_drop_one_is_caught_by_the_sequence_check_test() ->
    {1, <<>>, Stderr} = run("pingping --reps 10 --drop-one --timeout 5"),
    ?assertEqual(<<"micro: pingping: process B expected message 1, got 2\n">>, Stderr).

bad_arguments_exit_2_test_() ->
    [{Args, fun() ->
                {Code, Stdout, Stderr} = run(Args),
                ?assertEqual({2, <<>>}, {Code, Stdout}),
                ?assertMatch({match, _}, re:run(Stderr, "^micro: [^\n]*" ++ Hint ++ "[^\n]*\n$"))
            end}
     || {Args, Hint} <- [{"", "benchmark"},
                         {"pingpang", "'pingpang'"},
                         {"pingping --reps 10k", "--reps: '10k' is not an integer >= 1"},
                         {"pingping --reps 0", "--reps: '0'"},
                         {"pingping --size", "--size: missing value"},
                         {"spawn --procs 5 --procs 6", "given twice"},
                         {"pairs --seconds -1", "--seconds"},
                         {"idle --sleep-ms 1.5", "--sleep-ms"},
                         {"spawn --bogus 1", "unknown flag '--bogus'"},
                         {"supervised --kill-rate -1",
                          "--kill-rate: '-1' is not a number >= 0 and <= 1000 \\(e.g. --kill-rate 5\\)"},
                         {"supervised --kill-rate 1000.5", "--kill-rate: '1000.5'"},
                         {"supervised --kill-rate 5%", "--kill-rate: '5%'"},
                         {"supervised --kill-rate", "--kill-rate: missing value"},
                         {"spawn --drop-one=yes", "--drop-one takes no value"}]].

bad_concur_cores_exits_2_test() ->
    {2, <<>>, Stderr} = run([{"CONCUR_CORES", "two"}], "spawn --procs 3"),
    ?assertMatch({match, _}, re:run(Stderr, "CONCUR_CORES: 'two'")).

%% spec §3.4: the process limit is a runtime failure, reported in one line
%% with exit 1 and nothing on stdout. The VM's own "Too many processes"
%% report went to stdout before log_to_stderr/0 moved the logger.
%% ERL_FLAGS comes after ./micro's +P on the VM's command line, so it wins.
process_limit_exits_1_with_nothing_on_stdout_test() ->
    {1, <<>>, Stderr} = run([{"CONCUR_CORES", false}, {"ERL_FLAGS", "+P 1024"}],
                            "maxprocs --procs 2000"),
    ?assertMatch({match, _}, re:run(Stderr, "micro: spawn failed .*system_limit.* 1024")).

flag_equals_value_form_test() ->
    {0, Stdout, _} = run("pingpong --reps=7 --cores=1"),
    ?assertMatch(#{<<"ops">> := 7, <<"params">> := #{<<"cores">> := 1, <<"reps">> := 7}},
                 decode(hd(binary:split(Stdout, <<"\n">>)))).

%% The parser alone: defaults, CONCUR_CORES, and --cores overriding it.
parse_test_() ->
    [?_assertMatch({ok, #{bench := pingping, size := 5120, reps := 10000, cores := 4,
                          timeout := 300, drop_one := false}},
                   micro_args:parse(["pingping"], "", 4)),
     ?_assertMatch({ok, #{cores := 3}}, micro_args:parse(["spawn"], "3", 4)),
     ?_assertMatch({ok, #{cores := 1}}, micro_args:parse(["spawn", "--cores", "1"], "3", 4)),
     ?_assertMatch({ok, #{seconds := 0.5, sleep_ms := 0}},
                   micro_args:parse(["pairs", "--seconds", "0.5", "--sleep-ms", "0"], "", 1)),
     ?_assertMatch({error, _}, micro_args:parse(["pairs", "--seconds", "1e9"], "", 1)),
     ?_assertMatch({ok, #{bench := supervised, kill_rate := 0}}, micro_args:parse(["supervised"], "", 1)),
     ?_assertMatch({ok, #{kill_rate := 0.5}},
                   micro_args:parse(["supervised", "--kill-rate", "0.5"], "", 1)),
     ?_assertMatch({ok, #{kill_rate := 1000}},
                   micro_args:parse(["supervised", "--kill-rate=1000"], "", 1))].

%% spec §4.1: a payload of 64 bytes or less is copied into the receiver's
%% heap, a larger one is shared. process_info(_, binary) lists the
%% off-heap binaries a process references, with their reference counts.
payload_is_copied_up_to_64_bytes_and_shared_above_test_() ->
    [?_assertEqual(none, shared_refcount(micro_latency:payload(7, 64))),
     ?_assertEqual(2, shared_refcount(micro_latency:payload(7, 65))),
     ?_assertEqual(2, shared_refcount(micro_latency:payload(7, 5120)))].

shared_refcount(Payload) ->
    Self = self(),
    Receiver = spawn(fun() ->
                         receive {bin, B} ->
                             {binary, Bins} = process_info(self(), binary),
                             Self ! {refs, Bins},
                             receive stop -> byte_size(B) end
                         end
                     end),
    Receiver ! {bin, Payload},
    Refs = receive {refs, Bins} -> Bins end,
    Receiver ! stop,
    case Refs of
        [] -> none;
        [{_Id, Size, RefCount}] when Size =:= byte_size(Payload) -> RefCount
    end.

payload_fills_every_byte_test() ->
    [?assertEqual(binary:copy(<<(K rem 251)>>, Size), micro_latency:payload(K rem 251, Size))
     || Size <- [1, 64, 65, 255, 256, 257, 5120, 5121, 51200], K <- [1, 250, 251, 502]].

json_numbers_are_plain_decimals_test() ->
    ?assertEqual(<<"{\"a\":1,\"b\":0.5,\"c\":\"x\",\"d\":{\"e\":123456789.125}}">>,
                 iolist_to_binary(micro_result:to_json(
                                    #{a => 1, b => 0.5, c => <<"x">>, d => #{e => 123456789.125}}))).

%% --- running the program ------------------------------------------------

%% CONCUR_CORES is unset unless a test sets it: runs by hand and by concur
%% differ only in the arguments.
run(Args) ->
    run([{"CONCUR_CORES", false}], Args).

%% Runs `<start command> <Args>` in this folder with sh -c, as concur micro
%% does, stderr captured through a file.
run(Env, Args) ->
    ErrFile = filename:join(tmp_dir(), "stderr-" ++ integer_to_list(erlang:unique_integer([positive]))),
    Command = lists:flatten([start_command(), " ", Args, " 2>", ErrFile]),
    Port = open_port({spawn_executable, "/bin/sh"},
                     [{args, ["-c", Command]}, {env, Env}, exit_status, binary, stream]),
    {Code, Stdout} = collect(Port, []),
    {ok, Stderr} = file:read_file(ErrFile),
    ok = file:delete(ErrFile),
    {Code, Stdout, Stderr}.

collect(Port, Acc) ->
    receive
        {Port, {data, Data}} -> collect(Port, [Acc, Data]);
        {Port, {exit_status, Code}} -> {Code, iolist_to_binary(Acc)}
    end.

tmp_dir() ->
    case os:getenv("TMPDIR") of
        false -> "/tmp";
        Dir -> Dir
    end.

%% The `command` of the manifest's [start] table.
start_command() ->
    {ok, Toml} = file:read_file("concur.toml"),
    {match, [Command]} = re:run(Toml, "\\[start\\]\\s*command\\s*=\\s*\"([^\"]*)\"",
                                [{capture, all_but_first, list}]),
    Command.

%% --- a JSON decoder for the result line (OTP 25 has no json module) ------

decode(Bin) ->
    {Value, Rest} = value(skip(Bin)),
    <<>> = skip(Rest),
    Value.

value(<<${, Rest/binary>>) -> members(skip(Rest), #{});
value(<<$", Rest/binary>>) -> string(Rest);
value(<<"true", Rest/binary>>) -> {true, Rest};
value(<<"false", Rest/binary>>) -> {false, Rest};
value(<<"null", Rest/binary>>) -> {null, Rest};
value(Bin) -> number(Bin).

members(<<$}, Rest/binary>>, Map) when map_size(Map) =:= 0 -> {Map, Rest};
members(<<$", Bin/binary>>, Map) ->
    {Key, <<$:, AfterColon/binary>>} = string(Bin),
    {Value, AfterValue} = value(skip(AfterColon)),
    false = maps:is_key(Key, Map),
    case skip(AfterValue) of
        <<$,, Rest/binary>> -> members(skip(Rest), Map#{Key => Value});
        <<$}, Rest/binary>> -> {Map#{Key => Value}, Rest}
    end.

string(Bin) ->
    [String, Rest] = binary:split(Bin, <<"\"">>),
    nomatch = binary:match(String, <<"\\">>),
    {String, Rest}.

number(Bin) ->
    {match, [Text]} = re:run(Bin, "^-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][-+]?[0-9]+)?",
                             [{capture, first, binary}]),
    Rest = binary:part(Bin, byte_size(Text), byte_size(Bin) - byte_size(Text)),
    Number = case re:run(Text, "[.eE]") of
                 nomatch -> binary_to_integer(Text);
                 _ -> float_from(Text)
             end,
    {Number, Rest}.

float_from(Text) ->
    try binary_to_float(Text)
    catch error:badarg -> binary_to_float(re:replace(Text, "([eE])", ".0\\1", [{return, binary}]))
    end.

skip(<<C, Rest/binary>>) when C =:= $\s; C =:= $\t; C =:= $\n; C =:= $\r -> skip(Rest);
skip(Bin) -> Bin.

%% Regression for "B expected GO, got Parcel" (spec §4.1): each side of
%% pingping starts on its own go, and A's message 1 may reach B before it.
pingping_sides_start_on_their_own_go_test() ->
    Main = self(),
    A = spawn_link(fun() -> micro_latency:exchanger("A", Main, 100, 50, false) end),
    B = spawn_link(fun() -> micro_latency:exchanger("B", Main, 100, 50, false) end),
    [receive {ready, Pid} -> ok end || Pid <- [A, B]],
    A ! {go, B},
    ?assert(wait_for_messages(B, 1, 5000)),
    receive {done, _, _} -> ?assert(false) after 100 -> ok end,
    ?assertEqual({message_queue_len, 1}, erlang:process_info(B, message_queue_len)),
    B ! {go, A},
    ?assertEqual([50, 50], [receive {done, Pid, N} -> N end || Pid <- [A, B]]).

wait_for_messages(Pid, N, Ms) ->
    case erlang:process_info(Pid, message_queue_len) of
        {message_queue_len, N} -> true;
        _ when Ms =< 0 -> false;
        _ -> timer:sleep(1), wait_for_messages(Pid, N, Ms - 1)
    end.

%% spec §4.5: a run in which no pair completed a round trip is a result.
pairs_with_no_round_trip_print_zeros_test() ->
    Line = iolist_to_binary(micro_result:to_json(
        (micro_pairs:result(2, 0.001, 1500000, [{0, 0}, {0, 0}]))#{bench => pairs})),
    Result = decode(Line),
    [?assertEqual({Field, 0}, {Field, maps:get(Field, Result)})
     || Field <- [<<"ops">>, <<"round_trips">>, <<"messages">>, <<"min_pair_round_trips">>]],
    ?assertEqual(0.0, float(maps:get(<<"ns_per_op">>, Result))),
    ?assertEqual(0.0, float(maps:get(<<"messages_per_s">>, Result))),
    ?assertEqual(#{<<"received">> => 0, <<"expected">> => 0}, maps:get(<<"checks">>, Result)).

%% --- supervised (spec §4.7) ----------------------------------------------

%% Kills at 1000% of the 16 processes a second: about 80 in half a second,
%% some on a pair still restarting. Every kill is replaced (the restart
%% figures are measured, so above 0), some of them perhaps only after the
%% stop (late_restarts), and the run can only end because every pair
%% stopped: its current A completed a round trip after the stop flag, or
%% was a replacement that first ran after it.
supervised_with_kills_test_() ->
    {timeout, 60, fun() ->
        {0, Stdout, <<>>} = run("supervised --pairs 8 --seconds 0.5 --kill-rate 1000 --cores 2"),
        R = supervised_line(Stdout),
        #{<<"kills">> := Kills, <<"lost">> := Lost, <<"round_trips">> := RoundTrips,
          <<"restart_p50_ns">> := P50, <<"restart_p99_ns">> := P99, <<"late_restarts">> := Late} = R,
        ?assertEqual(#{<<"pairs">> => 8, <<"seconds">> => 0.5, <<"kill_rate">> => 1000,
                       <<"cores">> => 2}, maps:get(<<"params">>, R)),
        ?assert(Kills > 0 andalso Kills < 80),
        ?assert(Lost =< Kills),
        ?assert(is_integer(Late) andalso 0 =< Late andalso Late =< Kills),
        ?assert(0 < P50 andalso P50 =< P99),
        ?assert(RoundTrips > 0)
    end}.

supervised_without_kills_loses_nothing_test_() ->
    {timeout, 60, fun() ->
        {0, Stdout, <<>>} = run("supervised --pairs 4 --seconds 0.2 --kill-rate 0 --cores 1"),
        R = supervised_line(Stdout),
        ?assertMatch(#{<<"kills">> := 0, <<"lost">> := 0, <<"late_restarts">> := 0,
                       <<"restart_p50_ns">> := 0, <<"restart_p99_ns">> := 0}, R),
        ?assert(maps:get(<<"round_trips">>, R) > 0)
    end}.

%% The line's own arithmetic, as concur checks it.
supervised_line(Stdout) ->
    [Line, <<>>] = binary:split(Stdout, <<"\n">>),
    R = #{<<"ops">> := Ops, <<"elapsed_ns">> := Elapsed, <<"round_trips">> := RoundTrips,
          <<"messages">> := Messages, <<"lost">> := Lost,
          <<"checks">> := #{<<"received">> := Received, <<"expected">> := Expected}} = decode(Line),
    ?assertEqual(RoundTrips, Ops),
    ?assertEqual(Received, Messages),
    ?assertEqual(Expected, Received + Lost),
    ?assert(abs(maps:get(<<"ns_per_op">>, R) - Elapsed / Ops) < 0.001),
    ?assert(abs(maps:get(<<"messages_per_s">>, R) - Messages / (Elapsed / 1.0e9)) < 0.001),
    R.

%% One process of a pair killed by hand: its supervisor ends the other and
%% starts both again, new processes that report as restarts, while the
%% other pair keeps its processes. The new A needs no go and starts again
%% from ping 1 (its new B checks that), and the new pair exchanges.
a_pair_killed_in_one_role_restarts_as_a_whole_test() ->
    logger:set_module_level(supervisor, none), % the report of the kill
    Counts = counters:new(8, []),
    Phase = atomics:new(1, []),
    Env = #{main => self(), killer => self(), counts => Counts, phase => Phase,
            holders => ets:new(holders, [public]), drop_one => false},
    {ok, Top, Sups} = micro_supervised:start_tree(2, 10, Env),
    Old = maps:from_list([receive {ready, I, Role, Pid} -> {{I, Role}, Pid} end
                          || _ <- lists:seq(1, 4)]),
    atomics:put(Phase, 1, 1),
    [maps:get({I, a}, Old) ! go || I <- [0, 1]],
    Watch = [monitor(process, maps:get({0, Role}, Old)) || Role <- [a, b]],

    exit(maps:get({0, b}, Old), kill),
    [receive {'DOWN', Ref, process, _, Why} -> ?assertEqual(killed, Why) after 5000 -> error(alive) end
     || Ref <- Watch],
    New = maps:from_list([receive {started, 0, Role, Pid, _T, false} -> {Role, Pid} after 5000 -> error(not_restarted) end
                          || _ <- [a, b]]),
    [?assertNotEqual(maps:get({0, Role}, Old), maps:get(Role, New)) || Role <- [a, b]],
    [?assertEqual(maps:get(Role, New), micro_supervised:holder(element(1, Sups), Role)) || Role <- [a, b]],
    [?assertEqual(maps:get({1, Role}, Old), micro_supervised:holder(element(2, Sups), Role)) || Role <- [a, b]],
    Before = counters:get(Counts, 4),
    timer:sleep(50),
    ?assert(counters:get(Counts, 4) > Before),

    atomics:put(Phase, 1, 2),
    [receive {stopped, I} -> ok after 5000 -> error({not_stopped, I}) end || I <- [0, 1]],
    ok = gen_server:stop(Top),
    logger:unset_module_level(supervisor).

%% A pair whose replacements first run after the stop (its supervisor held
%% back until then): both report their start as late and end at once, the
%% late A tells main that its pair stopped, and the supervisor does not start
%% them again (transient children, normal exits). The other pair stops at
%% its next round trip.
a_replacement_that_runs_after_the_stop_ends_at_once_test() ->
    logger:set_module_level(supervisor, none),
    Phase = atomics:new(1, []),
    Env = #{main => self(), killer => self(), counts => counters:new(8, []), phase => Phase,
            holders => ets:new(holders, [public]), drop_one => false},
    {ok, Top, Sups} = micro_supervised:start_tree(2, 10, Env),
    Old = maps:from_list([receive {ready, I, Role, Pid} -> {{I, Role}, Pid} end
                          || _ <- lists:seq(1, 4)]),
    atomics:put(Phase, 1, 1),
    [maps:get({I, a}, Old) ! go || I <- [0, 1]],

    Sup = element(1, Sups),
    erlang:suspend_process(Sup),
    Ref = monitor(process, maps:get({0, a}, Old)),
    exit(maps:get({0, a}, Old), kill),
    receive {'DOWN', Ref, process, _, killed} -> ok after 5000 -> error(alive) end,
    atomics:put(Phase, 1, 2),
    erlang:resume_process(Sup),

    Late = [receive {started, 0, Role, Pid, _T, Late} -> {Role, Pid, Late} after 5000 -> error(not_restarted) end
            || _ <- [a, b]],
    ?assertEqual([{a, true}, {b, true}], lists:sort([{Role, L} || {Role, _, L} <- Late])),
    Stopped = lists:sort([receive {stopped, I} -> I after 5000 -> error({not_stopped, I}) end
                          || I <- [0, 1]]),
    ?assertEqual([0, 1], Stopped),
    [begin
         M = monitor(process, Pid),
         receive {'DOWN', M, process, _, Why} -> ?assert(Why =:= normal orelse Why =:= noproc)
         after 5000 -> error({still_running, Role}) end
     end || {Role, Pid, _} <- Late],
    ?assertEqual([{a, undefined}, {b, undefined}],
                 lists:sort([{Role, Pid} || {Role, Pid, worker, _} <- supervisor:which_children(Sup)])),
    receive {started, _, _, _, _, _} = Again -> error({started_again, Again}) after 100 -> ok end,
    ok = gen_server:stop(Top),
    logger:unset_module_level(supervisor).

%% The program's own check (spec §4.7): at most one message lost per kill,
%% none without a kill.
supervised_checks_lost_against_kills_test_() ->
    Line = fun(Totals, Kills) ->
               micro_supervised:result(#{pairs => 1, seconds => 1, kill_rate => 5}, 1000000000,
                                       Totals, [{N, false} || N <- lists:seq(1, Kills)])
           end,
    [?_assertEqual(ok, micro_result:verify(Line({10, 10, 10, 10}, 0))),
     ?_assertEqual(ok, micro_result:verify(Line({11, 10, 10, 10}, 1))),
     ?_assertMatch({error, _}, micro_result:verify(Line({11, 10, 10, 10}, 0))),
     ?_assertMatch({error, _}, micro_result:verify(Line({11, 10, 11, 10}, 1))),
     ?_assertMatch(#{ops := 10, round_trips := 10, messages := 20, lost := 1, kills := 1,
                     late_restarts := 0, checks := #{received := 20, expected := 21}},
                   Line({11, 10, 10, 10}, 1))].

%% late_restarts counts the kills whose replacement first ran after the stop;
%% the latencies are all the kills', late or not (sorted for the percentiles).
supervised_counts_late_restarts_test() ->
    R = micro_supervised:result(#{pairs => 1, seconds => 1, kill_rate => 5}, 1000000000,
                                {13, 10, 10, 10}, [{30, true}, {10, false}, {20, true}]),
    ?assertMatch(#{kills := 3, late_restarts := 2, lost := 3,
                   restart_p50_ns := 20, restart_p99_ns := 30}, R).

%% Kills and starts of one role, both ascending: each kill is replaced by
%% the first start after it, which may replace several kills (a kill that
%% hit a process its pair's supervisor was already ending), and is late when
%% that start was.
each_kill_is_replaced_by_the_first_start_after_it_test_() ->
    [?_assertEqual([{5, false}, {15, true}, {5, true}],
                   micro_supervised:restarts([10, 20, 30], [{5, false}, {15, false}, {35, true}])),
     ?_assertEqual([{5, true}, {3, true}],
                   micro_supervised:restarts([10, 12], [{1, false}, {15, true}, {16, true}])),
     ?_assertEqual([], micro_supervised:restarts([], [{1, false}]))].

restart_latency_is_the_nearest_rank_test_() ->
    Hundred = lists:seq(1, 100),
    [?_assertEqual(0, micro_supervised:percentile(50, [])),
     ?_assertEqual(7, micro_supervised:percentile(99, [7])),
     ?_assertEqual(1, micro_supervised:percentile(50, [1, 2])),
     ?_assertEqual(2, micro_supervised:percentile(99, [1, 2])),
     ?_assertEqual(50, micro_supervised:percentile(50, Hundred)),
     ?_assertEqual(99, micro_supervised:percentile(99, Hundred)),
     ?_assertEqual(100, micro_supervised:percentile(99, lists:seq(1, 101)))].
