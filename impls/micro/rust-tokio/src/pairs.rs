//! pairs (spec/MICRO.md §4.5): P pairs of tasks bouncing an integer over
//! capacity-1 mpsc channels for D seconds.

use crate::config::Config;
use crate::fail;
use crate::report::Report;
use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

type Counts = mpsc::UnboundedSender<(usize, u64)>;

pub async fn pairs(cfg: &Config) -> Report {
    let p = cfg.pairs as usize;
    // A flag polled once per round trip: a select! on a cancellation channel
    // in the hot loop would cost more than the message itself.
    let stop = Arc::new(AtomicBool::new(false));
    let (ready, mut readies) = mpsc::unbounded_channel();
    let (initiated, mut initiations) = mpsc::unbounded_channel();
    let (echoed, mut echoes) = mpsc::unbounded_channel();
    let mut starts = Vec::with_capacity(p);
    for i in 0..p {
        let (ping, ping_inbox) = mpsc::channel(1);
        let (pong, pong_inbox) = mpsc::channel(1);
        let (go, start) = oneshot::channel();
        starts.push(go);
        tokio::spawn(initiator(
            i,
            ping,
            pong_inbox,
            stop.clone(),
            ready.clone(),
            start,
            initiated.clone(),
        ));
        tokio::spawn(echoer(
            i,
            ping_inbox,
            pong,
            ready.clone(),
            echoed.clone(),
            cfg.drop_one && i == 0,
        ));
    }
    for _ in 0..2 * p {
        readies.recv().await;
    }

    let t0 = Instant::now();
    for go in starts {
        let _ = go.send(());
    }
    tokio::time::sleep(Duration::from_secs_f64(cfg.seconds)).await;
    stop.store(true, Ordering::Relaxed);
    let (mut round_trips, mut pings) = (vec![0; p], vec![0; p]);
    for _ in 0..p {
        let (i, n) = initiations.recv().await.unwrap_or_default();
        round_trips[i] = n;
    }
    for _ in 0..p {
        let (i, n) = echoes.recv().await.unwrap_or_default();
        pings[i] = n;
    }
    report(t0.elapsed(), &round_trips, &pings)
}

fn report(elapsed: Duration, round_trips: &[u64], pings: &[u64]) -> Report {
    for (i, (trips, pings)) in round_trips.iter().zip(pings).enumerate() {
        if trips != pings {
            fail(format_args!(
                "pairs: pair {i} made {trips} round trips but its echoer received {pings} pings"
            ));
        }
    }
    let total: u64 = round_trips.iter().sum();
    let received = total + pings.iter().sum::<u64>();
    let mut report = Report::new(total, elapsed, received, 2 * total);
    report.extra = json!({
        "round_trips": total,
        "messages": 2 * total,
        "messages_per_s": 2.0 * total as f64 / elapsed.as_secs_f64(),
        "min_pair_round_trips": round_trips.iter().min().copied().unwrap_or(0),
    });
    report
}

async fn initiator(
    pair: usize,
    ping: mpsc::Sender<u64>,
    mut pongs: mpsc::Receiver<u64>,
    stop: Arc<AtomicBool>,
    ready: mpsc::UnboundedSender<()>,
    start: oneshot::Receiver<()>,
    done: Counts,
) {
    let _ = ready.send(());
    let _ = start.await;
    let mut k = 0;
    while !stop.load(Ordering::Relaxed) {
        k += 1;
        let _ = ping.send(k).await;
        match pongs.recv().await {
            Some(got) if got == k => {}
            got => fail(format_args!(
                "pairs: pair {pair} expected pong {k}, got {got:?}"
            )),
        }
    }
    drop(ping); // the echoer's stop message
    let _ = done.send((pair, k));
}

async fn echoer(
    pair: usize,
    mut pings: mpsc::Receiver<u64>,
    pong: mpsc::Sender<u64>,
    ready: mpsc::UnboundedSender<()>,
    done: Counts,
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
                "pairs: pair {pair} expected ping {received}, got {k}"
            ));
        }
        let _ = pong.send(k).await;
    }
    let _ = done.send((pair, received));
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;
    use serde_json::Value;

    /// spec §4.5: a run in which no pair completed a round trip is a result.
    #[test]
    fn no_round_trip_prints_zeros() {
        let report = report(Duration::from_micros(1500), &[0, 0], &[0, 0]);
        assert_eq!(report.verify(1, 1), Ok(()));
        let cfg =
            Config::try_parse_from(["micro", "pairs", "--pairs", "2", "--cores", "1"]).unwrap();
        let line: Value = serde_json::from_str(&report.to_json(&cfg, 1)).unwrap();
        for field in ["ops", "round_trips", "messages", "min_pair_round_trips"] {
            assert_eq!(line[field], 0, "{field} in {line}");
        }
        assert_eq!(line["ns_per_op"].as_f64(), Some(0.0), "{line}");
        assert_eq!(line["messages_per_s"].as_f64(), Some(0.0), "{line}");
    }
}
