//! supervised (spec/MICRO.md §4.7): the pairs of §4.5, each pair a unit of
//! supervision. A supervising task per pair holds its two children in a
//! `JoinSet`; when one ends (aborted or panicked) it aborts the other and
//! spawns both again, with fresh channels. A killer task aborts children
//! from outside with their `AbortHandle`. At the end main stops the killer
//! and every pair before it waits for the replacements: a replacement that
//! first runs after the stop ends its restart there, is counted late, and
//! ends at once.

use crate::config::Config;
use crate::fail;
use crate::report::Report;
use serde_json::json;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio::task::{AbortHandle, Id, JoinHandle, JoinSet};
use tokio::time::Instant;

/// Restart intensity per pair, as OTP counts it: more restarts than this
/// within the window and the supervisor gives up (the program exits 1).
/// The highest kill rate (1000 % of 2P per second) aims 20 kills a second at
/// a pair on average, so the limit is never what ends a run.
const MAX_RESTARTS: usize = 1000;
const RESTART_WINDOW: Duration = Duration::from_secs(1);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    A = 0,
    B = 1,
}

/// One process's two counters, on a cache line of its own: A and B of a
/// pair usually run on different workers.
#[derive(Default)]
#[repr(align(64))]
struct Counts {
    sent: AtomicU64,
    received: AtomicU64,
}

/// What a pair keeps across its generations: the counters (written only by
/// the pair's processes, read by main after t1) and who holds each role now.
#[derive(Default)]
pub struct Slot {
    /// A's: pings sent, pongs received.
    initiator: Counts,
    /// B's: pings received, pongs sent.
    echoer: Counts,
    live: Mutex<Live>,
}

#[derive(Default)]
struct Live {
    /// The current children, published by the supervisor; `None` from a
    /// kill or a death until the supervisor has spawned the next two.
    children: Option<[AbortHandle; 2]>,
    /// Whether each role's current process has run (its first clock read).
    running: [bool; 2],
    /// t_kill of the kill aimed at each role, until its replacement runs.
    killed_at: [Option<Instant>; 2],
    /// Each role's current task, to tell generations apart (the tests).
    ids: [Option<Id>; 2],
}

/// How a child ended, for its supervisor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    /// A saw the stop and told main: the pair is over.
    Stopped,
    /// Its partner is gone (B: also A's stop), or it first ran after the
    /// stop (B).
    Over,
}

/// A kill's replacement has run: its restart latency, and whether it first
/// ran after the stop.
struct Restart {
    ns: u64,
    late: bool,
}

impl Slot {
    /// A child's first act: its first clock read, which ends the restart of
    /// the kill it replaces, if any. Returns whether the stop came first
    /// (the child then ends at once).
    fn running(
        &self,
        role: Role,
        stop: &AtomicBool,
        restarts: &mpsc::UnboundedSender<Restart>,
    ) -> bool {
        // The flag before the clock: a child that sees the stop read its
        // clock after it.
        let late = stop.load(Ordering::Acquire);
        let now = Instant::now();
        let killed_at = {
            let mut live = self.live.lock().unwrap();
            live.running[role as usize] = true;
            live.ids[role as usize] = Some(tokio::task::id());
            live.killed_at[role as usize].take()
        };
        if let Some(t_kill) = killed_at {
            let ns = (now - t_kill).as_nanos() as u64;
            let _ = restarts.send(Restart { ns, late });
        }
        late
    }

    /// Whether a kill of this pair still waits for its replacement (its
    /// abort may take effect only after its partner saw the stop).
    fn kill_pending(&self) -> bool {
        self.live
            .lock()
            .unwrap()
            .killed_at
            .iter()
            .any(Option::is_some)
    }

    /// The supervisor's, once it has spawned a generation.
    fn publish(&self, children: [AbortHandle; 2]) {
        self.live.lock().unwrap().children = Some(children);
    }

    /// The supervisor's, when a child has ended: the pair is restarting.
    fn withdraw(&self) {
        let mut live = self.live.lock().unwrap();
        live.children = None;
        live.running = [false; 2];
    }

