//! What a worker counts while its loop runs and hands back when it ends:
//! per step the latencies, successes, errors by kind and the requests left
//! unanswered; per second the timeline; the progress counters and the
//! warm-up's seconds it publishes a few times a second. Plain counters in
//! the hot loop, turned into an `Outcome` once.

use super::Worker;
use super::sys::{self, CpuTime};
use crate::load::conn::State;
use crate::stats::{ErrorCounts, ErrorKind, Latencies, Timeline};
use std::collections::BTreeMap;
use std::io;

/// One step's counts in one worker.
#[derive(Debug, Default)]
pub struct StepTally {
    pub latencies: Latencies,
    pub ok: u64,
    pub errors: ErrorCounts,
    /// Ages at the end of the requests left unanswered (`unfinished`).
    pub unfinished: Latencies,
}

/// What a worker hands back when its loop ends.
#[derive(Debug)]
pub struct Outcome {
    pub steps: Vec<StepTally>,
    pub timeline: Timeline,
    /// Per second of the timeline, its successes' latencies; empty unless the plan asked.
    pub second_latencies: Vec<Latencies>,
    pub bytes_read: u64,
    /// Requests started (connect or first write).
    pub sent: u64,
    /// Open loop: sends the schedule wanted before the end but that never started.
    pub owed: u64,
    /// The most requests in flight at once (connecting, sent, not yet answered).
    pub peak_in_flight: u64,
    pub cpu: CpuTime,
    pub end_ns: u64,
    pub interrupted: bool,
    /// The first error message seen of each kind, for the sentences outside the loop.
    pub first_errors: BTreeMap<ErrorKind, String>,
    pub warnings: Vec<String>,
}

impl Worker<'_> {
    pub(super) fn count_failure(&mut self, i: usize, kind: ErrorKind, now: u64, error: Option<&io::Error>) {
        if self.shared.phase.counts(self.conns[i].origin, now) {
            self.steps[self.conns[i].step].errors.add(kind);
        }
        self.finished += 1;
        self.failed += 1;
        self.in_flight -= 1;
        self.count_second(now, false);
        self.first_errors
            .entry(kind)
            .or_insert_with(|| error.map_or_else(|| default_message(kind).to_string(), |e| e.to_string()));
    }

    #[inline]
    pub(super) fn count_second(&mut self, now: u64, ok: bool) {
        if now >= self.second_end {
            let clock = self.shared.phase.clock_ns();
            self.second = ((now - clock) / 1_000_000_000) as usize;
            self.second_end = clock + (self.second as u64 + 1) * 1_000_000_000;
        }
        self.timeline.record(self.second, ok);
    }

    pub(super) fn publish(&mut self) {
        let (finished, failed) = self.published;
        self.shared.control.publish(self.finished - finished, self.failed - failed);
        self.published = (self.finished, self.failed);
    }

    /// Hands the warm-up's judge the completions of every second that has ended.
    pub(super) fn publish_seconds(&mut self, now: u64) {
        let ended = ((now - self.shared.start_ns) / 1_000_000_000) as usize;
        if ended > self.published_seconds {
            let counts: Vec<u64> = (self.published_seconds..ended).map(|k| self.timeline.0.get(k).map_or(0, |s| s.requests)).collect();
            self.shared.phase.publish(self.published_seconds, &counts);
            self.published_seconds = ended;
        }
    }

    /// Records, per step, the age at `end` of every request left unanswered:
    /// each one sent (or being connected) and not answered, whatever phase it
    /// began in (a request sent in the warm-up and never answered waited
    /// through the whole measurement), and in the open loop each send the
    /// schedule owed but the busy user never started. Returns the sends owed.
    pub(super) fn count_unfinished(&mut self, end: u64) -> u64 {
        let pace = self.shared.pace;
        let steps = self.steps.len();
        let mut owed = 0;
        for c in &self.conns {
            if c.state == State::Done {
                continue;
            }
            let age_us = |origin: u64| (end.saturating_sub(origin) + 500) / 1000;
            // A request begun at the very end (sent by the event that read the previous
            // response) never waited inside the measurement.
            if c.in_flight() && c.origin < end {
                self.steps[c.step].unfinished.record_us(age_us(c.origin));
            }
            // The first unsent request is the waiting user's current step, or the one after a request in flight.
            let (unsent, first_step) = if c.state == State::Waiting { (c.intended, c.step) } else { (c.schedule, c.step + 1) };
            for (k, intended) in pace.owed_times(unsent, end).enumerate() {
                self.steps[(first_step + k) % steps].unfinished.record_us(age_us(intended));
                owed += 1;
            }
        }
        owed
    }

    pub(super) fn finish(mut self, warnings: Vec<String>) -> Outcome {
        let end_ns = sys::now_ns();
        let cpu = CpuTime::thread().since(self.cpu_start);
        let end = self.shared.phase.deadline().map_or(end_ns, |d| d.min(end_ns));
        let owed = self.count_unfinished(end);
        self.publish();
        Outcome {
            steps: self.steps,
            timeline: self.timeline,
            second_latencies: self.second_latencies.unwrap_or_default(),
            bytes_read: self.bytes_read - self.bytes_before,
            sent: self.sent,
            owed,
            peak_in_flight: self.peak_in_flight,
            cpu,
            end_ns: end,
            interrupted: self.interrupted,
            first_errors: self.first_errors,
            warnings,
        }
    }
}

fn default_message(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::Timeout => "no complete response within the timeout",
        ErrorKind::Closed => "the server closed the connection before a complete response",
        ErrorKind::Parse => "the response is not valid HTTP/1.x, or more bytes came than the response framed",
        _ => "unknown",
    }
}
