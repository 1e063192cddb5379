%% spawn, maxprocs and idle (spec/MICRO.md §4.3, §4.4, §4.6): many processes
%% alive at once, each costing its process control block, its heap and its
%% mailbox.
-module(micro_spawn).
-export([spawn_dormant/1, idle/1]).

%% spawn and maxprocs: N processes that acknowledge and then wait for stop.
spawn_dormant(#{procs := N, drop_one := DropOne}) ->
    Main = self(),
    Dormant = fun() -> Main ! ack, receive stop -> Main ! stopped end end,

    T0 = micro:now_ns(),
    Pids = spawn_n(N, Dormant, []),
    DropOne andalso receive ack -> dropped end,
    Acks = await(ack, N),
    T1 = micro:now_ns(),

    [Pid ! stop || Pid <- Pids],
    Stopped = await(stopped, N),
    Result = micro_result:new(#{procs => N}, N, T1 - T0, Acks + Stopped, 2 * N),
    Result#{procs => N, ns_per_proc => maps:get(ns_per_op, Result)}.

%% Main keeps the pids of dormant processes to stop them in teardown.
spawn_n(0, _Fun, Pids) ->
    Pids;
spawn_n(I, Fun, Pids) ->
    spawn_n(I - 1, Fun, [spawn_or_fail(Fun, I) | Pids]).

%% Idle tasks end by themselves: main keeps nothing.
spawn_n(0, _Fun) ->
    ok;
spawn_n(I, Fun) ->
    spawn_or_fail(Fun, I),
    spawn_n(I - 1, Fun).

%% The process limit (+P) raises system_limit, which we can catch (spec
%% §3.4); running out of memory aborts the VM and cannot be caught.
spawn_or_fail(Fun, Remaining) ->
    try
        spawn(Fun)
    catch
        error:system_limit ->
            micro:fail("spawn failed with ~b processes still to create: system_limit "
                       "(the BEAM's process limit is ~b, raise it with +P)",
                       [Remaining, erlang:system_info(process_limit)])
    end.

%% Count N copies of Msg in main's mailbox. Each is the first message in the
%% queue, so this receive never scans.
await(Msg, N) ->
    await(Msg, N, 0).

await(_Msg, N, N) ->
    N;
await(Msg, N, Count) ->
    receive Msg -> await(Msg, N, Count + 1) end.

%% idle: N processes that sleep M ms on the BEAM's timer wheel (a suspended
%% process takes no scheduler), send a completion notice and end.
idle(#{procs := N, sleep_ms := SleepMs, drop_one := DropOne}) ->
    Main = self(),
    Task = fun() -> timer:sleep(SleepMs), Main ! done end,

    T0 = micro:now_ns(),
    spawn_n(N, Task),
    DropOne andalso receive done -> dropped end,
    Notices = await(done, N),
    T1 = micro:now_ns(),

    SleepNs = SleepMs * 1000000,
    T1 - T0 >= SleepNs orelse
        micro:fail("idle: all tasks ended after ~b ns, before their sleep of ~b ns",
                   [T1 - T0, SleepNs]),
    Result = micro_result:new(#{procs => N, sleep_ms => SleepMs}, N, T1 - T0, Notices, N),
    Result#{ns_per_op => (T1 - T0 - SleepNs) / N, tasks => N, sleep_ns => SleepNs}.
