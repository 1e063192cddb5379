//! The report's section on clients-held searches (the profile's `[held]`),
//! from the run's `held_searches` and `held_steps`: per core count, a table
//! of the most long-poll clients each implementation held waiting at once
//! (with "≈" between implementations within the search's precision), the
//! server's memory per waiting client and its CPU while they waited, and why
//! each search stopped (clients answered late, errors, unanswered, a limit of
//! the machine or the profile, named); and a chart of memory per waiting
//! client against the clients waiting, one line per implementation. It says
//! when the poll's wait was shorter than the spec's. Absent when the run
//! holds no such search, so reports of other runs are unchanged.

use super::block::Block;
use super::micro_charts::{self, Line, Spec};
use super::palette::Palette;
use super::table::{Table, mib, thousands};
use crate::run::held::accept;
use crate::stats::slope::{self, Slope};
use crate::store::held::{AcceptRecord, HeldSearchRecord, HeldStepRecord};
use crate::store::{ImplRecord, Store};
use anyhow::Result;

/// The section's blocks for run `run_id`; none when it holds no clients-held search.
pub fn section(store: &Store, run_id: i64) -> Result<Vec<Block>> {
    let searches = store.held_searches(run_id)?;
    if searches.is_empty() {
        return Ok(Vec::new());
    }
    let implementations = store.load_run(run_id)?.implementations;
    Ok(blocks(&searches, &implementations))
}

pub fn blocks(searches: &[HeldSearchRecord], implementations: &[ImplRecord]) -> Vec<Block> {
    let palette = Palette::new(implementations.iter().map(|i| (i.name.as_str(), i.manifest.model)));
    let mut doc = vec![Block::Heading(2, "Clients held".into()), Block::Para(explanation(searches))];
    let mut cores: Vec<u32> = searches.iter().map(|s| s.cores).collect();
    cores.dedup();
    for k in cores {
        let mine: Vec<&HeldSearchRecord> = searches.iter().filter(|s| s.cores == k).collect();
        doc.push(Block::Heading(3, format!("Waiting clients at {k} core(s)")));
        doc.push(Block::Table(table(&mine)));
        doc.extend(ceiling(&mine).map(Block::Para));
        doc.extend(chart(&mine, &palette, k).into_iter().map(Block::Chart));
        doc.push(Block::Details { summary: format!("Every step at {k} core(s)"), open: false, body: vec![Block::Table(steps(&mine))] });
    }
    doc
}

fn explanation(searches: &[HeldSearchRecord]) -> String {
    let first = &searches[0];
    let mut text = format!(
        "The most long-poll clients each implementation held waiting at once, every one answered within the poll's wait plus {} ms, \
         with no error and none left unanswered (spec/PROFILES.md, Clients held). Each search runs on a fresh server: steps of N clients, \
         each sending one GET /longPoll, started at {} per second or faster (all within half the wait), N doubling from {} while steps pass, \
         then bisected to within {:.0}%. Memory per waiting client is the slope of the server's peak RSS during a step less its RSS at rest before the \
         first client came, over the clients of the passing steps measured before any larger one (least squares; a server's RSS seldom falls back after \
         a larger step, so a later, smaller step would count that step's memory too), with its 95% interval [a–b] from three such steps on, \
         \"(2 steps)\" from two; with one, its RSS over N (\"at N\" when that is not the held step, \"≤\" an upper bound when every passing step came after a larger one); CPU while waiting is the server's between the last client's arrival and the first answer.",
        thousands(first.bound_ms),
        thousands(first.spawn_rate as u64),
        thousands(first.start_clients),
        first.precision * 100.0
    );
    if searches.iter().any(|s| s.accept.is_some()) {
        text.push_str(&format!(
            " Accepts is each server's accept rate, measured before its first step: new connections a second taken to their first answer \
             in a burst of {} clients, each sending GET / once on a fresh connection it keeps open, all connecting within {:.0} ms, \
             the median of {} such bursts (after {} unstored of {}; \"≥\": the generator's CPU was the limit), the slowest and fastest burst in brackets. \
             A step's clients arrive at no more than half of the slowest burst's rate, so that a step measures how many clients a server holds, not how fast it accepts them; \
             where that rate cannot bring more clients within half the wait, the search stops there and the figure is \"≥ N (arrivals)\": \
             a lower bound set by accepting, not a holding limit (a longer wait measures more).",
            thousands(accept::BURST),
            accept::BURST as f64 / accept::SPAWN_RATE * 1000.0,
            accept::BURSTS,
            accept::WARM_BURSTS,
            thousands(accept::WARM_BURST),
        ));
    }
    if let Some(s) = searches.iter().find(|s| s.wait_ms != s.spec_wait_ms) {
        text.push_str(&format!(
            " The poll's wait was {} ms instead of the spec's {} ms (CONCUR_LONGPOLL_MS), so that the searches fit the profile's time; \
             a server holds each client that long.",
            thousands(s.wait_ms),
            thousands(s.spec_wait_ms)
        ));
    }
    text
}