    /// The killer's: aborts the process that holds `role` now, and says
    /// whether there was one. A role whose process does not run (its pair
    /// is restarting) is skipped.
    pub fn kill(&self, role: Role) -> bool {
        let r = role as usize;
        let mut live = self.live.lock().unwrap();
        match &live.children {
            Some(children) if live.running[r] && !children[r].is_finished() => {}
            _ => return false,
        }
        let t_kill = Instant::now();
        if let Some(children) = live.children.take() {
            children[r].abort();
        }
        live.killed_at[r] = Some(t_kill);
        live.running = [false; 2];
        true
    }

    #[cfg(test)]
    fn ids(&self) -> [Option<Id>; 2] {
        self.live.lock().unwrap().ids
    }
}

/// Main's side of the supervision tree: one supervisor per pair, and the
/// mailboxes through which the processes report to main.
pub struct Tree {
    pub slots: Vec<Arc<Slot>>,
    stop: Arc<AtomicBool>,
    supervisors: Vec<JoinHandle<()>>,
    starts: Vec<oneshot::Sender<()>>,
    readies: mpsc::UnboundedReceiver<()>,
    restarts: mpsc::UnboundedReceiver<Restart>,
    stops: mpsc::UnboundedReceiver<usize>,
}

/// The restarts of a run, once every kill's replacement has run.
pub struct Restarts {
    /// Restart latencies in nanoseconds, one per kill.
    latencies: Vec<u64>,
    /// Kills whose replacement first ran after the stop.
    late: u64,
}

/// The mailboxes of main that every generation of a pair reports to.
#[derive(Clone)]
struct Main {
    /// The restart latency of a kill, from its replacement.
    restarts: mpsc::UnboundedSender<Restart>,
    /// An A has seen the stop and ended (its pair index).
    stopped: mpsc::UnboundedSender<usize>,
}

/// What only the first generation of a pair gets.
struct First {
    ready: mpsc::UnboundedSender<()>,
    go: oneshot::Receiver<()>,
    drop_one: bool,
}

impl Tree {
    pub fn start(pairs: usize, drop_one: bool) -> Tree {
        // A flag shared by every generation, polled once per round trip, as
        // pairs stops (a select! on a channel would cost more than a message).
        let stop = Arc::new(AtomicBool::new(false));
        let (ready, readies) = mpsc::unbounded_channel();
        let (restarted, restarts) = mpsc::unbounded_channel();
        let (stopped, stops) = mpsc::unbounded_channel();
        let main = Main {
            restarts: restarted,
            stopped,
        };
        let mut tree = Tree {
            slots: Vec::with_capacity(pairs),
            stop,
            supervisors: Vec::with_capacity(pairs),
            starts: Vec::with_capacity(pairs),
            readies,
            restarts,
            stops,
        };
        for i in 0..pairs {
            let slot = Arc::new(Slot::default());
            let (go, start) = oneshot::channel();
            let first = First {
                ready: ready.clone(),
                go: start,
                drop_one: drop_one && i == 0,
            };
            tree.supervisors.push(tokio::spawn(supervisor(
                i,
                slot.clone(),
                tree.stop.clone(),
                first,
                main.clone(),
            )));
            tree.slots.push(slot);
            tree.starts.push(go);
        }
        tree
    }

    /// Waits until all 2P processes of the first generation run.
    pub async fn ready(&mut self) {
        for _ in 0..2 * self.slots.len() {
            self.readies.recv().await;
        }
    }

    /// *go* to every A, each on its own oneshot.
    pub fn go(&mut self) {
        for go in self.starts.drain(..) {
            let _ = go.send(());
        }
    }

