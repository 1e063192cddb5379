//! Failed requests counted by kind. On the hot path an error is one counter
//! increment; the sentence explaining it is written once, outside the loop.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Why a request failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ErrorKind {
    /// The connection could not be established (refused, unreachable, no ports, no file descriptors).
    Connect,
    /// No complete response within the timeout (connecting included).
    Timeout,
    /// The peer reset the connection (ECONNRESET, EPIPE).
    Reset,
    /// The peer closed the connection before the response was complete.
    Closed,
    /// Any other error while reading.
    Read,
    /// Any other error while writing.
    Write,
    /// The response was not valid HTTP/1.x, or bytes came that no request asked for.
    Parse,
}

impl ErrorKind {
    pub const ALL: [ErrorKind; 7] = [
        ErrorKind::Connect,
        ErrorKind::Timeout,
        ErrorKind::Reset,
        ErrorKind::Closed,
        ErrorKind::Read,
        ErrorKind::Write,
        ErrorKind::Parse,
    ];

    /// The name used in JSON and in the human summary.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Connect => "connect",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Reset => "reset",
            ErrorKind::Closed => "closed",
            ErrorKind::Read => "read",
            ErrorKind::Write => "write",
            ErrorKind::Parse => "parse",
        }
    }
}

/// Error counts of a step or of a whole run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorCounts {
    pub connect: u64,
    pub timeout: u64,
    pub reset: u64,
    pub closed: u64,
    pub read: u64,
    pub write: u64,
    pub parse: u64,
    /// Responses whose status was not the expected one, by status code.
    pub status: BTreeMap<u16, u64>,
}

impl ErrorCounts {
    #[inline]
    pub fn add(&mut self, kind: ErrorKind) {
        *self.slot(kind) += 1;
    }

    pub fn add_status(&mut self, status: u16) {
        *self.status.entry(status).or_insert(0) += 1;
    }

    pub fn get(&self, kind: ErrorKind) -> u64 {
        match kind {
            ErrorKind::Connect => self.connect,
            ErrorKind::Timeout => self.timeout,
            ErrorKind::Reset => self.reset,
            ErrorKind::Closed => self.closed,
            ErrorKind::Read => self.read,
            ErrorKind::Write => self.write,
            ErrorKind::Parse => self.parse,
        }
    }

    fn slot(&mut self, kind: ErrorKind) -> &mut u64 {
        match kind {
            ErrorKind::Connect => &mut self.connect,
            ErrorKind::Timeout => &mut self.timeout,
            ErrorKind::Reset => &mut self.reset,
            ErrorKind::Closed => &mut self.closed,
            ErrorKind::Read => &mut self.read,
            ErrorKind::Write => &mut self.write,
            ErrorKind::Parse => &mut self.parse,
        }
    }

    pub fn merge(&mut self, other: &ErrorCounts) {
        for kind in ErrorKind::ALL {
            *self.slot(kind) += other.get(kind);
        }
        for (&code, &n) in &other.status {
            *self.status.entry(code).or_insert(0) += n;
        }
    }

    pub fn total(&self) -> u64 {
        ErrorKind::ALL.iter().map(|&k| self.get(k)).sum::<u64>() + self.status.values().sum::<u64>()
    }

    /// `connect 3, status 500: 2`, or `none`.
    pub fn describe(&self) -> String {
        let mut parts: Vec<String> = ErrorKind::ALL
            .iter()
            .filter(|&&k| self.get(k) > 0)
            .map(|&k| format!("{} {}", k.name(), self.get(k)))
            .collect();
        parts.extend(self.status.iter().map(|(code, n)| format!("status {code}: {n}")));
        if parts.is_empty() { "none".to_string() } else { parts.join(", ") }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_merge_and_describe() {
        let mut a = ErrorCounts::default();
        a.add(ErrorKind::Reset);
        a.add_status(500);
        let mut b = ErrorCounts::default();
        b.add(ErrorKind::Reset);
        b.add_status(404);
        a.merge(&b);
        assert_eq!(a.total(), 4);
        assert_eq!(a.describe(), "reset 2, status 404: 1, status 500: 1");
        let json = serde_json::to_string(&a).unwrap();
        assert_eq!(serde_json::from_str::<ErrorCounts>(&json).unwrap(), a);
    }
}
