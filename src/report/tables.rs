//! The result tables: per scenario the thesis' Tables 5-7 (requests and
//! p50/p99 latency by core count), the blog's ab percentile table for
//! `/page`, the wrk repository's throughput and latency table for `/`,
//! memory and requests per core for every implementation, and every point of
//! one implementation. Implementations are the rows of every table, so that
//! twenty of them make a long table rather than an unreadably wide one.

use super::model::{Cell, Group, Model, cores_text};
use super::spread::Summary;
use super::table::{Table, mib, ms, ms_bounded, rate, spread};
use crate::store::PointRecord;

/// What the marks in a cell mean, said once under each table that has them.
pub const MARKS: &str = "Median over repeats, ± half their range. ≈: within noise of the best at that core count \
    (not decided below it, as At a glance says: by the rounds' differences, else by overlapping intervals). ⚠: the load generator, not the server, was saturated in that many repeats. \
    ✗: repeats that could not be measured.";

/// Successful requests per second by core count (thesis Figure 2, Tables 5):
/// one row per implementation, one column per core count.
pub fn throughput(model: &Model, g: &Group) -> Table {
    let mut header = vec!["implementation".to_string()];
    header.extend(g.cores.iter().map(|&k| cores_text(k)));
    let marks = if super::database::any_limited(model) { format!("{MARKS} {}", super::database::MARK_NOTE) } else { MARKS.to_string() };
    let mut t = Table { header, ..Table::new(format!("{}: successful requests/s", g.title()), &[]) }.note(model.noted(&marks));
    for name in measured_in(model, g) {
        let mut row = vec![model.label(name)];
        row.extend(g.cores.iter().map(|&k| g.cell(name, k).map_or("—".into(), throughput_cell)));
        t.row(row);
    }
    t
}

/// The implementations with a cell in `g`, in name order.
fn measured_in<'a>(model: &'a Model, g: &Group) -> Vec<&'a String> {
    model.measured.iter().filter(|name| g.cells.iter().any(|c| &c.implementation == *name)).collect()
}

fn throughput_cell(c: &Cell) -> String {
    let mut s = match &c.throughput {
        Some(t) => format!("{}{}", rate(t.median), spread(t)),
        None => "—".into(),
    };
    if c.within_noise {
        s += " ≈";
    }
    s + &flags(c)
}

/// Errors, saturated repeats (⚠) and repeats that failed (✗) of a cell.
pub fn flags(c: &Cell) -> String {
    let mut s = String::new();
    if c.errors > 0 {
        s += &format!(" ({} errors)", c.errors);
    }
    if c.saturated > 0 {
        s += &format!(" ⚠{}", c.saturated);
    }
    let database = super::database::limited(&c.points);
    if database > 0 {
        s += &format!(" {}{database}", super::database::MARK);
    }
    if !c.failed.is_empty() {
        s += &format!(" ✗{}", c.failed.len());
    }
    s
}

/// p50 and p99 latency by core count (thesis Figure 3, Tables 6-7): one row
/// per implementation, the two percentiles under each core count.
pub fn latency(model: &Model, g: &Group) -> Table {
    let mut header = vec!["implementation".to_string()];
    for _ in &g.cores {
        header.extend(["p50".to_string(), "p99".to_string()]);
    }
    let note = model.noted("Milliseconds, median over repeats of each repeat's percentile, ± half their range; > x: only known to be at least x \
         (requests were still unanswered when a measurement ended).",
    );
    let mut t = Table { header, ..Table::new(format!("{}: latency p50 and p99 (ms)", g.title()), &[]) }.note(note).group("", 1);
    for &k in &g.cores {
        t = t.group(cores_text(k), 2);
    }
    for name in measured_in(model, g) {
        let mut row = vec![model.label(name)];
        for &k in &g.cores {
            let cell = g.cell(name, k);
            let show = |s: Option<&Summary>, bound: bool| s.map_or("—".into(), |s| format!("{}{}", ms_bounded(s.median, bound), spread(s)));
            row.push(show(cell.and_then(|c| c.p50_ms.as_ref()), cell.is_some_and(|c| c.p50_bound)));
            row.push(show(cell.and_then(|c| c.p99_ms.as_ref()), cell.is_some_and(|c| c.p99_bound)));
        }
        t.row(row);
    }
    t
}

/// The blog's `ab` table: the percentage of requests served within a time.
pub fn ab_percentiles(model: &Model, g: &Group) -> Table {
    const AT: [f64; 9] = [50.0, 66.0, 75.0, 80.0, 90.0, 95.0, 98.0, 99.0, 100.0];
    let mut header = vec!["implementation", "server cores", "complete", "failed", "req/s"];
    header.extend(["50%", "66%", "75%", "80%", "90%", "95%", "98%", "99%", "100%"]);
    let note = "As ab prints it: milliseconds within which that percentage of requests was served, \
        every repeat's histogram merged; requests per second is the median over repeats.";
    let mut t = Table::new(format!("{}: percentage of requests served within a time (ms)", g.title()), &header).labels(1).note(model.noted(note));
    for &k in &g.cores {
        for name in &model.measured {
            let Some(c) = g.cell(name, k) else { continue };
            let Some(lat) = c.merged_latencies() else { continue };
            let complete: u64 = c.points.iter().map(|p| p.requests).sum();
            let mut row = vec![model.label(name), k.to_string(), complete.to_string(), c.errors.to_string()];
            row.push(c.throughput.map_or("—".into(), |t| rate(t.median)));
            row.extend(AT.iter().map(|q| ms(lat.quantile_us(q / 100.0) as f64 / 1000.0)));
            t.row(row);
        }
    }
    t
}