/// An accept rate as the table shows it: the median burst's, the slowest and fastest beside it.
fn accepts(a: &AcceptRecord) -> String {
    let rate = |r: f64| thousands(r.round() as u64);
    let median = format!("{}{}", if a.gen_saturated { "≥ " } else { "" }, rate(a.per_s));
    if a.high > a.low { format!("{median} [{}–{}]", rate(a.low), rate(a.high)) } else { median }
}

/// What the machine lets one search hold, and which searches it or the profile stopped:
/// none when no search recorded its ceiling (a file of an older concur).
fn ceiling(searches: &[&HeldSearchRecord]) -> Option<String> {
    let lowest = searches.iter().filter_map(|s| s.ceiling.as_ref()).min_by_key(|c| c.clients)?;
    let highest = searches.iter().filter_map(|s| s.ceiling.as_ref()).map(|c| c.clients).max().unwrap_or(lowest.clients);
    let names = |pick: &dyn Fn(&HeldSearchRecord) -> bool| searches.iter().filter(|s| pick(s)).map(|s| s.implementation.as_str()).collect::<Vec<_>>();
    let reached = names(&|s| !s.by_arrival && matches!((s.clients, &s.ceiling), (Some(c), Some(m)) if c >= m.clients));
    let profile = names(&|s| !s.by_arrival && s.status == "limit" && s.clients.is_some_and(|c| c >= s.max_clients));
    let most = if highest > lowest.clients { format!("{}–{}", thousands(lowest.clients), thousands(highest)) } else { thousands(lowest.clients) };
    let mut text = format!("The machine's ceiling for one search: {most} clients ({}).", lowest.limit);
    text.push_str(&match reached.as_slice() {
        [] => " No implementation reached it.".to_string(),
        all => format!(" Reached by {}: their figure is the machine's, not theirs.", all.join(", ")),
    });
    if !profile.is_empty() {
        text.push_str(&format!(
            " Stopped by the profile's max_clients ({}) below it: {} (a short form; the standard profile searches up to the ceiling).",
            thousands(searches[0].max_clients),
            profile.join(", ")
        ));
    }
    Some(text)
}

