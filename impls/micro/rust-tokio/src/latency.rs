//! pingping and pingpong (spec/MICRO.md §4.1, §4.2): two tasks, each owning
//! the receiving end of a bounded tokio::sync::mpsc channel.

use crate::config::Config;
use crate::fail;
use crate::report::Report;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

/// One pingping message. The Vec is moved into the channel: its pointer
/// travels, its bytes are never copied.
struct Parcel {
    k: u64,
    data: Vec<u8>,
}

/// A fresh payload: allocated and filled (one memset) for every message.
fn payload(size: u64, k: u64) -> Vec<u8> {
    vec![(k % 251) as u8; size as usize]
}

impl Parcel {
    fn check(&self, who: &str, k: u64, size: u64) {
        let fill = (k % 251) as u8;
        if self.k != k {
            fail(format_args!(
                "pingping: process {who} expected message {k}, got {}",
                self.k
            ));
        }
        if self.data.len() as u64 != size {
            fail(format_args!(
                "pingping: process {who}: message {k} has {} bytes, expected {size}",
                self.data.len()
            ));
        }
        if self.data[0] != fill || self.data[size as usize - 1] != fill {
            fail(format_args!(
                "pingping: process {who}: message {k} is not filled with {fill}"
            ));
        }
    }
}

/// The channels every process of a benchmark shares with main: main's own
/// mailbox for *ready* and *done* messages.
type Mailbox<T> = mpsc::UnboundedSender<T>;

pub async fn pingping(cfg: &Config) -> Report {
    // Capacity 1: both tasks send before they receive (IMB PingPing), and
    // lock-step never leaves more than one more message waiting.
    let (to_a, inbox_a) = mpsc::channel(1);
    let (to_b, inbox_b) = mpsc::channel(1);
    let (ready, mut readies) = mpsc::unbounded_channel();
    let (done, mut dones) = mpsc::unbounded_channel();
    // Each task's go comes alone on a oneshot of its own (spec §4.1): A's
    // message 1 may reach inbox_b before main's go reaches B.
    let (go_a, start_a) = oneshot::channel();
    let (go_b, start_b) = oneshot::channel();
    let (size, reps) = (cfg.size, cfg.reps);
    tokio::spawn(exchanger(
        "A",
        size,
        reps,
        inbox_a,
        to_b,
        ready.clone(),
        start_a,
        done.clone(),
        false,
    ));
    tokio::spawn(exchanger(
        "B",
        size,
        reps,
        inbox_b,
        to_a,
        ready,
        start_b,
        done,
        cfg.drop_one,
    ));
    readies.recv().await;
    readies.recv().await;

    let t0 = Instant::now();
    let _ = go_a.send(());
    let _ = go_b.send(());
    let received = dones.recv().await.unwrap_or(0) + dones.recv().await.unwrap_or(0);
    Report::new(reps, t0.elapsed(), received, 2 * reps)
}

#[allow(clippy::too_many_arguments)]
async fn exchanger(
    who: &'static str,
    size: u64,
    reps: u64,
    mut inbox: mpsc::Receiver<Parcel>,
    out: mpsc::Sender<Parcel>,
    ready: Mailbox<()>,
    start: oneshot::Receiver<()>,
    done: Mailbox<u64>,
    drop_one: bool,
) {
    let _ = ready.send(());
    let _ = start.await;
    if drop_one {
        inbox.recv().await;
    }
    let mut received = 0;
    for k in 1..=reps {
        if out
            .send(Parcel {
                k,
                data: payload(size, k),
            })
            .await
            .is_err()
        {
            fail(format_args!(
                "pingping: process {who}: the other process is gone before message {k}"
            ));
        }
        match inbox.recv().await {
            Some(parcel) => parcel.check(who, k, size),
            None => fail(format_args!(
                "pingping: process {who}: mailbox closed before message {k}"
            )),
        }
        received += 1;
    }
    let _ = done.send(received);
}

