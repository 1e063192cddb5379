//! The human summary, in wrk's habits: the test line first, latency with its
//! distribution, counts, requests/s; then what wrk lacks: errors by kind,
//! per-step figures for scenarios, the open-loop verdict and the
//! generator's own CPU. Derived from the `LoadReport` only.

use super::plan::{LoadPlan, StopAt};
use super::report::LoadReport;
use crate::stats::{ErrorKind, LatencyStats};
use std::fmt::Write;

/// `Running 10s test @ URL` and the shape of the run, printed before it starts.
pub fn header(plan: &LoadPlan) -> String {
    let what = match (&plan.scenario, plan.stop) {
        (None, StopAt::Duration(d)) => format!("{} test", seconds(d.as_secs_f64())),
        (None, StopAt::Count(n)) => format!("{n} requests"),
        (Some(s), StopAt::Duration(d)) => format!("scenario {s} for {}", seconds(d.as_secs_f64())),
        (Some(s), StopAt::Count(n)) => format!("scenario {s} for {n} requests"),
    };
    let threads = plan.worker_count();
    let mut shape = format!("{threads} thread{} and {} connections", plural(threads), plan.connections);
    match plan.rate {
        Some(rate) => write!(shape, ", open loop at {rate} requests/s").unwrap(),
        None => shape.push_str(", closed loop"),
    }
    if !plan.keepalive {
        shape.push_str(", no keep-alive");
    }
    if let Some(spawn) = plan.spawn_rate {
        write!(shape, ", users started at {spawn} per second").unwrap();
    }
    if !plan.think_time.is_zero() && plan.rate.is_none() {
        write!(shape, ", think time {}", seconds(plan.think_time.as_secs_f64())).unwrap();
    }
    format!("Running {what} @ {}\n  {shape}\n", plan.target.url)
}

pub fn summary(r: &LoadReport) -> String {
    let mut out = String::new();
    let l = &r.latency;
    writeln!(out, "  Latency      Avg       Stdev       Max").unwrap();
    // With requests unanswered the mean of the answered ones would flatter the server: no mean then.
    let (mean, stdev) = if r.unfinished > 0 { ("-".to_string(), "-".to_string()) } else { (us(l.mean_us), us(l.stdev_us)) };
    writeln!(out, "            {mean:>9} {stdev:>9} {:>9}", us(l.max_us as f64)).unwrap();
    writeln!(out, "  Latency Distribution").unwrap();
    for ((label, name), value) in
        [("50%", "p50"), ("75%", "p75"), ("90%", "p90"), ("99%", "p99"), ("99.9%", "p999")].into_iter().zip([l.p50_us, l.p75_us, l.p90_us, l.p99_us, l.p999_us])
    {
        writeln!(out, "   {label:>6} {:>9}", percentile(l, name, value)).unwrap();
    }
    if r.steps.len() > 1 {
        steps(&mut out, r);
    }
    let interrupted = if r.interrupted { " (interrupted)" } else { "" };
    writeln!(out, "  {} requests in {}, {} read{interrupted}", r.requests, seconds(r.elapsed_s), bytes(r.bytes_read as f64)).unwrap();
    if r.errors > 0 {
        writeln!(out, "  Errors: {} ({})", r.errors, r.errors_by_kind.describe()).unwrap();
    }
    if r.unfinished > 0 {
        writeln!(out, "  unfinished {} (oldest {})", r.unfinished, us(r.unfinished_age.max_us as f64)).unwrap();
    }
    if let Some(rate) = &r.rate {
        if rate.reached {
            writeln!(out, "  Open loop: target {} requests/s reached ({:.2}/s sent)", rate.target_per_s, rate.sent_per_s).unwrap();
        } else {
            writeln!(
                out,
                "  Open loop: target {} requests/s NOT reached: {:.2}/s sent, {} sends still owed at the end \
                 (latencies include the wait; add connections or lower -R)",
                rate.target_per_s, rate.sent_per_s, rate.owed
            )
            .unwrap();
        }
    }
    writeln!(out, "Requests/sec: {:>10.2}", r.requests_per_s).unwrap();
    writeln!(out, "Transfer/sec: {:>10}", bytes(r.bytes_per_s)).unwrap();
    writeln!(
        out,
        "Generator CPU: {:.2}s ({:.4}s per 1000 requests, {:.2} cores)",
        r.cpu.user_s + r.cpu.system_s,
        r.cpu.per_1k_requests_s,
        r.cpu.cores_used
    )
    .unwrap();
    out
}