/// The wrk repository's table: throughput and latency avg/stdev/max.
pub fn wrk_table(model: &Model, g: &Group) -> Table {
    let header = ["implementation", "server cores", "throughput (req/s)", "latency in ms (avg/stdev/max)"];
    let note = "Throughput is the median over repeats (the seed kept the best of three); \
        latency is over every repeat's requests merged.";
    let mut t = Table::new(format!("{}: throughput and latency, wrk style", g.title()), &header).labels(1).note(model.noted(note));
    for &k in &g.cores {
        for name in &model.measured {
            let Some(c) = g.cell(name, k) else { continue };
            let Some(lat) = c.merged_latencies() else { continue };
            let s = lat.stats();
            let max = c.points.iter().map(|p| p.latency.max_us).max().unwrap_or(0);
            let thr = c.throughput.map_or("—".into(), |t| format!("{}{}", rate(t.median), spread(&t)));
            let latency = format!("{}/{}/{}", ms(s.mean_us / 1000.0), ms(s.stdev_us / 1000.0), ms(max as f64 / 1000.0));
            t.row(vec![model.label(name), k.to_string(), thr, latency]);
        }
    }
    t
}

/// Peak resident memory of the server's whole process tree, per scenario.
pub fn memory(model: &Model) -> Table {
    resource_table(model, "Peak memory of the server's process tree (MiB)", "Resident set size summed over every process of the server (workers, VM helpers), the highest sample of the measurement; median over repeats.", |c| {
        c.rss_peak_mib.map(|s| format!("{:.1}", s.median))
    })
}

/// Successful requests per second divided by the server's cores.
pub fn per_core(model: &Model) -> Table {
    resource_table(model, "Requests per second per server core", "Median successful requests/s divided by the server's cores; the CPU the server really used (share of its cores) in brackets.", |c| {
        let t = c.throughput?;
        let util = c.cpu_util.map_or(String::new(), |u| format!(" ({:.0}% cpu)", u.median * 100.0));
        Some(format!("{}{util}", rate(t.median / f64::from(c.cores))))
    })
}

fn resource_table(model: &Model, title: &str, note: &str, value: impl Fn(&Cell) -> Option<String>) -> Table {
    let mut header = vec!["implementation".to_string(), "server cores".to_string()];
    header.extend(model.groups.iter().map(|g| g.title()));
    let mut t = Table { header, ..Table::new(title, &[]) }.labels(2).note(model.noted(note));
    let mut cores: Vec<u32> = model.groups.iter().flat_map(|g| g.cores.iter().copied()).collect();
    cores.sort_unstable();
    cores.dedup();
    for name in &model.measured {
        for &k in &cores {
            let cells: Vec<String> = model.groups.iter().map(|g| g.cell(name, k).and_then(&value).unwrap_or("—".into())).collect();
            if cells.iter().any(|c| c != "—") {
                let mut row = vec![model.label(name), k.to_string()];
                row.extend(cells);
                t.row(row);
            }
        }
    }
    t
}

/// Every point of one implementation, for the reader who wants the raw numbers.
pub fn points(model: &Model, name: &str) -> Table {
    let header = ["point", "req/s", "errors", "p50 ms", "p99 ms", "max ms", "peak MiB", "mean MiB", "server cpu", "generator cpu", "flags"];
    let mine: Vec<&PointRecord> = model.points.iter().filter(|p| p.implementation == name).collect();
    let note = "In the order taken, named scenario/cores/level/repeat; CPU is the share of the CPUs each was pinned to.";
    let mut t = Table::new(format!("{name}: every point ({})", mine.len()), &header).text_column(10).note(note);
    for p in mine {
        let mut flags = Vec::new();
        if p.generator.saturated {
            flags.push("generator saturated".to_string());
        }
        if p.generator.shared {
            flags.push("shared CPUs".to_string());
        }
        if p.database.as_ref().is_some_and(|d| d.limited) {
            flags.push("database-limited".to_string());
        }
        if let Some(e) = &p.error {
            flags.push(format!("failed: {}", e.lines().next().unwrap_or("")));
        }
        flags.extend(p.warnings.iter().cloned());
        let pct = |x: f64| format!("{:.0}%", x * 100.0);
        let key = p.key.strip_prefix(&format!("{name}/")).unwrap_or(&p.key).to_string();
        t.row(vec![
            key,
            rate(p.throughput()),
            p.errors_total.to_string(),
            ms_bounded(p.latency.p50_us as f64 / 1000.0, p.latency.is_lower_bound("p50")),
            ms_bounded(p.latency.p99_us as f64 / 1000.0, p.latency.is_lower_bound("p99")),
            ms(p.latency.max_us as f64 / 1000.0),
            mib(p.server.rss_peak_bytes),
            mib(p.server.rss_mean_bytes),
            pct(p.server.cpu_util),
            pct(p.generator.cpu_util),
            flags.join("; "),
        ]);
    }
    t
}
