//! The result line of a micro program (spec/MICRO.md §7): parsed with serde
//! and then checked against what was asked, so that a program that measured
//! something else, echoed other parameters or lost a message is a recorded
//! failure and never a number in the report. Unknown fields are ignored
//! (§7 allows `x_…` extras).

use super::bench::Bench;
use crate::store::micro::{MicroParams, Supervision};
use serde::Deserialize;
use serde_json::{Map, Value};

/// The fields `concur` reads; the bench-specific ones are optional here and
/// required by [`validate`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ResultLine {
    pub schema: u32,
    pub bench: String,
    pub runtime: String,
    pub params: Map<String, Value>,
    pub ops: u64,
    pub elapsed_ns: u64,
    pub ns_per_op: f64,
    pub checks: Checks,
    pub procs: Option<u64>,
    pub ns_per_proc: Option<f64>,
    pub round_trips: Option<u64>,
    pub messages: Option<u64>,
    pub messages_per_s: Option<f64>,
    pub min_pair_round_trips: Option<u64>,
    pub tasks: Option<u64>,
    pub sleep_ns: Option<u64>,
    pub kills: Option<u64>,
    pub lost: Option<u64>,
    pub restart_p50_ns: Option<u64>,
    pub restart_p99_ns: Option<u64>,
    pub late_restarts: Option<u64>,
}

impl ResultLine {
    /// supervised's figures (§4.7), when the line has them all.
    pub fn supervision(&self) -> Option<Supervision> {
        Some(Supervision { kills: self.kills?, lost: self.lost?, restart_p50_ns: self.restart_p50_ns?, restart_p99_ns: self.restart_p99_ns?, late_restarts: self.late_restarts? })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct Checks {
    pub received: u64,
    pub expected: u64,
}

/// What the line must agree with: the invocation as `concur micro` made it.
pub struct Asked<'a> {
    pub bench: Bench,
    pub runtime: &'a str,
    pub params: &'a MicroParams,
    pub cores: u32,
}

/// Parses the program's whole stdout: exactly one JSON line.
pub fn parse(stdout: &str) -> Result<ResultLine, String> {
    let lines: Vec<&str> = stdout.lines().filter(|l| !l.trim().is_empty()).collect();
    let line = match lines.as_slice() {
        [] => return Err("it printed no result line on stdout".into()),
        [one] => *one,
        more => return Err(format!("it printed {} lines on stdout; spec/MICRO.md §7 allows exactly one JSON line", more.len())),
    };
    serde_json::from_str(line).map_err(|e| format!("its result line is not the JSON of spec/MICRO.md §7 ({e}): {}", clip(line)))
}

/// Parses and validates; the error says what is wrong, naming the field.
pub fn parse_and_validate(stdout: &str, asked: &Asked) -> Result<ResultLine, String> {
    let line = parse(stdout)?;
    validate(&line, asked)?;
    Ok(line)
}

/// Checks a parsed line against §4 and §7 for the invocation `asked`.
pub fn validate(l: &ResultLine, asked: &Asked) -> Result<(), String> {
    let b = asked.bench;
    if l.schema != 1 {
        return Err(format!("schema is {}, expected 1 (spec/MICRO.md version 1)", l.schema));
    }
    if l.bench != b.as_str() {
        return Err(format!("bench is '{}', expected '{b}'", l.bench));
    }
    if l.runtime != asked.runtime {
        return Err(format!("runtime is '{}', expected the folder name '{}'", l.runtime, asked.runtime));
    }
    check_params(l, asked)?;
    // supervised loses messages by design (its kills); they must be counted, not missing (§4.7).
    let lost = if b == Bench::Supervised { l.lost.ok_or("lost is missing (supervised)")? } else { 0 };
    if l.checks.received.checked_add(lost) != Some(l.checks.expected) {
        return Err(if b == Bench::Supervised {
            format!("checks.received {} + lost {lost} != checks.expected {}: messages were lost without being counted, or duplicated", l.checks.received, l.checks.expected)
        } else {
            format!("checks.received {} != checks.expected {}: messages were lost or duplicated", l.checks.received, l.checks.expected)
        });
    }
    let (ops, expected) = demanded(l, asked)?;
    if l.ops != ops {
        return Err(format!("ops is {}, expected {ops} for {b} with {}", l.ops, super::bench::describe(asked.params)));
    }
    if l.checks.expected != expected {
        return Err(format!("checks.expected is {}, but {b} with {} demands {expected}", l.checks.expected, super::bench::describe(asked.params)));
    }
    check_ns_per_op(l, asked)?;
    check_extras(l, asked)
}

fn check_params(l: &ResultLine, asked: &Asked) -> Result<(), String> {
    let p = asked.params;
    let want: Vec<(&str, Value)> = asked
        .bench
        .param_names()
        .iter()
        .map(|&name| {
            let v = match name {
                "size" => p.size.map(Value::from),
                "reps" => p.reps.map(Value::from),
                "procs" => p.procs.map(Value::from),
                "pairs" => p.pairs.map(Value::from),
                "seconds" => p.seconds.map(Value::from),
                "kill_rate" => p.kill_rate.map(Value::from),
                _ => p.sleep_ms.map(Value::from),
            };
            (name, v.unwrap_or(Value::Null))
        })
        .chain(std::iter::once(("cores", Value::from(asked.cores))))
        .collect();
    for (name, value) in &want {
        let Some(got) = l.params.get(*name) else { return Err(format!("params.{name} is missing")) };
        if !same_number(got, value) {
            return Err(format!("params.{name} is {got}, but {value} was passed"));
        }
    }
    if let Some(extra) = l.params.keys().find(|k| !want.iter().any(|(n, _)| n == k)) {
        return Err(format!("params.{extra} is not a parameter of {} (spec/MICRO.md §7: only those it uses, plus cores)", asked.bench));
    }
    Ok(())
}

fn same_number(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => (x - y).abs() <= 1e-9 * y.abs().max(1.0),
        _ => false,
    }
}

