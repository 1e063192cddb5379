//! spawn, maxprocs and idle (spec/MICRO.md §4.3, §4.4, §4.6): many tasks
//! alive at once, each costing its future's state, its task header and, for
//! spawn, its mailbox: a bounded mpsc channel like every other task's.

use crate::config::Config;
use crate::fail;
use crate::report::Report;
use serde_json::json;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::Instant;

pub async fn spawn(cfg: &Config) -> Report {
    let n = cfg.procs;
    // Main's mailboxes: unbounded, so no task ever waits for main.
    let (ack, mut acks) = mpsc::unbounded_channel();
    let (stopped, mut stops) = mpsc::unbounded_channel();
    let mut mailboxes = Vec::with_capacity(n as usize);

    let t0 = Instant::now();
    for _ in 0..n {
        // The same kind of mailbox as a pingping task's (spec §4.3): an mpsc
        // channel of capacity 1, not a oneshot, which could carry only one
        // message in its life and costs less than a real mailbox.
        let (mailbox, inbox) = mpsc::channel(1);
        mailboxes.push(mailbox);
        tokio::spawn(dormant(inbox, ack.clone(), stopped.clone()));
    }
    if cfg.drop_one {
        acks.recv().await;
    }
    let mut received = 0;
    for _ in 0..n {
        acks.recv().await;
        received += 1;
    }
    let elapsed = t0.elapsed();

    for mailbox in mailboxes {
        // Never waits: nothing else is ever sent to a dormant task.
        let _ = mailbox.try_send(());
    }
    for _ in 0..n {
        stops.recv().await;
        received += 1;
    }
    let mut report = Report::new(n, elapsed, received, 2 * n);
    report.extra = json!({"procs": n, "ns_per_proc": elapsed.as_nanos() as f64 / n as f64});
    report
}

/// Acknowledges that it runs, then waits for its stop message.
async fn dormant(
    mut inbox: mpsc::Receiver<()>,
    ack: mpsc::UnboundedSender<()>,
    stopped: mpsc::UnboundedSender<()>,
) {
    let _ = ack.send(());
    let _ = inbox.recv().await;
    let _ = stopped.send(());
}

pub async fn idle(cfg: &Config) -> Report {
    let n = cfg.procs;
    let sleep = Duration::from_millis(cfg.sleep_ms);
    let mut tasks = Vec::with_capacity(n as usize);

    let t0 = Instant::now();
    for i in 0..n {
        // A tokio join carries a value: the completion notice is the 1 the
        // task returns.
        let notice = u64::from(!(cfg.drop_one && i == 0));
        tasks.push(tokio::spawn(async move {
            tokio::time::sleep(sleep).await;
            notice
        }));
    }
    let mut notices = 0;
    for task in tasks {
        notices += task.await.unwrap_or(0);
    }
    let elapsed = t0.elapsed();

    if elapsed < sleep {
        fail(format_args!(
            "idle: all tasks ended after {elapsed:?}, before their sleep of {sleep:?}"
        ));
    }
    let mut report = Report::new(n, elapsed, notices, n);
    report.ns_per_op = Some((elapsed.as_nanos() as f64 - sleep.as_nanos() as f64) / n as f64);
    report.extra = json!({"tasks": n, "sleep_ns": sleep.as_nanos() as u64});
    report
}
