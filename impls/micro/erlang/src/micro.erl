%% Concur's process micro-benchmarks (spec/MICRO.md) on plain BEAM processes:
%% spawn, ! and receive; OTP's supervisor only where the benchmark is about
%% supervision (supervised). One benchmark per run,
%% one JSON line on stdout; exit 1 when a message was lost, a count is wrong
%% or the runtime failed, exit 2 on a bad argument.
%%
%% Started as `erl -noshell ... -s micro main -extra <bench> --flag value ...`:
%% everything after -extra reaches us as init:get_plain_arguments().
-module(micro).
-export([main/0, fail/2, now_ns/0, await_ready/1]).

main() ->
    log_to_stderr(),
    Env = os:getenv("CONCUR_CORES", ""),
    case micro_args:parse(init:get_plain_arguments(), Env, default_cores()) of
        {ok, Cfg} -> run(Cfg);
        {error, Message} -> stop(2, Message)
    end.

run(Cfg = #{bench := Bench, timeout := Timeout, cores := Cores}) ->
    arm_watchdog(Bench, Timeout),
    use_cores(Cores),
    Result = try
        bench(Cfg)
    catch
        Class:Reason:Stack ->
            fail("~s: ~p:~p in ~p", [Bench, Class, Reason, hd(Stack)])
    end,
    case micro_result:verify(Result) of
        ok ->
            io:put_chars([micro_result:to_json(Result#{bench => Bench}), $\n]),
            erlang:halt(0);
        {error, Message} ->
            fail("~s: ~s", [Bench, Message])
    end.

bench(Cfg = #{bench := pingping}) -> micro_latency:pingping(Cfg);
bench(Cfg = #{bench := pingpong}) -> micro_latency:pingpong(Cfg);
bench(Cfg = #{bench := spawn}) -> micro_spawn:spawn_dormant(Cfg);
bench(Cfg = #{bench := maxprocs}) -> micro_spawn:spawn_dormant(Cfg);
bench(Cfg = #{bench := pairs}) -> micro_pairs:pairs(Cfg);
bench(Cfg = #{bench := supervised}) -> micro_supervised:supervised(Cfg);
bench(Cfg = #{bench := idle}) -> micro_spawn:idle(Cfg).

%% The watchdog of spec §3.2 runs at high priority so that a flood of
%% runnable benchmark processes cannot delay it.
arm_watchdog(Bench, Seconds) ->
    Ms = round(Seconds * 1000),
    spawn_opt(fun() ->
                  receive after Ms ->
                      fail("timeout after ~s s in ~s", [micro_result:number(Seconds), Bench])
                  end
              end, [{priority, high}]).

%% ./micro starts the VM with `+S C:C` already; lowering schedulers_online
%% here makes a start without it (plain erl) mean the same. Raising it above
%% the schedulers the VM started with is impossible, and then the run stops
%% rather than measure other parallelism.
use_cores(Cores) ->
    Schedulers = erlang:system_info(schedulers),
    Cores =< Schedulers andalso erlang:system_flag(schedulers_online, Cores),
    case erlang:system_info(schedulers_online) of
        Cores -> ok;
        Online -> fail("schedulers_online is ~b, --cores asked for ~b "
                       "(start the VM with +S ~b:~b, as ./micro does)",
                       [Online, Cores, Cores, Cores])
    end.

%% The VM's own reports (a crashed process, "Too many processes") go to
%% standard_io by default; stdout is only for the result line (spec §7).
log_to_stderr() ->
    ok = logger:remove_handler(default),
    ok = logger:add_handler(default, logger_std_h, #{config => #{type => standard_error}}).

%% "The CPUs the process may run on" (spec §2): the affinity mask.
default_cores() ->
    case erlang:system_info(logical_processors_available) of
        unknown -> erlang:system_info(schedulers_online);
        N -> N
    end.

%% A failed check ends the whole program at once (spec §3.1): the other
%% processes would otherwise wait forever for a message that never comes.
-spec fail(io:format(), [term()]) -> no_return().
fail(Format, Args) ->
    stop(1, io_lib:format(Format, Args)).

stop(Code, Message) ->
    io:put_chars(standard_error, ["micro: ", Message, $\n]),
    erlang:halt(Code).

now_ns() -> erlang:monotonic_time(nanosecond).

%% Every benchmark process says {ready, self()} before main reads t0.
await_ready(Pids) ->
    [receive {ready, Pid} -> ok end || Pid <- Pids],
    ok.