/// (ops, checks.expected) that the parameters demand (§4).
fn demanded(l: &ResultLine, asked: &Asked) -> Result<(u64, u64), String> {
    let p = asked.params;
    Ok(match asked.bench {
        Bench::Pingping | Bench::Pingpong => {
            let r = p.reps.unwrap_or(0);
            (r, 2 * r)
        }
        Bench::Spawn | Bench::Maxprocs => {
            let n = p.procs.unwrap_or(0);
            (n, 2 * n)
        }
        Bench::Idle => {
            let n = p.procs.unwrap_or(0);
            (n, n)
        }
        Bench::Pairs => {
            let rt = l.round_trips.ok_or("round_trips is missing (pairs)")?;
            (rt, 2 * rt)
        }
        // Messages sent is the program's count (§4.7): what it must agree with is checked above and in the extras.
        Bench::Supervised => (l.round_trips.ok_or("round_trips is missing (supervised)")?, l.checks.expected),
    })
}

fn check_ns_per_op(l: &ResultLine, asked: &Asked) -> Result<(), String> {
    if !l.ns_per_op.is_finite() {
        return Err("ns_per_op is not a finite number".into());
    }
    let sleep_ns = asked.params.sleep_ms.unwrap_or(0) as f64 * 1e6;
    if asked.bench == Bench::Idle && (l.elapsed_ns as f64) < sleep_ns {
        return Err(format!("elapsed_ns {} is shorter than the tasks' sleep of {sleep_ns} ns", l.elapsed_ns));
    }
    if l.ops == 0 {
        return Ok(());
    }
    let work = if asked.bench == Bench::Idle { l.elapsed_ns as f64 - sleep_ns } else { l.elapsed_ns as f64 };
    let want = work / l.ops as f64;
    if !close(l.ns_per_op, want) {
        return Err(format!("ns_per_op is {}, but elapsed_ns and ops give {want}", l.ns_per_op));
    }
    Ok(())
}

fn close(got: f64, want: f64) -> bool {
    (got - want).abs() <= 1e-6 * want.abs().max(1.0) + 1e-3
}

