%% pairs (spec/MICRO.md §4.5): P pairs of processes bouncing an integer for
%% D seconds; main stops them with a stop message in each initiator's mailbox.
-module(micro_pairs).
-export([pairs/1]).
%% For the tests: the result line of counts no run from outside can force.
-export([result/4]).

pairs(#{pairs := P, seconds := Seconds, drop_one := DropOne}) ->
    Main = self(),
    Pairs = [start_pair(Main, I, DropOne andalso I =:= 0) || I <- lists:seq(0, P - 1)],
    micro:await_ready(lists:append([[A, B] || {A, B} <- Pairs])),

    T0 = micro:now_ns(),
    [A ! go || {A, _} <- Pairs],
    receive after round(Seconds * 1000) -> ok end,
    [A ! stop || {A, _} <- Pairs],
    Counts = [{receive {initiated, I, RT} -> RT end,
               receive {echoed, I, Pings} -> Pings end} || I <- lists:seq(0, P - 1)],
    T1 = micro:now_ns(),

    result(P, Seconds, T1 - T0, Counts).

start_pair(Main, I, DropOne) ->
    B = spawn(fun() -> echoer(Main, I, DropOne) end),
    A = spawn(fun() -> initiator(Main, I, B) end),
    {A, B}.

initiator(Main, I, B) ->
    Main ! {ready, self()},
    receive go -> ok end,
    rally(Main, I, B, self(), 1).

%% One round trip, then one look for stop: `after 0` makes it a poll, and the
%% pong has just been taken out, so the mailbox is normally empty.
rally(Main, I, B, Self, K) ->
    B ! {ping, Self, K},
    receive
        {pong, K} -> ok;
        {pong, Got} -> micro:fail("pairs: pair ~b expected pong ~b, got ~b", [I, K, Got])
    end,
    receive
        stop ->
            B ! stop,
            Main ! {initiated, I, K}
    after 0 ->
        rally(Main, I, B, Self, K + 1)
    end.

echoer(Main, I, DropOne) ->
    Main ! {ready, self()},
    DropOne andalso receive {ping, _, _} -> dropped end,
    echo(Main, I, 0).

echo(Main, I, Received) ->
    receive
        {ping, From, K} when K =:= Received + 1 ->
            From ! {pong, K},
            echo(Main, I, K);
        {ping, _From, K} ->
            micro:fail("pairs: pair ~b expected ping ~b, got ~b", [I, Received + 1, K]);
        stop ->
            Main ! {echoed, I, Received}
    end.

result(P, Seconds, Elapsed, Counts) ->
    [micro:fail("pairs: pair ~b made ~b round trips but its echoer received ~b pings",
                [I, RT, Pings])
     || {I, {RT, Pings}} <- lists:zip(lists:seq(0, P - 1), Counts), RT =/= Pings],
    %% No round trip at all is a result too (spec §4.5): every count is 0.
    RoundTrips = lists:sum([RT || {RT, _} <- Counts]),
    Received = lists:sum([RT + Pings || {RT, Pings} <- Counts]),
    Result = micro_result:new(#{pairs => P, seconds => Seconds}, RoundTrips, Elapsed,
                              Received, 2 * RoundTrips),
    Result#{round_trips => RoundTrips,
            messages => 2 * RoundTrips,
            messages_per_s => 2 * RoundTrips / (Elapsed / 1.0e9),
            min_pair_round_trips => lists:min([RT || {RT, _} <- Counts])}.
