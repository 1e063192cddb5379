//! The searches' walk, without I/O, shared by the capacity search (over
//! open-loop rates) and the clients-held search (over numbers of waiting
//! clients): which level to measure next, given the verdicts so far, and when
//! to stop. A geometric ramp (×`FACTOR`) from the start until a step fails,
//! then bisection on a log scale between the highest level that passed and
//! the lowest that failed, until they are within the precision. A start that
//! was too high is not the end: the ramp goes down (÷`DOWN`) until a step
//! passes, unless the failure was hopeless (one no lower level fixes).
//! Replaying stored verdicts through it is how `--resume` continues a search.

use serde::{Deserialize, Serialize};

/// The ramp's growth per step.
pub const FACTOR: f64 = 2.0;
/// The ramp's fall per step when nothing has passed yet.
pub const DOWN: f64 = 4.0;

/// What one step showed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Within the SLO, no errors, the rate reached.
    Pass,
    /// The server missed: a percentile over its bound, errors, or the rate not reached.
    Fail,
    /// The rate was not reached and the generator's CPUs were busy: the step measured the generator.
    Generator,
    /// The step could not be measured (the server exited, the load failed).
    Error,
    /// The machine ran out first (open files, local ports, memory): not the server's limit.
    Limit,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "fail",
            Verdict::Generator => "generator",
            Verdict::Error => "error",
            Verdict::Limit => "limit",
        }
    }

    pub fn parse(s: &str) -> Option<Verdict> {
        [Verdict::Pass, Verdict::Fail, Verdict::Generator, Verdict::Error, Verdict::Limit].into_iter().find(|v| v.as_str() == s)
    }
}

/// How a search ended (`capacity_searches.status`, `held_searches.status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Still going, or cut short by Ctrl-C: `--resume` continues it.
    Running,
    /// The highest passing and the lowest failing rate are within the precision.
    Found,
    /// `max_steps` steps taken before that.
    Steps,
    /// The time budget would have been exceeded by the next step.
    Budget,
    /// A step saturated the generator: its limit is not the server's.
    Generator,
    /// The server did not start, a first step failed hopelessly, or no rate down to 1 req/s passed.
    NoStart,
    /// A step could not be measured.
    Error,
    /// Clients held: a limit of the machine (open files, local ports, memory) or the
    /// profile's `max_clients` came before a step failed.
    Limit,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Running => "running",
            Status::Found => "found",
            Status::Steps => "steps",
            Status::Budget => "budget",
            Status::Generator => "generator",
            Status::NoStart => "no-start",
            Status::Error => "error",
            Status::Limit => "limit",
        }
    }

    pub fn parse(s: &str) -> Option<Status> {
        [Status::Running, Status::Found, Status::Steps, Status::Budget, Status::Generator, Status::NoStart, Status::Error, Status::Limit]
            .into_iter()
            .find(|v| v.as_str() == s)
    }
}

/// What the next move is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Next {
    Measure(f64),
    Done(Status),
}

/// The state of one search: the bracket so far.
#[derive(Debug, Clone)]
pub struct Ramp {
    start: f64,
    precision: f64,
    max_steps: u32,
    steps: u32,
    /// The highest rate that passed.
    pub passed: Option<f64>,
    /// The lowest rate that failed (`Fail` only).
    pub failed: Option<f64>,
    last: Option<Verdict>,
    /// The last step failed in a way no lower rate fixes.
    hopeless: bool,
}

impl Ramp {
    pub fn new(start: f64, precision: f64, max_steps: u32) -> Ramp {
        Ramp { start: start.max(1.0).round(), precision, max_steps, steps: 0, passed: None, failed: None, last: None, hopeless: false }
    }

    /// Takes in the verdict of a step at `rate`; `hopeless`: a failure no lower rate fixes.
    pub fn record(&mut self, rate: f64, verdict: Verdict, hopeless: bool) {
        self.steps += 1;
        self.last = Some(verdict);
        self.hopeless = hopeless;
        match verdict {
            Verdict::Pass => self.passed = Some(self.passed.map_or(rate, |p| p.max(rate))),
            Verdict::Fail => self.failed = Some(self.failed.map_or(rate, |f| f.min(rate))),
            Verdict::Generator | Verdict::Error | Verdict::Limit => {}
        }
    }

