%% supervised (spec/MICRO.md §4.7): the pairs of §4.5 under OTP supervision
%% while a killer ends processes with exit(Pid, kill) at a set rate.
%%
%% The tree is OTP's own: a one_for_all supervisor per pair, children B and
%% A, under a one_for_one top supervisor. When either process of a pair dies
%% the pair's supervisor kills the other and starts both again, so the new A
%% starts again from ping(1) with a new B and two fresh mailboxes.
%%
%% What survives a restart lives outside the processes: four counters per
%% pair (the `counters` module), a table of the process that holds each role
%% now, and the restart times, which every restarted process sends to the
%% killer.
%%
%% The end of the run: main stops the killer, then stops every pair (a flag),
%% and only then waits for the pairs and for the replacements. A replacement
%% that first runs after the stop reports its start and ends at once (a late
%% restart); being `transient`, it is not started again.
-module(micro_supervised).
-behaviour(supervisor).
-export([supervised/1]).
%% The supervisor callback and the children's start functions.
-export([init/1, start_echoer/1, start_initiator/1]).
%% For the tests: the tree without the run, and the figures from counts.
-export([start_tree/3, holder/2, restarts/2, percentile/2, result/4]).

%% A pair's four counters, at 4I + 1 … 4I + 4 of one counters array.
-define(PINGS_SENT, 1).
-define(PINGS_RECEIVED, 2).
-define(PONGS_SENT, 3).
-define(PONGS_RECEIVED, 4).

%% The run's phase, one atomic that every generation of every pair reads.
-define(STARTING, 0). % before t0: a process that starts is of the first generation
-define(RUNNING, 1).  % a process that starts is a restart
-define(STOPPING, 2). % after D: every A stops at its next round trip