fn table(searches: &[&HeldSearchRecord]) -> Table {
    let mut t = Table::new(
        "Clients held",
        &["Implementation", "Clients held", "≈", "Accepts (conn/s)", "Failed at", "KiB per client", "CPU while waiting", "RSS at rest (MiB)", "RSS held (MiB)", "Why it stopped", "Steps"],
    )
    .labels(1)
    .text_column(2)
    .text_column(9);
    let mut sorted: Vec<&&HeldSearchRecord> = searches.iter().collect();
    sorted.sort_by(|a, b| b.clients.cmp(&a.clients).then(a.implementation.cmp(&b.implementation)));
    for s in sorted {
        let at = s.held_step();
        let ties: Vec<&str> = searches
            .iter()
            .filter(|o| o.implementation != s.implementation && !s.by_arrival && !o.by_arrival && within(s.clients, o.clients, s.precision.max(o.precision)))
            .map(|o| o.implementation.as_str())
            .collect();
        t.row(vec![
            s.implementation.clone(),
            match s.clients {
                None => "none".into(),
                Some(c) if s.by_arrival => format!("≥ {} (arrivals)", thousands(c)),
                Some(c) => thousands(c),
            },
            if ties.is_empty() { String::new() } else { format!("≈ {}", ties.join(", ")) },
            s.accept.as_ref().map_or("–".into(), accepts),
            s.failed_clients.map_or("–".into(), thousands),
            kib_at(s, at),
            at.and_then(|st| st.waiting_cpu_util).map_or("–".into(), |c| format!("{:.1}%", c * 100.0)),
            at.or(s.steps.first()).map_or("–".into(), |st| mib(st.rss_rest_bytes)),
            at.map_or("–".into(), |st| mib(st.rss_peak_bytes)),
            format!("{}: {}", s.status, s.reason.clone().unwrap_or_default()),
            s.steps.len().to_string(),
        ]);
    }
    t
}

/// Whether two counts of clients are within `precision` of each other.
fn within(a: Option<u64>, b: Option<u64>, precision: f64) -> bool {
    match (a, b) {
        (Some(a), Some(b)) if a > 0 && b > 0 => a.max(b) as f64 / a.min(b) as f64 <= 1.0 + precision,
        _ => false,
    }
}

/// KiB per waiting client from the search's `memory_step`, with its clients when that is not
/// the held step (a smaller step measured before any larger one).
/// With none (every passing step came after a larger one, as when the first step failed), the held
/// step's figure as an upper bound: it may count memory the larger step left.
fn kib_at(s: &HeldSearchRecord, held: Option<&HeldStepRecord>) -> String {
    if let Some(f) = kib_slope(s) {
        return match (f.lo(), f.hi()) {
            (Some(lo), Some(hi)) => format!("{:.1} [{lo:.1}–{hi:.1}]", f.slope),
            _ => format!("{:.1} ({} steps)", f.slope, f.n),
        };
    }
    let Some(step) = s.memory_step() else {
        return held.and_then(HeldStepRecord::kib_per_client).map_or("–".into(), |k| format!("≤ {k:.1}"));
    };
    let kib = step.kib_per_client().map_or("–".into(), |k| format!("{k:.1}"));
    if held.is_some_and(|h| h.n == step.n) { kib } else { format!("{kib} (at {})", thousands(step.clients)) }
}

/// KiB per waiting client as the slope of the server's memory over the clients of the passing
/// steps measured before any larger one (`clean_steps`), with its 95% interval from three steps
/// on: the step's fixed costs (buffers, a heap's growth) fall into the intercept, not the figure.
fn kib_slope(s: &HeldSearchRecord) -> Option<Slope> {
    let points: Vec<(f64, f64)> = s.clean_steps().filter(|st| st.rss_peak_bytes > 0).map(|st| (st.clients as f64, st.rss_peak_bytes.saturating_sub(st.rss_rest_bytes) as f64 / 1024.0)).collect();
    slope::fit(&points)
}

/// Memory per waiting client against the clients waiting (steps measured before any larger one), the step the table reads marked.
fn chart(searches: &[&HeldSearchRecord], palette: &Palette, cores: u32) -> Vec<String> {
    let title = format!("Memory per waiting client at {cores} core(s)");
    let lines: Vec<Line> = searches
        .iter()
        .map(|s| {
            let mut points: Vec<(f64, f64)> =
                s.clean_steps().filter_map(|st| st.kib_per_client().filter(|&k| k > 0.0).map(|k| (st.clients as f64, k))).collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            let mark = s.memory_step().and_then(|st| st.kib_per_client().filter(|&k| k > 0.0).map(|k| (st.clients as f64, k, "held".to_string())));
            Line { name: s.implementation.clone(), style: palette.style(&s.implementation), points, mark }
        })
        .collect();
    let spec = Spec { title: &title, x_desc: "clients waiting at once", y_desc: "server memory per waiting client (KiB)", log_x: true, log_y: true, lines };
    micro_charts::by_model(&spec, palette, Vec::new())
}

