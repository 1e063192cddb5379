%% pingping and pingpong (spec/MICRO.md §4.1, §4.2): two processes, each
%% receiving from its own mailbox.
-module(micro_latency).
-export([pingping/1, pingpong/1, payload/2]).
%% For the tests: one side of pingping, started by a test acting as main.
-export([exchanger/5]).

%% pingping (IMB PingPing): A and B both send message k, then both receive
%% the other's message k. A BEAM mailbox is unbounded, so sending before
%% receiving never blocks.
pingping(#{size := Size, reps := Reps, drop_one := DropOne}) ->
    Main = self(),
    A = spawn(fun() -> exchanger("A", Main, Size, Reps, false) end),
    B = spawn(fun() -> exchanger("B", Main, Size, Reps, DropOne) end),
    micro:await_ready([A, B]),

    T0 = micro:now_ns(),
    A ! {go, B},
    B ! {go, A},
    ReceivedA = receive {done, A, NA} -> NA end,
    ReceivedB = receive {done, B, NB} -> NB end,
    T1 = micro:now_ns(),

    micro_result:new(#{size => Size, reps => Reps}, Reps, T1 - T0,
                     ReceivedA + ReceivedB, 2 * Reps).

%% Main's go (carrying the peer's pid) is this process's own message, but
%% the peer's message 1 may arrive before it (spec §4.1): the selective
%% receive takes go first and leaves {msg, 1, _} in the mailbox until then.
exchanger(Name, Main, Size, Reps, DropOne) ->
    Main ! {ready, self()},
    Peer = receive {go, P} -> P end,
    DropOne andalso receive {msg, _, _} -> dropped end,
    Received = exchange(Name, Peer, Size, Reps, 1, 0),
    Main ! {done, self(), Received}.

exchange(_Name, _Peer, _Size, Reps, K, Received) when K > Reps ->
    Received;
exchange(Name, Peer, Size, Reps, K, Received) ->
    Fill = K rem 251,
    Peer ! {msg, K, payload(Fill, Size)},
    receive
        {msg, Got, Payload} -> check(Name, K, Size, Fill, Got, Payload)
    end,
    exchange(Name, Peer, Size, Reps, K + 1, Received + 1).

%% A fresh binary for every message (spec §4.1 "fresh payload"). At 64
%% bytes or less it is a heap binary, which a send copies into the
%% receiver's heap. Above 64 bytes it is a reference-counted off-heap
%% binary: a send copies only the small ProcBin that points at it and shares
%% the bytes. Both are what the BEAM does with any binary; nothing here adds
%% or avoids a copy.
%%
%% binary:copy(<<Fill>>, Size) would be the one-liner, but it copies one
%% byte at a time (about 7 ns a byte: 35 us for 5 KiB, ten times the rest of
%% the exchange). So a 256-byte seed is built by doubling and binary:copy
%% repeats it with one memcpy per 256 bytes. Every byte is still written for
%% every message. The paper's sizes are multiples of 256; any other size
%% appends the rest, copying the body once more.
payload(Fill, Size) when Size =< 64 ->
    binary:copy(<<Fill>>, Size);
payload(Fill, Size) ->
    Seed = double(<<Fill>>, 8),
    Body = binary:copy(Seed, Size div 256),
    case Size rem 256 of
        0 -> Body;
        Rest -> <<Body/binary, Seed:Rest/binary>>
    end.

double(Bin, 0) -> Bin;
double(Bin, Times) -> double(<<Bin/binary, Bin/binary>>, Times - 1).

check(Name, K, Size, Fill, Got, Payload) ->
    if
        Got =/= K ->
            micro:fail("pingping: process ~s expected message ~b, got ~b", [Name, K, Got]);
        byte_size(Payload) =/= Size ->
            micro:fail("pingping: process ~s: message ~b has ~b bytes, expected ~b",
                       [Name, K, byte_size(Payload), Size]);
        true ->
            case {binary:first(Payload), binary:last(Payload)} of
                {Fill, Fill} -> ok;
                _ -> micro:fail("pingping: process ~s: message ~b is not filled with ~b",
                                [Name, K, Fill])
            end
    end.

%% pingpong (Savina PingPong): one round trip at a time, the ping carrying
%% the pinger's pid as Erlang's idiom has it.
pingpong(#{reps := Reps, drop_one := DropOne}) ->
    Main = self(),
    Ponger = spawn(fun() -> ponger(Main, DropOne) end),
    Pinger = spawn(fun() -> pinger(Main, Ponger, Reps) end),
    micro:await_ready([Ponger, Pinger]),

    T0 = micro:now_ns(),
    Pinger ! go,
    Pongs = receive {done, Pinger, NP} -> NP end,
    T1 = micro:now_ns(),

    Ponger ! stop,
    Pings = receive {stopped, Ponger, NQ} -> NQ end,
    micro_result:new(#{reps => Reps}, Reps, T1 - T0, Pings + Pongs, 2 * Reps).

pinger(Main, Ponger, Reps) ->
    Main ! {ready, self()},
    receive go -> ok end,
    Main ! {done, self(), ping(Ponger, self(), Reps, 1)}.

ping(_Ponger, _Self, Reps, K) when K > Reps ->
    Reps;
ping(Ponger, Self, Reps, K) ->
    Ponger ! {ping, Self, K},
    receive
        {pong, K} -> ping(Ponger, Self, Reps, K + 1);
        {pong, Got} -> micro:fail("pingpong: pinger expected pong ~b, got ~b", [K, Got])
    end.

ponger(Main, DropOne) ->
    Main ! {ready, self()},
    DropOne andalso receive {ping, _, _} -> dropped end,
    pong(Main, 0).

pong(Main, Received) ->
    receive
        {ping, From, K} when K =:= Received + 1 ->
            From ! {pong, K},
            pong(Main, K);
        {ping, _From, K} ->
            micro:fail("pingpong: ponger expected ping ~b, got ~b", [Received + 1, K]);
        stop ->
            Main ! {stopped, self(), Received}
    end.