fn check_extras(l: &ResultLine, asked: &Asked) -> Result<(), String> {
    let p = asked.params;
    let need_eq = |name: &str, got: Option<u64>, want: u64| match got {
        None => Err(format!("{name} is missing ({})", asked.bench)),
        Some(g) if g != want => Err(format!("{name} is {g}, expected {want}")),
        Some(_) => Ok(()),
    };
    match asked.bench {
        Bench::Spawn | Bench::Maxprocs => {
            need_eq("procs", l.procs, p.procs.unwrap_or(0))?;
            match l.ns_per_proc {
                Some(v) if close(v, l.ns_per_op) => Ok(()),
                Some(v) => Err(format!("ns_per_proc is {v}, but ns_per_op is {}", l.ns_per_op)),
                None => Err(format!("ns_per_proc is missing ({})", asked.bench)),
            }
        }
        Bench::Pairs => {
            let rt = l.round_trips.unwrap_or(0);
            need_eq("messages", l.messages, 2 * rt)?;
            let min = l.min_pair_round_trips.ok_or("min_pair_round_trips is missing (pairs)")?;
            if min.saturating_mul(p.pairs.unwrap_or(1)) > rt {
                return Err(format!("min_pair_round_trips {min} × {} pairs exceeds round_trips {rt}", p.pairs.unwrap_or(1)));
            }
            check_rate(l.messages_per_s, 2 * rt, l.elapsed_ns, asked.bench)
        }
        Bench::Supervised => {
            let rt = l.round_trips.unwrap_or(0);
            need_eq("messages", l.messages, l.checks.received)?;
            let Some(sup) = l.supervision() else {
                return Err("kills, lost, restart_p50_ns, restart_p99_ns and late_restarts are required (supervised)".into());
            };
            // Each of a pair's messages is a ping or a pong, and every pong answers a ping received.
            if l.checks.received < 2 * rt {
                return Err(format!("messages delivered {} are fewer than the {} that {rt} round trips take", l.checks.received, 2 * rt));
            }
            if sup.lost > sup.kills {
                return Err(format!("lost {} exceeds kills {}: a kill ends one pair, which holds at most one message in flight (spec/MICRO.md §4.7)", sup.lost, sup.kills));
            }
            if sup.late_restarts > sup.kills {
                return Err(format!("late_restarts {} exceeds kills {}", sup.late_restarts, sup.kills));
            }
            if sup.kills == 0 && (sup.restart_p50_ns != 0 || sup.restart_p99_ns != 0) {
                return Err("restart figures without a kill".into());
            }
            if sup.restart_p50_ns > sup.restart_p99_ns {
                return Err(format!("restart_p50_ns {} is above restart_p99_ns {}", sup.restart_p50_ns, sup.restart_p99_ns));
            }
            check_rate(l.messages_per_s, l.checks.received, l.elapsed_ns, asked.bench)
        }
        Bench::Idle => {
            need_eq("tasks", l.tasks, p.procs.unwrap_or(0))?;
            need_eq("sleep_ns", l.sleep_ns, p.sleep_ms.unwrap_or(0) * 1_000_000)
        }
        Bench::Pingping | Bench::Pingpong => Ok(()),
    }
}

/// `messages_per_s` as `messages` over `elapsed_ns` make it, to a millionth (§7).
fn check_rate(got: Option<f64>, messages: u64, elapsed_ns: u64, b: Bench) -> Result<(), String> {
    let want = if elapsed_ns > 0 { messages as f64 / (elapsed_ns as f64 / 1e9) } else { 0.0 };
    match got {
        Some(v) if (v - want).abs() <= 1e-6 * want.max(1.0) + 1e-3 => Ok(()),
        Some(v) => Err(format!("messages_per_s is {v}, but messages and elapsed_ns give {want}")),
        None => Err(format!("messages_per_s is missing ({b})")),
    }
}