pub async fn pingpong(cfg: &Config) -> Report {
    // Capacity 1 is the closest tokio has to a rendezvous; a round trip never
    // has more than one message in flight anyway.
    let (pings, ping_inbox) = mpsc::channel(1);
    let (pongs, pong_inbox) = mpsc::channel(1);
    let (ready, mut readies) = mpsc::unbounded_channel();
    let (pinger_done, mut pinger_dones) = mpsc::unbounded_channel();
    let (ponger_done, mut ponger_dones) = mpsc::unbounded_channel();
    let (go, start) = oneshot::channel();
    tokio::spawn(ponger(
        ping_inbox,
        pongs,
        ready.clone(),
        ponger_done,
        cfg.drop_one,
    ));
    tokio::spawn(pinger(
        cfg.reps,
        pings,
        pong_inbox,
        ready,
        start,
        pinger_done,
    ));
    readies.recv().await;
    readies.recv().await;

    let t0 = Instant::now();
    let _ = go.send(());
    let pongs_received = pinger_dones.recv().await.unwrap_or(0);
    let elapsed = t0.elapsed();
    // The pinger has ended and dropped its sender: that is the ponger's stop.
    let received = pongs_received + ponger_dones.recv().await.unwrap_or(0);
    Report::new(cfg.reps, elapsed, received, 2 * cfg.reps)
}

async fn pinger(
    reps: u64,
    pings: mpsc::Sender<u64>,
    mut pongs: mpsc::Receiver<u64>,
    ready: Mailbox<()>,
    start: oneshot::Receiver<()>,
    done: Mailbox<u64>,
) {
    let _ = ready.send(());
    let _ = start.await;
    for k in 1..=reps {
        let _ = pings.send(k).await;
        match pongs.recv().await {
            Some(got) if got == k => {}
            got => fail(format_args!(
                "pingpong: pinger expected pong {k}, got {got:?}"
            )),
        }
    }
    let _ = done.send(reps);
}

async fn ponger(
    mut pings: mpsc::Receiver<u64>,
    pongs: mpsc::Sender<u64>,
    ready: Mailbox<()>,
    done: Mailbox<u64>,
    drop_one: bool,
) {
    let _ = ready.send(());
    if drop_one {
        pings.recv().await;
    }
    let mut received = 0;
    while let Some(k) = pings.recv().await {
        received += 1;
        if k != received {
            fail(format_args!(
                "pingpong: ponger expected ping {received}, got {k}"
            ));
        }
        let _ = pongs.send(k).await;
    }
    let _ = done.send(received);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Regression for "B expected GO, got Parcel" (spec §4.1): each side of
    /// pingping starts on its own go, and A's message 1 may reach B before it.
    #[test]
    fn pingping_sides_start_on_their_own_go() {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_time()
            .build()
            .unwrap();
        rt.block_on(async {
            let (to_a, inbox_a) = mpsc::channel(1);
            let (to_b, inbox_b) = mpsc::channel(1);
            let b_mailbox = to_b.clone();
            let (ready, mut readies) = mpsc::unbounded_channel();
            let (done, mut dones) = mpsc::unbounded_channel();
            let (go_a, start_a) = oneshot::channel();
            let (go_b, start_b) = oneshot::channel();
            let (a, b) = (ready.clone(), done.clone());
            tokio::spawn(exchanger("A", 100, 50, inbox_a, to_b, a, start_a, b, false));
            tokio::spawn(exchanger(
                "B", 100, 50, inbox_b, to_a, ready, start_b, done, false,
            ));
            readies.recv().await;
            readies.recv().await;

            let _ = go_a.send(());
            let full = async {
                while b_mailbox.capacity() > 0 {
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
            };
            tokio::time::timeout(Duration::from_secs(5), full)
                .await
                .expect("A sends its message 1 on its own go");
            let early = tokio::time::timeout(Duration::from_millis(100), dones.recv()).await;
            assert!(early.is_err(), "a side finished while B waited for its go");
            assert_eq!(
                b_mailbox.capacity(),
                0,
                "B took a message before its own go"
            );

            let _ = go_b.send(());
            assert_eq!(dones.recv().await, Some(50));
            assert_eq!(dones.recv().await, Some(50));
        });
    }
}