    /// The next rate to measure, or why the search is over.
    pub fn next(&self) -> Next {
        match self.last {
            Some(Verdict::Generator) => return Next::Done(Status::Generator),
            Some(Verdict::Limit) => return Next::Done(Status::Limit),
            Some(Verdict::Error) => return Next::Done(if self.steps == 1 { Status::NoStart } else { Status::Error }),
            Some(Verdict::Fail) if self.passed.is_none() && self.hopeless => return Next::Done(Status::NoStart),
            _ => {}
        }
        let rate = match (self.passed, self.failed) {
            (None, None) => self.start,
            (None, Some(hi)) if hi <= 1.0 => return Next::Done(Status::NoStart),
            (None, Some(hi)) => (hi / DOWN).round().max(1.0),
            (Some(lo), None) => (lo * FACTOR).round(),
            (Some(lo), Some(hi)) if hi <= lo * (1.0 + self.precision) || (lo * hi).sqrt().round() <= lo => return Next::Done(Status::Found),
            (Some(lo), Some(hi)) => (lo * hi).sqrt().round(),
        };
        if self.steps >= self.max_steps {
            return Next::Done(Status::Steps);
        }
        Next::Measure(rate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs a search against a server that passes every rate up to `capacity`.
    fn search(capacity: f64, start: f64, precision: f64, max_steps: u32) -> (Ramp, Status, Vec<f64>) {
        let mut ramp = Ramp::new(start, precision, max_steps);
        let mut rates = Vec::new();
        loop {
            match ramp.next() {
                Next::Measure(rate) => {
                    rates.push(rate);
                    ramp.record(rate, if rate <= capacity { Verdict::Pass } else { Verdict::Fail }, false);
                }
                Next::Done(status) => return (ramp, status, rates),
            }
        }
    }

    #[test]
    fn the_capacity_is_bracketed_within_the_precision() {
        for capacity in [3.0, 30.0, 150.0, 999.0, 1000.0, 12_345.0, 80_000.0] {
            let (ramp, status, rates) = search(capacity, 100.0, 0.05, 30);
            assert_eq!(status, Status::Found, "{capacity}: {rates:?}");
            let (lo, hi) = (ramp.passed.unwrap(), ramp.failed.unwrap());
            assert!(lo <= capacity && capacity < hi && hi <= lo * 1.05 + 1.0, "{capacity}: {lo}..{hi} after {rates:?}");
        }
    }

    #[test]
    fn steps_are_bounded() {
        let (ramp, status, rates) = search(1e9, 100.0, 0.05, 5);
        assert_eq!((status, rates.len()), (Status::Steps, 5));
        assert_eq!(ramp.passed, Some(1600.0));
    }

    #[test]
    fn a_start_too_high_ramps_down_and_nothing_passing_ends_the_search() {
        let (ramp, status, rates) = search(50.0, 1000.0, 0.05, 30);
        assert_eq!((status, &rates[..3]), (Status::Found, &[1000.0, 250.0, 63.0][..]));
        assert!(ramp.passed.unwrap() <= 50.0 && ramp.failed.unwrap() > 50.0);
        assert_eq!(search(0.5, 100.0, 0.05, 30).1, Status::NoStart, "nothing passes down to 1 req/s");
        let mut hopeless = Ramp::new(100.0, 0.05, 10);
        hopeless.record(100.0, Verdict::Fail, true);
        assert_eq!(hopeless.next(), Next::Done(Status::NoStart));
    }

    #[test]
    fn a_step_that_saturates_the_generator_ends_the_search() {
        let mut ramp = Ramp::new(100.0, 0.05, 10);
        ramp.record(100.0, Verdict::Pass, false);
        ramp.record(200.0, Verdict::Generator, false);
        assert_eq!(ramp.next(), Next::Done(Status::Generator));
        assert_eq!(ramp.passed, Some(100.0));
    }

    #[test]
    fn replaying_the_verdicts_resumes_where_the_search_stopped() {
        let (_, _, rates) = search(700.0, 100.0, 0.05, 30);
        let mut replay = Ramp::new(100.0, 0.05, 30);
        for &r in &rates[..4] {
            replay.record(r, if r <= 700.0 { Verdict::Pass } else { Verdict::Fail }, false);
        }
        assert_eq!(replay.next(), Next::Measure(rates[4]));
    }
}