fn steps(out: &mut String, r: &LoadReport) {
    let width = r.steps.iter().map(|s| s.name.len()).max().unwrap_or(4).max(4);
    writeln!(out, "  {:width$} {:>10} {:>8} {:>9} {:>9} {:>9}", "Step", "Requests", "Errors", "p50", "p99", "Max").unwrap();
    for s in &r.steps {
        let l: &LatencyStats = &s.latency;
        writeln!(
            out,
            "  {:width$} {:>10} {:>8} {:>9} {:>9} {:>9}",
            s.name,
            s.requests,
            s.errors,
            percentile(l, "p50", l.p50_us),
            percentile(l, "p99", l.p99_us),
            us(l.max_us as f64)
        )
        .unwrap();
    }
}

/// A percentile's value, or `>value` when it is only a lower bound.
fn percentile(l: &LatencyStats, name: &str, value: u64) -> String {
    if l.is_lower_bound(name) { format!(">{}", us(value as f64)) } else { us(value as f64) }
}

/// The one line when nothing succeeded: the most frequent cause, with its message,
/// and the requests that were still waiting for an answer at the end.
pub fn no_success(r: &LoadReport) -> String {
    let e = &r.errors_by_kind;
    let mut causes: Vec<(u64, String)> = ErrorKind::ALL
        .iter()
        .filter(|&&k| e.get(k) > 0)
        .map(|&k| {
            let message = r.error_messages.get(k.name()).map_or(String::new(), |m| format!(" ({m})"));
            (e.get(k), format!("{} {} errors{message}", e.get(k), k.name()))
        })
        .collect();
    causes.extend(e.status.iter().map(|(code, n)| (*n, format!("{n} responses with status {code}"))));
    if r.unfinished > 0 {
        causes.push((r.unfinished, format!("{} requests unanswered at the end (oldest {})", r.unfinished, us(r.unfinished_age.max_us as f64))));
    }
    causes.sort_by_key(|c| std::cmp::Reverse(c.0));
    let expected = match r.steps.first().and_then(|s| s.expect) {
        Some(code) if !e.status.is_empty() => format!(", expected {code}"),
        None if !e.status.is_empty() => ", expected 2xx or 3xx".to_string(),
        _ => String::new(),
    };
    let list: Vec<String> = causes.into_iter().map(|(_, text)| text).collect();
    format!("no successful response from {}: {}{expected}", r.target, list.join(", "))
}

/// wrk's units: 512.00us, 1.23ms, 2.00s.
fn us(v: f64) -> String {
    if v < 1000.0 {
        format!("{v:.2}us")
    } else if v < 1_000_000.0 {
        format!("{:.2}ms", v / 1000.0)
    } else {
        format!("{:.2}s", v / 1e6)
    }
}

fn seconds(s: f64) -> String {
    if s >= 1.0 && s.fract() == 0.0 { format!("{s}s") } else { format!("{s:.2}s") }
}

fn bytes(b: f64) -> String {
    match b {
        b if b < 1024.0 => format!("{b:.0}B"),
        b if b < 1024.0 * 1024.0 => format!("{:.2}KB", b / 1024.0),
        b if b < 1024.0 * 1024.0 * 1024.0 => format!("{:.2}MB", b / 1024.0 / 1024.0),
        b => format!("{:.2}GB", b / 1024.0 / 1024.0 / 1024.0),
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
