%% The result line of spec/MICRO.md §7: a map built by each benchmark, the
%% final count check of §3.1, and a JSON encoder for the few types it holds
%% (OTP 25 has no json module).
-module(micro_result).
-export([new/5, verify/1, to_json/1, number/1]).

%% The fields every benchmark has; ns_per_op is elapsed/ops unless the
%% benchmark overrides it, and 0 when no op completed (pairs with no round
%% trip, spec §4.5): JSON has no infinity. main adds `bench`.
new(Params, Ops, ElapsedNs, Received, Expected) ->
    #{schema => 1,
      runtime => <<"erlang">>,
      params => Params#{cores => erlang:system_info(schedulers_online)},
      ops => Ops,
      elapsed_ns => ElapsedNs,
      ns_per_op => case Ops of 0 -> 0.0; _ -> ElapsedNs / Ops end,
      checks => #{received => Received, expected => Expected}}.

%% supervised (spec §4.7) loses messages by design, one at most per kill;
%% without a kill it must lose none.
verify(#{kills := Kills, lost := Lost, checks := #{received := Received, expected := Expected}}) ->
    if
        Received + Lost =/= Expected ->
            {error, io_lib:format("received ~b messages and lost ~b, but ~b were sent",
                                  [Received, Lost, Expected])};
        Lost > Kills ->
            {error, io_lib:format("lost ~b messages (sent ~b, received ~b) but made only ~b kills",
                                  [Lost, Expected, Received, Kills])};
        true ->
            ok
    end;
verify(#{checks := #{received := Same, expected := Same}}) ->
    ok;
verify(#{checks := #{received := Received, expected := Expected}}) ->
    {error, io_lib:format("received ~b messages, expected ~b", [Received, Expected])}.

to_json(Map) when is_map(Map) ->
    Fields = [[string(Key), $:, to_json(Value)] || {Key, Value} <- lists:sort(maps:to_list(Map))],
    [${, lists:join($,, Fields), $}];
to_json(Value) when is_atom(Value); is_binary(Value) ->
    string(Value);
to_json(Value) when is_number(Value) ->
    number(Value).

%% Keys and values are our own ASCII names: nothing to escape.
string(Atom) when is_atom(Atom) -> [$", atom_to_binary(Atom), $"];
string(Bin) when is_binary(Bin) -> [$", Bin, $"].

%% Plain decimals, never an exponent; ten decimals echo a parameter such as
%% --kill-rate 0.00001 exactly and keep every rate to concur's millionth.
number(N) when is_integer(N) -> integer_to_binary(N);
number(F) when is_float(F) -> float_to_binary(F, [{decimals, 10}, compact]).