    /// Stops every pair, then waits until every pair has stopped (its A
    /// has seen the stop) and the replacements of all `kills` kills have
    /// run (late when it first ran after the stop).
    pub async fn stop(&mut self, kills: u64) -> Restarts {
        // Release: a supervisor that sees the stop sees every kill too (the
        // killer has been joined).
        self.stop.store(true, Ordering::Release);
        // A pair restarted after its A saw the stop (a kill still waiting
        // for its replacement) reports twice: count pairs, not reports.
        let mut stopped = vec![false; self.slots.len()];
        let mut left = self.slots.len();
        while left > 0 {
            let pair =
                self.stops.recv().await.unwrap_or_else(|| {
                    fail(format_args!("supervised: a pair ended without stopping"))
                });
            if !std::mem::replace(&mut stopped[pair], true) {
                left -= 1;
            }
        }
        let mut restarts = Restarts {
            latencies: Vec::with_capacity(kills as usize),
            late: 0,
        };
        for _ in 0..kills {
            let restart = self.restarts.recv().await.unwrap_or_else(|| {
                fail(format_args!("supervised: a kill's replacement never ran"))
            });
            restarts.latencies.push(restart.ns);
            restarts.late += u64::from(restart.late);
        }
        restarts
    }

    /// Waits for every supervisor to end (its pair ended, not restarted).
    pub async fn shut_down(&mut self) {
        for supervisor in self.supervisors.drain(..) {
            if let Err(e) = supervisor.await {
                fail(format_args!("supervised: a supervisor failed: {e}"));
            }
        }
    }
}

pub async fn supervised(cfg: &Config) -> Report {
    let mut tree = Tree::start(cfg.pairs as usize, cfg.drop_one);
    tree.ready().await;

    let t0 = Instant::now();
    tree.go();
    let end = t0 + Duration::from_secs_f64(cfg.seconds);
    let killer = tokio::spawn(killer(tree.slots.clone(), cfg.kill_rate, t0, end));
    tokio::time::sleep_until(end).await;
    // The killer's schedule ends before t0 + D: stopping it is joining it.
    let kills = killer
        .await
        .unwrap_or_else(|e| fail(format_args!("supervised: the killer failed: {e}")));
    // The pairs stop before main waits for the replacements (spec §4.7).
    let restarts = tree.stop(kills).await;
    let elapsed = t0.elapsed();

    tree.shut_down().await;
    report(elapsed, &tree.slots, kills, restarts)
}

/// Kills K % of the 2P processes per second: kill j is due at
/// t0 + j / (K/100 × 2P) s while that is before `end`, each aimed at a
/// uniformly random pair and role. Returns the kills made.
async fn killer(slots: Vec<Arc<Slot>>, kill_rate: f64, t0: Instant, end: Instant) -> u64 {
    let processes = 2 * slots.len() as u64;
    let per_second = kill_rate / 100.0 * processes as f64;
    if per_second == 0.0 {
        return 0;
    }
    let mut random = SplitMix64(0x5eed);
    let mut kills = 0;
    for j in 1.. {
        let due = t0 + Duration::from_secs_f64(j as f64 / per_second);
        if due >= end {
            break;
        }
        tokio::time::sleep_until(due).await;
        let target = random.below(processes);
        let role = if target.is_multiple_of(2) {
            Role::A
        } else {
            Role::B
        };
        if slots[(target / 2) as usize].kill(role) {
            kills += 1;
        }
    }
    kills
}

/// A constant-seeded pseudo-random generator (SplitMix64), enough to spread
/// kills uniformly without a dependency.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in 0..n (Lemire's multiply-shift).
    fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next()) * u128::from(n)) >> 64) as u64
    }
}