supervised(#{pairs := P, seconds := Seconds, kill_rate := KillRate, drop_one := DropOne}) ->
    Main = self(),
    %% K percent of the 2P processes a second: kill j is due at t0 + j/Rate
    %% s for every j with j/Rate < D.
    Rate = KillRate / 100 * 2 * P,
    Scheduled = case Rate > 0 of
                    true -> ceil(Rate * Seconds) - 1;
                    false -> 0
                end,
    Killer = spawn_opt(fun() -> killer(Main) end, [{priority, high}]),
    Counts = counters:new(4 * P, []),
    Phase = atomics:new(1, []),
    Holders = ets:new(holders, [public]),
    Env = #{main => Main, killer => Killer, counts => Counts, phase => Phase,
            holders => Holders, drop_one => DropOne},
    %% The killer's kills are the point of the run, not news: its own
    %% reports, one per kill, would flood stderr (any other report still
    %% goes there).
    ok = logger:add_primary_filter(expected_kills, {fun drop_kill_reports/2, []}),

    %% Each pair may restart as often as the killer can kill in the whole
    %% run, so no kill rate can reach the limit, however the kills fall.
    {ok, Top, _Sups} = start_tree(P, Scheduled, Env),
    As = await_ready(2 * P, #{}),

    atomics:put(Phase, 1, ?RUNNING),
    T0 = micro:now_ns(),
    [A ! go || A <- maps:values(As)],
    Killer ! {go, T0, Rate, Scheduled, P, Holders, Top},
    receive after round(Seconds * 1000) -> ok end,
    %% Stop the killer (it answers once it will kill no more), then every
    %% pair, and only then wait: for each pair to stop and for every kill's
    %% replacement to have run, before or after the stop.
    Killer ! {stop, Main},
    receive {halted, Killer} -> ok end,
    atomics:put(Phase, 1, ?STOPPING),
    await_end(P, false, #{}),
    T1 = micro:now_ns(),

    ok = gen_server:stop(Top),
    Killer ! {report, Main},
    Restarts = receive {report, Killer, R} -> R end,
    Totals = [lists:sum([counters:get(Counts, 4 * I + C) || I <- lists:seq(0, P - 1)])
              || C <- [?PINGS_SENT, ?PINGS_RECEIVED, ?PONGS_SENT, ?PONGS_RECEIVED]],
    result(#{pairs => P, seconds => Seconds, kill_rate => KillRate}, T1 - T0,
           list_to_tuple(Totals), Restarts).

%% After the stop: every pair has stopped (its A said so: the A that saw the
%% flag, or a replacement A that first ran after it) and the killer has seen
%% every kill's replacement run. A pair can say so twice (its A stopped, then a
%% kill sent before the stop landed on one of its processes and its late
%% replacement A said it again), so the pairs are a set, not a count.
await_end(P, true, Stopped) when map_size(Stopped) =:= P ->
    ok;
await_end(P, Replaced, Stopped) ->
    receive
        {stopped, I} -> await_end(P, Replaced, Stopped#{I => true});
        {replaced, _Killer} -> await_end(P, true, Stopped)
    end.

%% The first generation says it is ready; main collects the As to send go.
await_ready(0, As) ->
    As;
await_ready(N, As) ->
    receive
        {ready, I, a, Pid} -> await_ready(N - 1, As#{I => Pid});
        {ready, _, b, _} -> await_ready(N - 1, As)
    end.

%% --- the tree ----------------------------------------------------------

%% The top supervisor with P pair supervisors, each with its B and its A,
%% all started when this returns; Sups holds pair I's supervisor at I + 1.
start_tree(P, Intensity, Env) ->
    {ok, Top} = supervisor:start_link(?MODULE, {top, P, Intensity, Env}),
    Pairs = lists:sort([{I, Sup} || {I, Sup, supervisor, _} <- supervisor:which_children(Top)]),
    {ok, Top, list_to_tuple([Sup || {_, Sup} <- Pairs])}.

%% A pair supervisor never gives up within the run (its intensity is every
%% kill the run can make), so the top one gives up at once if one did
%% (intensity 0): the killer, watching the top, then fails the run rather
%% than let it measure a tree that gave up.
init({top, P, Intensity, Env}) ->
    Pairs = [#{id => I,
               start => {supervisor, start_link, [?MODULE, {pair, I, Intensity, Env}]},
               type => supervisor}
             || I <- lists:seq(0, P - 1)],
    {ok, {#{strategy => one_for_one, intensity => 0, period => 1}, Pairs}};
%% The pair: B first, so that A finds it when it asks. `transient`: a kill
%% (reason killed) restarts the pair, the stop at the end (reason normal)
%% does not. `brutal_kill`: the partner holds nothing to clean up.
init({pair, I, Intensity, Env}) ->
    Pair = Env#{i => I, sup => self()},
    Child = fun(Role, Start) ->
                #{id => Role, start => {?MODULE, Start, [Pair]},
                  restart => transient, shutdown => brutal_kill}
            end,
    {ok, {#{strategy => one_for_all, intensity => Intensity, period => 1},
          [Child(b, start_echoer), Child(a, start_initiator)]}}.

%% The process that holds Role in a pair now, as its supervisor knows it.
holder(Sup, Role) ->
    {Role, Pid, worker, _} = lists:keyfind(Role, 1, supervisor:which_children(Sup)),
    Pid.

%% --- the pair ----------------------------------------------------------

start_initiator(Pair) ->
    {ok, proc_lib:spawn_link(fun() -> initiator(Pair) end)}.

start_echoer(Pair) ->
    {ok, proc_lib:spawn_link(fun() -> echoer(Pair) end)}.

%% A learns its B from their supervisor, which answers once it has started
%% both. The first A waits for go; a restarted one starts at once; one that
%% first runs after the stop ends at once, and stops its pair: it tells main,
%% and tells the B in the table to stop in case that one started before the
%% stop (a B that has not run yet will see the flag itself; the one_for_all
%% restart ended the old B before it started this A).
initiator(Pair = #{i := I, sup := Sup, main := Main, counts := Counts, phase := Phase,
                   holders := Holders}) ->
    T = micro:now_ns(),
    case announce(Pair, a, T) of
        first ->
            B = holder(Sup, b),
            receive go -> ok end,
            rally(Main, I, B, self(), Counts, 4 * I, Phase, 1);
        restart ->
            rally(Main, I, holder(Sup, b), self(), Counts, 4 * I, Phase, 1);
        late ->
            ets:lookup_element(Holders, {I, b}, 2) ! stop,
            Main ! {stopped, I}
    end.

%% As in pairs, with the counters around the messages: a ping is counted
%% sent before it goes, a pong received once its number is checked. After
%% each round trip one look at the phase. The stop is a flag that every
%% generation reads (§4.7 allows it), not a message as in pairs: a message
%% would need the pid of the A current at that moment, which after a restart
%% only the pair's supervisor knows for sure (one which_children call per
%% pair, each waiting for the supervisor's turn behind the busy pairs).
rally(Main, I, B, Self, Counts, Slot, Phase, K) ->
    counters:add(Counts, Slot + ?PINGS_SENT, 1),
    B ! {ping, Self, K},
    receive
        {pong, K} -> counters:add(Counts, Slot + ?PONGS_RECEIVED, 1);
        {pong, Got} -> micro:fail("supervised: pair ~b expected pong ~b, got ~b", [I, K, Got])
    end,
    case atomics:get(Phase, 1) of
        ?STOPPING ->
            B ! stop,
            Main ! {stopped, I};
        _ ->
            rally(Main, I, B, Self, Counts, Slot, Phase, K + 1)
    end.

%% A B that first runs after the stop ends at once.
echoer(Pair = #{i := I, counts := Counts, drop_one := DropOne}) ->
    T = micro:now_ns(),
    case announce(Pair, b, T) of
        late ->
            ok;
        Generation ->
            Generation =:= first andalso DropOne andalso I =:= 0
                andalso receive {ping, _, _} -> dropped end,
            echo(I, Counts, 4 * I, 0)
    end.

echo(I, Counts, Slot, Received) ->
    receive
        {ping, From, K} when K =:= Received + 1 ->
            counters:add(Counts, Slot + ?PINGS_RECEIVED, 1),
            counters:add(Counts, Slot + ?PONGS_SENT, 1),
            From ! {pong, K},
            echo(I, Counts, Slot, K);
        {ping, _From, K} ->
            micro:fail("supervised: pair ~b expected ping ~b, got ~b", [I, Received + 1, K]);
        stop ->
            ok
    end.

%% A process enters itself in the holders table, where the killer looks it
%% up: asking the supervisor (which_children) would make every kill wait for
%% the supervisor's turn behind the busy pairs, and the killer fall behind
%% its schedule. Before t0 a process is of the first generation and tells
%% main it is ready; after, it is a restart and tells the killer when it
%% first ran (T, its first clock read) and whether that was after the stop
%% (late: it will end at once).
announce(#{i := I, phase := Phase, main := Main, killer := Killer, holders := Holders}, Role, T) ->
    true = ets:insert(Holders, {{I, Role}, self()}),
    case atomics:get(Phase, 1) of
        ?STARTING -> Main ! {ready, I, Role, self()}, first;
        ?RUNNING -> Killer ! {started, I, Role, self(), T, false}, restart;
        ?STOPPING -> Killer ! {started, I, Role, self(), T, true}, late
    end.

%% --- the killer --------------------------------------------------------

killer(Main) ->
    receive
        {go, T0, Rate, Scheduled, P, Holders, Top} ->
            kill(#{main => Main, t0 => T0, rate => Rate, last => Scheduled, j => 1,
                   pairs => P, holders => Holders, rand => rand:seed_s(exsss, 2018),
                   top => monitor(process, Top), aimed => #{}, kills => [], starts => #{},
                   last_kill => #{}, last_start => #{}})
    end.

%% Kill j when it is due; meanwhile note what the kills hit and the restarts
%% as they report. `receive after` sleeps in milliseconds, so when kills are
%% due faster than that, the late ones go at once, one after another. After
%% the last kill the killer only listens.
kill(S = #{main := Main, top := Top, t0 := T0, rate := Rate, j := J, last := Last}) ->
    Timeout = case J > Last of
                  true -> infinity;
                  false -> max(0, ceil((T0 + round(J * 1.0e9 / Rate) - micro:now_ns()) / 1.0e6))
              end,
    receive
        {started, I, Role, _Pid, T, Late} ->
            kill(started({I, Role}, {T, Late}, S));
        {'DOWN', Top, process, _, Reason} ->
            micro:fail("supervised: the supervision tree shut down (~p)", [Reason]);
        {'DOWN', Ref, process, _, Reason} ->
            kill(hit(Ref, Reason, S));
        {stop, Main} ->
            demonitor(Top, [flush]),
            Main ! {halted, self()},
            await_hits(S)
    after Timeout ->
        kill(kill_one(S#{j := J + 1}))
    end.

%% A uniformly random pair and role, and the process that holds it now. The
%% monitor tells, without the killer waiting, whether the kill found the
%% process running. t_kill comes first: a process that the monitor finds
%% running is replaced after it.
kill_one(S = #{pairs := P, holders := Holders, rand := Rand, aimed := Aimed}) ->
    {N, Rand1} = rand:uniform_s(2 * P, Rand),
    Key = {(N - 1) div 2, element(N rem 2 + 1, {b, a})}, % {pair, role}
    Pid = ets:lookup_element(Holders, Key, 2),
    TKill = micro:now_ns(),
    Ref = monitor(process, Pid),
    exit(Pid, kill),
    S#{rand := Rand1, aimed := Aimed#{Ref => {Key, TKill}}}.

%% A kill counts when it ended its process (reason `killed`). `noproc`: the
%% table still named a process that had ended, its pair being restarted (its
%% replacement had not run yet), and the kill is skipped. `normal`: a kill
%% made just before the stop reached a process that had already seen the
%% stop and ended (the kill signal and the flag race), which is not
%% restarted and is skipped too.
hit(Ref, Reason, S = #{aimed := Aimed, kills := Kills, last_kill := LastKill}) ->
    case maps:take(Ref, Aimed) of
        {Kill = {Key, TKill}, Aimed1} when Reason =:= killed ->
            S#{aimed := Aimed1, kills := [Kill | Kills],
               last_kill := LastKill#{Key => max(TKill, maps:get(Key, LastKill, TKill))}};
        {_, Aimed1} ->
            S#{aimed := Aimed1}
    end.

started(Key, Start = {T, _Late}, S = #{starts := Starts, last_start := LastStart}) ->
    S#{starts := maps:update_with(Key, fun(Ts) -> [Start | Ts] end, [Start], Starts),
       last_start := LastStart#{Key => max(T, maps:get(Key, LastStart, T))}}.

%% After D (main sets the stop flag meanwhile): wait until every kill is
%% known to have hit or missed, then until each hit's replacement has run
%% (for each role, one start after its last kill), tell main, and once the
%% tree is down (every start reported) hand over the restart times.
await_hits(S = #{aimed := Aimed}) when map_size(Aimed) > 0 ->
    receive
        {'DOWN', Ref, process, _, Reason} when is_map_key(Ref, Aimed) ->
            await_hits(hit(Ref, Reason, S));
        {started, I, Role, _Pid, T, Late} ->
            await_hits(started({I, Role}, {T, Late}, S))
    end;
await_hits(S = #{last_kill := LastKill}) ->
    await_replacements(maps:to_list(LastKill), S).

await_replacements(LastKills, S = #{main := Main, last_start := LastStart}) ->
    case [Last || Last = {Key, TKill} <- LastKills, maps:get(Key, LastStart, TKill) =< TKill] of
        [] ->
            Main ! {replaced, self()},
            receive {report, Main} -> Main ! {report, self(), latencies(S)} end;
        Waiting ->
            receive
                {started, I, Role, _Pid, T, Late} ->
                    await_replacements(Waiting, started({I, Role}, {T, Late}, S))
            end
    end.

%% The replacement of a kill is the first process in that role of that pair
%% that runs after it: its first clock read is the end of the restart. (The
%% killed process read the clock before it entered itself in the table, so
%% before t_kill.) One {Latency, Late} per kill, Late when that process first
%% ran after the stop.
latencies(S) ->
    receive
        {started, I, Role, _Pid, T, Late} -> latencies(started({I, Role}, {T, Late}, S))
    after 0 ->
        #{kills := Kills, starts := Starts} = S,
        ByKey = maps:groups_from_list(fun({Key, _}) -> Key end, fun({_, TKill}) -> TKill end, Kills),
        lists:append([restarts(lists:sort(TKills), lists:sort(maps:get(Key, Starts)))
                      || {Key, TKills} <- maps:to_list(ByKey)])
    end.

%% Kill times and starts {T, Late}, both ascending: each kill's latency is to
%% the first start after it, late if that start was.
restarts([], _Starts) ->
    [];
restarts(Kills = [TKill | _], [{T, _} | Starts]) when T =< TKill ->
    restarts(Kills, Starts);
restarts([TKill | Kills], Starts = [{T, Late} | _]) ->
    [{T - TKill, Late} | restarts(Kills, Starts)].

%% A supervisor report per kill is what the killer asked for.
drop_kill_reports(#{msg := {report, #{label := {supervisor, child_terminated}, report := Report}}}, _) ->
    case proplists:get_value(reason, Report) of
        killed -> stop;
        _ -> ignore
    end;
drop_kill_reports(_, _) ->
    ignore.

%% --- the result --------------------------------------------------------

%% Nearest rank: the smallest value with at least Pct percent of them at or
%% below it. 0 when there is none (no kill).
percentile(_Pct, []) ->
    0;
percentile(Pct, Sorted) ->
    lists:nth(max(1, ceil(Pct * length(Sorted) / 100)), Sorted).

%% Every kill has one restart {Latency, Late}, so Restarts counts them.
result(Params, Elapsed, {PingsSent, PingsReceived, PongsSent, PongsReceived}, Restarts) ->
    Latencies = lists:sort([Latency || {Latency, _} <- Restarts]),
    RoundTrips = PongsReceived,
    Messages = PingsReceived + PongsReceived,
    Sent = PingsSent + PongsSent,
    Result = micro_result:new(Params, RoundTrips, Elapsed, Messages, Sent),
    Result#{round_trips => RoundTrips,
            messages => Messages,
            messages_per_s => Messages / (Elapsed / 1.0e9),
            kills => length(Latencies),
            lost => Sent - Messages,
            restart_p50_ns => percentile(50, Latencies),
            restart_p99_ns => percentile(99, Latencies),
            late_restarts => length([late || {_, true} <- Restarts])}.