fn steps(searches: &[&HeldSearchRecord]) -> Table {
    let mut t = Table::new(
        "Steps",
        &["Implementation", "Step", "Clients", "Started (per s)", "Answered", "Errors", "At once", "p99 (ms)", "KiB per client", "CPU while waiting", "Verdict"],
    )
    .labels(1)
    .text_column(10);
    for s in searches {
        for st in &s.steps {
            t.row(vec![
                s.implementation.clone(),
                st.n.to_string(),
                thousands(st.clients),
                thousands(st.spawn_rate as u64),
                thousands(st.successes),
                thousands(st.errors_total),
                thousands(st.peak_in_flight),
                thousands(st.latency_p99_us / 1000),
                st.kib_per_client().map_or("–".into(), |k| format!("{k:.1}")),
                st.waiting_cpu_util.map_or("–".into(), |c| format!("{:.1}%", c * 100.0)),
                match &st.reason {
                    Some(r) => format!("{}: {r}", st.verdict),
                    None => st.verdict.clone(),
                },
            ]);
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn search(name: &str, clients: Option<u64>, kib: u64) -> HeldSearchRecord {
        let step = |n, clients: u64, verdict: &str| HeldStepRecord {
            n,
            clients,
            verdict: verdict.into(),
            rss_rest_bytes: 10 << 20,
            rss_peak_bytes: (10 << 20) + clients * kib * 1024,
            waiting_cpu_util: Some(0.01),
            ..Default::default()
        };
        HeldSearchRecord {
            implementation: name.into(),
            scenario: "longpoll".into(),
            cores: 1,
            wait_ms: 2000,
            spec_wait_ms: 5000,
            bound_ms: 1000,
            precision: 0.1,
            spawn_rate: 5000.0,
            start_clients: 1000,
            status: "found".into(),
            clients,
            failed_clients: clients.map(|c| c + c / 20),
            reason: Some("found within 5%".into()),
            steps: clients.map_or(vec![step(1, 1000, "fail")], |c| vec![step(1, c / 2, "pass"), step(2, c, "pass"), step(3, c + c / 20, "fail")]),
            ..Default::default()
        }
    }

    #[test]
    fn clients_held_within_the_precision_are_ties_with_memory_per_client_and_the_short_wait_said() {
        let all = [search("a", Some(8000), 20), search("b", Some(8400), 4), search("c", Some(64_000), 2), search("d", None, 1)];
        let refs: Vec<&HeldSearchRecord> = all.iter().collect();
        let t = table(&refs);
        let rows: Vec<(&str, &str, &str, &str)> = t.rows.iter().map(|r| (r[0].as_str(), r[1].as_str(), r[2].as_str(), r[5].as_str())).collect();
        assert_eq!(rows, [("c", "64,000", "", "2.0 (2 steps)"), ("b", "8,400", "≈ a", "4.0 (2 steps)"), ("a", "8,000", "≈ b", "20.0 (2 steps)"), ("d", "none", "", "–")]);
        assert_eq!(t.rows[0][6], "1.0%", "CPU while waiting at the held step");
        assert_eq!(t.rows[0][3], "–", "no accept rate measured");
        let text = explanation(&all);
        assert!(text.contains("The poll's wait was 2,000 ms instead of the spec's 5,000 ms"), "{text}");
        let svgs = chart(&refs, &Palette::default(), 1);
        assert_eq!(svgs.len(), 1);
        assert!(svgs[0].contains("<svg") && svgs[0].contains("memory per waiting client"), "{}", &svgs[0][..svgs[0].len().min(300)]);
    }

    #[test]
    fn memory_per_client_is_the_slope_over_the_steps_with_its_interval() {
        // 40 KiB a client and 20 MiB a step costs whatever its clients: one step's ratio would say 50.
        let step = |n, clients: u64, extra: u64| HeldStepRecord {
            n,
            clients,
            verdict: "pass".into(),
            rss_rest_bytes: 10 << 20,
            rss_peak_bytes: (10 << 20) + (20 << 20) + clients * 40 * 1024 + extra,
            ..Default::default()
        };
        let exact = HeldSearchRecord { steps: vec![step(1, 2000, 0), step(2, 4000, 0), step(3, 8000, 0)], ..search("e", Some(8000), 1) };
        assert_eq!(kib_at(&exact, exact.steps.last()), "40.0 [40.0–40.0]");
        let scattered = HeldSearchRecord { steps: vec![step(1, 2000, 3 << 20), step(2, 4000, 0), step(3, 8000, 2 << 20)], ..search("f", Some(8000), 1) };
        let text = kib_at(&scattered, scattered.steps.last());
        let slope = kib_slope(&scattered).unwrap();
        assert!(slope.lo().unwrap() < 40.0 && 40.0 < slope.hi().unwrap() + 1.0 && text.starts_with(&format!("{:.1} [", slope.slope)), "{text} {slope:?}");
    }

    #[test]
    fn a_search_stopped_by_its_arrivals_is_a_lower_bound_tied_with_none() {
        let accept = |per_s, gen_saturated| Some(crate::store::held::AcceptRecord { per_s, gen_saturated, ..Default::default() });
        let slow = HeldSearchRecord { status: "limit".into(), by_arrival: true, accept: accept(1012.4, false), arrival_clients: Some(8000), ..search("slow", Some(8000), 5) };
        let fast = HeldSearchRecord { accept: accept(19_217.0, true), ..search("fast", Some(8100), 5) };
        let all = [slow, fast];
        let refs: Vec<&HeldSearchRecord> = all.iter().collect();
        let t = table(&refs);
        let rows: Vec<(&str, &str, &str, &str)> = t.rows.iter().map(|r| (r[0].as_str(), r[1].as_str(), r[2].as_str(), r[3].as_str())).collect();
        assert_eq!(rows, [("fast", "8,100", "", "≥ 19,217"), ("slow", "≥ 8,000 (arrivals)", "", "1,012")]);
        assert!(explanation(&all).contains("a lower bound set by accepting, not a holding limit"));
        let spread = AcceptRecord { per_s: 16_830.0, low: 7_025.0, high: 45_097.0, ..Default::default() };
        assert_eq!(accepts(&spread), "16,830 [7,025–45,097]");
    }

    #[test]
    fn the_ceiling_names_who_reached_it_and_who_the_profile_stopped() {
        use crate::store::held::CeilingRecord;
        let files = || Some(CeilingRecord { clients: 19_936, limit: "open files: the limit is 20000 descriptors per process (64 kept spare)".into() });
        let at = |name, clients, max_clients| HeldSearchRecord { status: "limit".into(), max_clients, ceiling: files(), ..search(name, Some(clients), 5) };
        let standard = [at("go", 19_936, 100_000), search("rails", Some(2_000), 50)];
        let refs: Vec<&HeldSearchRecord> = standard.iter().collect();
        let text = ceiling(&refs).unwrap();
        assert!(text.starts_with("The machine's ceiling for one search: 19,936 clients (open files: the limit is 20000"), "{text}");
        assert!(text.contains("Reached by go:") && !text.contains("max_clients"), "{text}");
        let quick = [at("go", 8_000, 8_000), HeldSearchRecord { by_arrival: true, ..at("pekko", 288, 8_000) }];
        let refs: Vec<&HeldSearchRecord> = quick.iter().collect();
        let text = ceiling(&refs).unwrap();
        assert!(text.contains("No implementation reached it. Stopped by the profile's max_clients (8,000) below it: go (a short form"), "{text}");
        assert_eq!(ceiling(&[&search("old", Some(1000), 5)]), None, "no ceiling recorded");
    }

    #[test]
    fn a_search_at_the_specs_wait_says_nothing_of_it() {
        let mut s = search("a", Some(1000), 5);
        s.wait_ms = 5000;
        assert!(!explanation(&[s]).contains("instead of the spec's"));
    }
}