/// One pair's supervisor: spawns A and B into a JoinSet and, when one ends
/// before the stop, aborts the other (`JoinSet::shutdown`), waits for it and
/// spawns both again with fresh channels. After the stop it lets the
/// generation end by itself and ends with it when its A saw the stop and
/// no kill of the pair waits for its replacement; otherwise (a kill came
/// just before the stop) it starts the pair once more, and the new
/// processes, seeing the stop, end at once.
async fn supervisor(pair: usize, slot: Arc<Slot>, stop: Arc<AtomicBool>, first: First, main: Main) {
    let mut first = Some(first);
    let mut restarts = VecDeque::new();
    loop {
        let (ping, ping_inbox) = mpsc::channel(1);
        let (pong, pong_inbox) = mpsc::channel(1);
        // Only the first generation reports ready and waits for main's go; a
        // restarted A starts exchanging at once.
        let (ready, go, drop_one) = match first.take() {
            Some(f) => (Some(f.ready), Some(f.go), f.drop_one),
            None => (None, None, false),
        };
        let mut children = JoinSet::new();
        let a = children.spawn(initiator(
            pair,
            slot.clone(),
            ping,
            pong_inbox,
            stop.clone(),
            ready.clone(),
            go,
            main.clone(),
        ));
        let b = children.spawn(echoer(
            pair,
            slot.clone(),
            ping_inbox,
            pong,
            ready,
            stop.clone(),
            main.restarts.clone(),
            drop_one,
        ));
        slot.publish([a, b]);

        // The first child to end: it saw the stop (A), its mailbox closed
        // (B after A's stop, or either when its partner was aborted), it was
        // aborted, or it panicked.
        let mut ended = children.join_next().await;
        if stop.load(Ordering::Acquire) {
            // No kill comes after the stop, and each child ends by itself:
            // at the stop (A), or when its partner's channel closes.
            let mut stopped = false;
            while let Some(end) = ended {
                stopped |= matches!(end, Ok(End::Stopped));
                ended = children.join_next().await;
            }
            // A kill made just before the stop may take effect after A saw
            // it: the killed role is still replaced, once, late.
            if stopped && !slot.kill_pending() {
                return;
            }
            slot.withdraw();
        } else {
            slot.withdraw();
            children.shutdown().await;
        }

        let now = Instant::now();
        restarts.push_back(now);
        while restarts.front().is_some_and(|&t| now - t > RESTART_WINDOW) {
            restarts.pop_front();
        }
        if restarts.len() > MAX_RESTARTS {
            fail(format_args!(
                "supervised: pair {pair} restarted more than {MAX_RESTARTS} times within {RESTART_WINDOW:?}"
            ));
        }
    }
}

#[allow(clippy::too_many_arguments)]
async fn initiator(
    pair: usize,
    slot: Arc<Slot>,
    ping: mpsc::Sender<u64>,
    mut pongs: mpsc::Receiver<u64>,
    stop: Arc<AtomicBool>,
    ready: Option<mpsc::UnboundedSender<()>>,
    go: Option<oneshot::Receiver<()>>,
    main: Main,
) -> End {
    if slot.running(Role::A, &stop, &main.restarts) {
        // A replacement that first runs after the stop ends at once.
        let _ = main.stopped.send(pair);
        return End::Stopped;
    }
    if let Some(ready) = ready {
        let _ = ready.send(());
    }
    if let Some(go) = go {
        let _ = go.await;
    }
    let counts = &slot.initiator;
    let mut k = 0;
    while !stop.load(Ordering::Relaxed) {
        k += 1;
        counts.sent.fetch_add(1, Ordering::Relaxed);
        if ping.send(k).await.is_err() {
            return End::Over; // B is gone: the supervisor restarts the pair
        }
        match pongs.recv().await {
            Some(got) if got == k => counts.received.fetch_add(1, Ordering::Relaxed),
            None => return End::Over, // B is gone
            Some(got) => fail(format_args!(
                "supervised: pair {pair} expected pong {k}, got {got}"
            )),
        };
    }
    drop(ping); // the echoer's stop message
    let _ = main.stopped.send(pair);
    End::Stopped
}

