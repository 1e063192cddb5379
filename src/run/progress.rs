//! Progress of a sweep: which point, how many are left and an estimate of
//! the time left, redrawn every second on one line of a terminal and silent
//! otherwise. The estimate scales the planned time of the points left by how
//! long the finished ones really took (start-up and stop included).

use super::spec::PointSpec;
use crate::host::progress;
use indicatif::{ProgressBar, ProgressState};
use std::time::Duration;

pub struct Progress {
    total: usize,
    done: usize,
    planned_done_s: f64,
    actual_done_s: f64,
    planned_left_s: f64,
    /// The line of the point being measured, counting its estimate down.
    bar: Option<ProgressBar>,
}

/// Start-up, readiness and stop of a server, before any point has shown how long they take.
const OVERHEAD_GUESS_S: f64 = 2.0;

impl Progress {
    /// Progress over `pending`, the points still to measure.
    pub fn new(pending: &[&PointSpec]) -> Progress {
        Progress {
            total: pending.len(),
            done: 0,
            planned_done_s: 0.0,
            actual_done_s: 0.0,
            planned_left_s: pending.iter().map(|p| p.expected_s()).sum(),
            bar: None,
        }
    }

    /// Shows the point about to be measured, its estimate redrawn every second.
    pub fn begin(&mut self, spec: &PointSpec) {
        let eta = self.eta_s(self.total - self.done);
        let left = move |state: &ProgressState, w: &mut dyn std::fmt::Write| {
            let _ = w.write_str(&clock(eta - state.elapsed().as_secs_f64()));
        };
        let bar = progress::bar(1, progress::style("{msg}{left}").with_key("left", left));
        bar.set_message(self.head(spec));
        if !bar.is_hidden() {
            bar.enable_steady_tick(Duration::from_secs(1));
        }
        self.bar = Some(bar);
    }

    /// Records that `spec` took `took`; clears the line so results print cleanly.
    pub fn end(&mut self, spec: &PointSpec, took: Duration) {
        self.done += 1;
        self.planned_done_s += spec.expected_s();
        self.actual_done_s += took.as_secs_f64();
        self.planned_left_s = (self.planned_left_s - spec.expected_s()).max(0.0);
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }

    /// `[3/24] go-nethttp · hello · cores=1 · c=50 · #1 — 21 left, about 4m10s`
    #[cfg(test)]
    fn line(&self, spec: &PointSpec) -> String {
        format!("{}{}", self.head(spec), clock(self.eta_s(self.total - self.done)))
    }

    fn head(&self, spec: &PointSpec) -> String {
        let left = self.total - self.done;
        format!(
            "[{}/{}] {} · {} · cores={} · {} · #{} — {} left, about ",
            self.done + 1,
            self.total,
            spec.implementation,
            spec.scenario,
            spec.cores,
            spec.level,
            spec.repeat,
            left,
        )
    }

    /// Seconds left for `left` points, this one included.
    fn eta_s(&self, left: usize) -> f64 {
        if self.done == 0 || self.planned_done_s <= 0.0 {
            return self.planned_left_s + OVERHEAD_GUESS_S * left as f64;
        }
        self.planned_left_s * (self.actual_done_s / self.planned_done_s)
    }
}

/// `4m10s`, `1h02m`, `35s`.
pub fn clock(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, s % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(d: f64) -> PointSpec {
        PointSpec {
            key: "k".into(),
            implementation: "go".into(),
            scenario: "hello".into(),
            cores: 1,
            server_cpus: vec![0],
            generator_cpus: vec![1],
            shared: false,
            level: "c=50".into(),
            connections: 50,
            rate: None,
            keepalive: true,
            repeat: 1,
            start: 0,
            warmup_s: 0.0,
            warmup_max_s: 0.0,
            duration_s: Some(d),
            requests: None,
            timeout_s: 10.0,
            env: Default::default(),
            generator: Default::default(),
            locust: None,
            server_addr: None,
            server_netns: None,
            database_cpus: Vec::new(),
            after: None,
        }
    }

    #[test]
    fn the_estimate_learns_from_finished_points() {
        let (a, b, c) = (spec(9.0), spec(9.0), spec(4.0));
        let mut p = Progress::new(&[&a, &b, &c]);
        // 9 + 9 + 4 s of load (no warm-up), 2 s of start-up each.
        assert_eq!(p.line(&a), "[1/3] go · hello · cores=1 · c=50 · #1 — 3 left, about 28s");
        // The first point took 15 s for 9 planned: the 13 s planned left become 21.7 s.
        p.end(&a, Duration::from_secs(15));
        assert_eq!(p.line(&b), "[2/3] go · hello · cores=1 · c=50 · #1 — 2 left, about 22s");
    }

    #[test]
    fn clocks_read_naturally() {
        assert_eq!((clock(35.4), clock(250.0), clock(3720.0)), ("35s".into(), "4m10s".into(), "1h02m".into()));
    }
}