fn clip(s: &str) -> String {
    if s.len() <= 200 { s.to_string() } else { format!("{}…", &s[..s.floor_char_boundary(200)]) }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PINGPING: &str = r#"{"schema":1,"bench":"pingping","runtime":"go","params":{"size":5120,"reps":10000,"cores":2},"ops":10000,"elapsed_ns":8123456,"ns_per_op":812.3456,"checks":{"received":20000,"expected":20000},"x_gc":3}"#;
    const PAIRS: &str = r#"{"schema":1,"bench":"pairs","runtime":"go","params":{"cores":2,"pairs":4,"seconds":0.5},"ops":1044890,"elapsed_ns":500041374,"ns_per_op":478.5588664835533,"checks":{"received":2089780,"expected":2089780},"round_trips":1044890,"messages":2089780,"messages_per_s":4179214.1783851665,"min_pair_round_trips":204990}"#;
    const IDLE: &str = r#"{"schema":1,"bench":"idle","runtime":"go","params":{"cores":2,"procs":10000,"sleep_ms":100},"ops":10000,"elapsed_ns":143042904,"ns_per_op":4304.2904,"checks":{"received":10000,"expected":10000},"tasks":10000,"sleep_ns":100000000}"#;
    const SUPERVISED: &str = r#"{"schema":1,"bench":"supervised","runtime":"go","params":{"cores":2,"pairs":256,"seconds":1,"kill_rate":5},"ops":100000,"elapsed_ns":1000000000,"ns_per_op":10000.0,"checks":{"received":200010,"expected":200013},"round_trips":100000,"messages":200010,"messages_per_s":200010.0,"kills":25,"lost":3,"restart_p50_ns":41000,"restart_p99_ns":180000,"late_restarts":0}"#;
    const SPAWN: &str = r#"{"schema":1,"bench":"spawn","runtime":"go","params":{"cores":2,"procs":100000},"ops":100000,"elapsed_ns":679561218,"ns_per_op":6795.61218,"checks":{"received":200000,"expected":200000},"procs":100000,"ns_per_proc":6795.61218}"#;

    fn check(text: &str, bench: Bench, params: MicroParams) -> Result<ResultLine, String> {
        parse_and_validate(&format!("{text}\n"), &Asked { bench, runtime: "go", params: &params, cores: 2 })
    }

    fn pingping() -> MicroParams {
        MicroParams { size: Some(5120), reps: Some(10000), ..Default::default() }
    }

    #[test]
    fn the_spec_example_and_real_go_lines_pass() {
        check(PINGPING, Bench::Pingping, pingping()).unwrap();
        check(PAIRS, Bench::Pairs, MicroParams { pairs: Some(4), seconds: Some(0.5), ..Default::default() }).unwrap();
        check(IDLE, Bench::Idle, MicroParams { procs: Some(10000), sleep_ms: Some(100), ..Default::default() }).unwrap();
        check(SPAWN, Bench::Spawn, MicroParams { procs: Some(100000), ..Default::default() }).unwrap();
    }

    fn supervised() -> MicroParams {
        MicroParams { pairs: Some(256), seconds: Some(1.0), kill_rate: Some(5.0), ..Default::default() }
    }

    #[test]
    fn supervised_counts_what_its_kills_lost_and_no_more() {
        let l = check(SUPERVISED, Bench::Supervised, supervised()).unwrap();
        assert_eq!(l.supervision(), Some(Supervision { kills: 25, lost: 3, restart_p50_ns: 41000, restart_p99_ns: 180000, late_restarts: 0 }));
        // A message neither received nor counted lost.
        let err = check(&SUPERVISED.replace(r#""lost":3"#, r#""lost":2"#), Bench::Supervised, supervised()).unwrap_err();
        assert!(err.contains("checks.received 200010 + lost 2 != checks.expected 200013"), "{err}");
        // More lost than kills could lose.
        let more = SUPERVISED.replace(r#""kills":25"#, r#""kills":2"#);
        let err = check(&more, Bench::Supervised, supervised()).unwrap_err();
        assert!(err.contains("lost 3 exceeds kills 2"), "{err}");
        let err = check(&SUPERVISED.replace(r#","restart_p99_ns":180000"#, ""), Bench::Supervised, supervised()).unwrap_err();
        assert!(err.contains("late_restarts are required"), "{err}");
        let err = check(&SUPERVISED.replace(r#""late_restarts":0"#, r#""late_restarts":26"#), Bench::Supervised, supervised()).unwrap_err();
        assert!(err.contains("late_restarts 26 exceeds kills 25"), "{err}");
        let err = check(SUPERVISED, Bench::Supervised, MicroParams { kill_rate: Some(20.0), ..supervised() }).unwrap_err();
        assert!(err.contains("params.kill_rate is 5, but 20.0 was passed"), "{err}");
        let err = check(&SUPERVISED.replace("200010.0", "200000.0"), Bench::Supervised, supervised()).unwrap_err();
        assert!(err.contains("messages_per_s is 200000"), "{err}");
    }

    #[test]
    fn a_lost_message_fails() {
        let lost = PINGPING.replace(r#""received":20000"#, r#""received":19999"#);
        let err = check(&lost, Bench::Pingping, pingping()).unwrap_err();
        assert!(err.contains("checks.received 19999 != checks.expected 20000"), "{err}");
    }

    #[test]
    fn a_count_that_agrees_with_itself_but_not_with_the_parameters_fails() {
        let short = PINGPING.replace("20000", "19998");
        let err = check(&short, Bench::Pingping, pingping()).unwrap_err();
        assert!(err.contains("checks.expected is 19998") && err.contains("demands 20000"), "{err}");
    }

    #[test]
    fn a_missing_field_fails_naming_it() {
        let err = check(&PINGPING.replace(r#""ops":10000,"#, ""), Bench::Pingping, pingping()).unwrap_err();
        assert!(err.contains("missing field `ops`"), "{err}");
        let err = check(&SPAWN.replace(r#","ns_per_proc":6795.61218"#, ""), Bench::Spawn, MicroParams { procs: Some(100000), ..Default::default() }).unwrap_err();
        assert!(err.contains("ns_per_proc is missing"), "{err}");
        let err = check(&PINGPING.replace(r#""size":5120,"#, ""), Bench::Pingping, pingping()).unwrap_err();
        assert!(err.contains("params.size is missing"), "{err}");
    }

    #[test]
    fn other_parameters_or_cores_fail() {
        let err = check(PINGPING, Bench::Pingping, MicroParams { size: Some(51200), ..pingping() }).unwrap_err();
        assert!(err.contains("params.size is 5120, but 51200 was passed"), "{err}");
        let err = check(&PINGPING.replace(r#""cores":2"#, r#""cores":1"#), Bench::Pingping, pingping()).unwrap_err();
        assert!(err.contains("params.cores is 1, but 2"), "{err}");
        let err = check(&PINGPING.replace(r#""cores":2"#, r#""cores":2,"pairs":1"#), Bench::Pingping, pingping()).unwrap_err();
        assert!(err.contains("params.pairs is not a parameter of pingping"), "{err}");
    }

    #[test]
    fn wrong_arithmetic_and_wrong_identity_fail() {
        let err = check(&PINGPING.replace("812.3456", "800"), Bench::Pingping, pingping()).unwrap_err();
        assert!(err.contains("ns_per_op is 800"), "{err}");
        let err = check(&PINGPING.replace(r#""runtime":"go""#, r#""runtime":"golang""#), Bench::Pingping, pingping()).unwrap_err();
        assert!(err.contains("runtime is 'golang'"), "{err}");
        let err = check(PINGPING, Bench::Pingpong, MicroParams { reps: Some(10000), ..Default::default() }).unwrap_err();
        assert!(err.contains("bench is 'pingping', expected 'pingpong'"), "{err}");
        let pairs = MicroParams { pairs: Some(4), seconds: Some(0.5), ..Default::default() };
        let err = check(&PAIRS.replace(r#""messages":2089780"#, r#""messages":2089781"#), Bench::Pairs, pairs).unwrap_err();
        assert!(err.contains("messages is 2089781, expected 2089780"), "{err}");
    }

    #[test]
    fn stdout_must_hold_exactly_one_line() {
        let two = format!("{PINGPING}\n{PINGPING}\n");
        assert!(parse(&two).unwrap_err().contains("2 lines"));
        assert!(parse("").unwrap_err().contains("no result line"));
        assert!(parse("hello\n").unwrap_err().contains("not the JSON"));
    }
}