#[allow(clippy::too_many_arguments)]
async fn echoer(
    pair: usize,
    slot: Arc<Slot>,
    mut pings: mpsc::Receiver<u64>,
    pong: mpsc::Sender<u64>,
    ready: Option<mpsc::UnboundedSender<()>>,
    stop: Arc<AtomicBool>,
    restarts: mpsc::UnboundedSender<Restart>,
    drop_one: bool,
) -> End {
    if slot.running(Role::B, &stop, &restarts) {
        return End::Over; // a replacement that first runs after the stop
    }
    if let Some(ready) = ready {
        let _ = ready.send(());
    }
    if drop_one {
        pings.recv().await;
    }
    let counts = &slot.echoer;
    let mut expected = 0;
    // None: A stopped, or was aborted; either way this generation is over.
    while let Some(k) = pings.recv().await {
        expected += 1;
        if k != expected {
            fail(format_args!(
                "supervised: pair {pair} expected ping {expected}, got {k}"
            ));
        }
        counts.received.fetch_add(1, Ordering::Relaxed);
        counts.sent.fetch_add(1, Ordering::Relaxed);
        if pong.send(k).await.is_err() {
            return End::Over; // A is gone
        }
    }
    End::Over
}

/// Counts after t1, when no pair runs.
fn report(elapsed: Duration, slots: &[Arc<Slot>], kills: u64, restarts: Restarts) -> Report {
    let (mut pings_sent, mut pings_received, mut pongs_sent, mut pongs_received) = (0, 0, 0, 0);
    for slot in slots {
        pings_sent += slot.initiator.sent.load(Ordering::Relaxed);
        pongs_received += slot.initiator.received.load(Ordering::Relaxed);
        pings_received += slot.echoer.received.load(Ordering::Relaxed);
        pongs_sent += slot.echoer.sent.load(Ordering::Relaxed);
    }
    let received = pings_received + pongs_received;
    let expected = pings_sent + pongs_sent;
    let lost = expected.checked_sub(received).unwrap_or_else(|| {
        fail(format_args!(
            "supervised: {received} messages received but only {expected} sent"
        ))
    });
    if let Err(why) = check_losses(lost, kills) {
        fail(format_args!("supervised: {why}"));
    }
    let Restarts {
        mut latencies,
        late,
    } = restarts;
    if latencies.len() as u64 != kills || late > kills {
        fail(format_args!(
            "supervised: {} restarts ({late} late) for {kills} kills",
            latencies.len()
        ));
    }
    latencies.sort_unstable();
    let elapsed_ns = elapsed.as_nanos() as u64;
    let mut report = Report::new(pongs_received, elapsed, received, expected);
    report.lost = lost;
    report.extra = json!({
        "round_trips": pongs_received,
        "messages": received,
        "messages_per_s": rate(received, elapsed_ns),
        "kills": kills,
        "lost": lost,
        "restart_p50_ns": nearest_rank(&latencies, 50),
        "restart_p99_ns": nearest_rank(&latencies, 99),
        "late_restarts": late,
    });
    report
}

/// A kill ends one pair, which holds at most one message in flight.
fn check_losses(lost: u64, kills: u64) -> Result<(), String> {
    if lost > kills {
        return Err(format!(
            "{lost} messages lost but only {kills} kills, which lose at most one each"
        ));
    }
    Ok(())
}

fn rate(messages: u64, elapsed_ns: u64) -> f64 {
    if elapsed_ns == 0 {
        0.0
    } else {
        messages as f64 / (elapsed_ns as f64 / 1e9)
    }
}

/// The `pct`-th percentile of sorted values by nearest rank; 0 when empty.
fn nearest_rank(sorted: &[u64], pct: usize) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (pct * sorted.len()).div_ceil(100).max(1);
    sorted[rank - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_by_nearest_rank() {
        let hundred: Vec<u64> = (1..=100).collect();
        assert_eq!(nearest_rank(&hundred, 50), 50);
        assert_eq!(nearest_rank(&hundred, 99), 99);
        assert_eq!(nearest_rank(&[7], 50), 7);
        assert_eq!(nearest_rank(&[7], 99), 7);
        assert_eq!(nearest_rank(&[1, 2, 3], 50), 2);
        assert_eq!(nearest_rank(&[1, 2, 3], 99), 3);
        assert_eq!(nearest_rank(&[], 99), 0);
    }

    #[test]
    fn more_losses_than_kills_fail() {
        assert_eq!(check_losses(0, 0), Ok(()));
        assert_eq!(check_losses(3, 3), Ok(()));
        assert!(
            check_losses(1, 0)
                .unwrap_err()
                .contains("1 messages lost but only 0 kills")
        );
    }

    #[test]
    fn the_generator_spreads_kills_over_every_process() {
        let mut random = SplitMix64(0x5eed);
        let mut hits = [0u32; 8];
        for _ in 0..8000 {
            hits[random.below(8) as usize] += 1;
        }
        assert!(hits.iter().all(|&h| (800..1200).contains(&h)), "{hits:?}");
    }

    async fn until(what: &str, mut done: impl FnMut() -> bool) {
        let wait = async {
            while !done() {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
        };
        tokio::time::timeout(Duration::from_secs(5), wait)
            .await
            .unwrap_or_else(|_| panic!("{what} within 5 s"));
    }

    /// spec §8: a pair killed by hand (one role) is restarted as a whole
    /// pair, both processes new, and exchanges again from ping(1).
    #[test]
    fn a_killed_process_restarts_its_whole_pair() {
        // One thread: nothing runs between two calls without an await, so the
        // second kill below meets the pair still restarting.
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        rt.block_on(async {
            let mut tree = Tree::start(2, false);
            tree.ready().await;
            tree.go();
            let (slot, other) = (tree.slots[0].clone(), tree.slots[1].clone());
            until("100 round trips", || {
                slot.initiator.received.load(Ordering::Relaxed) >= 100
            })
            .await;
            let before = slot.ids();
            let untouched = other.ids();
            assert!(before.iter().all(Option::is_some));

            assert!(slot.kill(Role::B), "B runs: the kill is made");
            assert!(!slot.kill(Role::A), "a pair that restarts is skipped");
            until("both processes replaced", || {
                let now = slot.ids();
                now[0] != before[0] && now[1] != before[1]
            })
            .await;
            assert_eq!(other.ids(), untouched, "the other pair is not restarted");

            // The new pair exchanges: B checks that pings start again at 1.
            let at_restart = slot.initiator.received.load(Ordering::Relaxed);
            until("round trips after the restart", || {
                slot.initiator.received.load(Ordering::Relaxed) > at_restart + 100
            })
            .await;
            let restarts = tree.stop(1).await;
            assert!(restarts.latencies[0] > 0, "{:?}", restarts.latencies);
            assert_eq!(restarts.late, 0, "the replacement ran before the stop");
            tree.shut_down().await;
            let line = report(Duration::from_millis(1), &tree.slots, 1, restarts);
            assert!(line.lost <= 1);
            assert_eq!(line.received + line.lost, line.expected);
            assert_eq!(line.extra["late_restarts"], 0);
        });
    }

    /// spec §4.7: a kill whose replacement first runs after the stop ends
    /// its restart there, counts as late, and its pair ends without being
    /// started again.
    #[test]
    fn a_replacement_after_the_stop_is_late_and_ends_at_once() {
        // One thread: the stop is set before the supervisor can restart.
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        rt.block_on(async {
            let mut tree = Tree::start(2, false);
            tree.ready().await;
            tree.go();
            let slot = tree.slots[0].clone();
            until("100 round trips", || {
                slot.initiator.received.load(Ordering::Relaxed) >= 100
            })
            .await;
            let before = slot.ids();
            assert!(slot.kill(Role::A), "A runs: the kill is made");
            let restarts = tree.stop(1).await;
            assert_eq!(restarts.late, 1, "the replacement ran after the stop");
            assert!(restarts.latencies[0] > 0, "{:?}", restarts.latencies);
            let now = slot.ids();
            assert!(now[0] != before[0], "A was replaced");
            let at_stop = slot.initiator.sent.load(Ordering::Relaxed);
            tree.shut_down().await;
            assert_eq!(
                slot.initiator.sent.load(Ordering::Relaxed),
                at_stop,
                "the late replacement sent nothing"
            );
            let line = report(Duration::from_millis(1), &tree.slots, 1, restarts);
            assert!(line.lost <= 1);
            assert_eq!(line.received + line.lost, line.expected);
            assert_eq!(line.extra["late_restarts"], 1);
        });
    }
}
