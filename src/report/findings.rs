//! The report's section "What the sources concluded, measured again": every
//! claim of spec/findings.toml with its source, its words, the figures on
//! both sides with their 95% intervals and the verdict `findings` gives it
//! on this run and the newest micro run, one table per study, each headed
//! by a short paragraph on what still holds. The verdicts are computed in
//! `findings`; this file only lays them out.

use super::block::Block;
use super::table::{Table, rate};
use crate::findings::{self, Claim, Figure, Kind, Results, Study, Verdict};
use crate::store::Store;
use anyhow::Result;
use std::path::Path;

pub const TITLE: &str = "What the sources concluded, measured again";

/// The section for HTTP run `run_id`, with the claims of the repository at
/// `root`; none when the repository has no claims file (a test's fake one).
pub fn section(store: &Store, run_id: i64, root: &Path) -> Result<Vec<Block>> {
    if !root.join(findings::FILE).exists() {
        return Ok(Vec::new());
    }
    let claims = findings::load(root)?;
    let results = Results::load(store, Some(run_id))?;
    let verdicts: Vec<Verdict> = claims.iter().map(|c| findings::judge(c, &results)).collect();
    Ok(blocks(&claims, &verdicts, &results))
}

/// Adds the section to a rendered report.
pub fn append(r: super::Rendered, store: &Store, run_id: i64, root: &Path) -> Result<super::Rendered> {
    Ok(super::append(r, section(store, run_id, root)?))
}

pub fn blocks(claims: &[Claim], verdicts: &[Verdict], results: &Results) -> Vec<Block> {
    let runs = match (&results.http, &results.micro) {
        (Some(h), Some(m)) => format!("run {} ({}) and micro run {}", h.run.id, h.run.profile, m.run_id),
        (Some(h), None) => format!("run {} ({}) (the database holds no micro run)", h.run.id, h.run.profile),
        (None, Some(m)) => format!("micro run {}", m.run_id),
        (None, None) => "no run".into(),
    };
    let mut doc = vec![
        Block::Heading(2, TITLE.into()),
        Block::Para(format!(
            "Each conclusion of the four studies (spec/findings.toml: {} claims), tested on {runs}, with the statistics of the rankings \
             (spec/FINDINGS.md): an order holds when the 95% interval of A/B, taken round by round, lies wholly above 1.02, and does not \
             hold when it lies below (the other way round, or the two within 2%); a ratio or a value holds when its interval lies wholly \
             inside the claimed range, and does not hold when it lies outside. A claim over several pairs holds when every pair does, \
             and does not hold when one pair refutes it after Holm's correction for their number; otherwise the data cannot tell \
             (a tie, or more scatter than the rounds resolve), and a claim not measured shows the command that would measure it. \
             Figures are centres with 95% intervals; a ratio A/B is each pair's. {}",
            claims.len(),
            tally(&verdicts.iter().collect::<Vec<_>>())
        )),
    ];
    for study in Study::ALL {
        let mine: Vec<(&Claim, &Verdict)> = claims.iter().zip(verdicts).filter(|(c, _)| c.study == study).collect();
        if mine.is_empty() {
            continue;
        }
        doc.push(Block::Heading(3, study.title().into()));
        doc.push(Block::Para(paragraph(study, &mine)));
        doc.push(Block::Table(table(study, &mine)));
    }
    doc
}

/// `5 hold, 2 do not hold, …`: the kinds present, in a fixed order.
fn tally(verdicts: &[&Verdict]) -> String {
    let parts: Vec<String> = [Kind::Holds, Kind::DoesNotHold, Kind::CannotTell, Kind::NotMeasured, Kind::Untestable]
        .into_iter()
        .filter_map(|k| {
            let n = verdicts.iter().filter(|v| v.kind == k).count();
            (n > 0).then(|| format!("{n} {}", k.text()))
        })
        .collect();
    format!("In all: {}.", parts.join(", "))
}

/// What still holds of one study, by claim id.
fn paragraph(study: Study, mine: &[(&Claim, &Verdict)]) -> String {
    let ids = |k: Kind| -> Vec<&str> { mine.iter().filter(|(_, v)| v.kind == k).map(|(c, _)| c.id.as_str()).collect() };
    let mut parts = vec![format!("{} claim(s) from {}.", mine.len(), study.seed())];
    for (kind, said) in [
        (Kind::Holds, "Still holds"),
        (Kind::DoesNotHold, "No longer holds here"),
        (Kind::CannotTell, "Undecided on this data"),
        (Kind::NotMeasured, "Not measured in this run"),
        (Kind::Untestable, "Beyond this machine"),
    ] {
        let found = ids(kind);
        if !found.is_empty() {
            parts.push(format!("{said}: {}.", found.join(", ")));
        }
    }
    parts.join(" ")
}

fn table(study: Study, mine: &[(&Claim, &Verdict)]) -> Table {
    let mut t = Table::new(format!("Claims of the {}", study.as_str()), &["Claim", "Source", "What it says", "Figures (95% intervals)", "Verdict"])
        .labels(3)
        .text_column(3)
        .text_column(4)
        .note("a@k: implementation a at k server cores; a/b: the ratio of the two; ×: a ratio.");
    for (claim, verdict) in mine {
        let source = claim.source.strip_prefix(study.seed()).and_then(|s| s.strip_prefix(':')).map_or(claim.source.as_str(), str::trim_start);
        let says = match &claim.stand_in {
            Some(s) => format!("{} (Stand-in: {s}.)", claim.claim),
            None => claim.claim.clone(),
        };
        let figures: Vec<String> = verdict.figures.iter().map(figure).collect();
        t.row(vec![claim.id.clone(), source.to_string(), says, figures.join("; "), verdict_text(verdict)]);
    }
    t
}

/// `go-nethttp@2 1,234 [1,100–1,400] req/s`.
fn figure(f: &Figure) -> String {
    let hi = if f.level.hi.is_finite() { rate(f.level.hi) } else { "∞".into() };
    format!("{} {} [{}–{hi}] {}", f.label, rate(f.level.center), rate(f.level.lo), f.unit)
}

/// `holds`, `does not hold: why`, with the notes after.
fn verdict_text(v: &Verdict) -> String {
    let mut out = v.kind.text().to_string();
    if !v.why.is_empty() {
        out = format!("{out}: {}", v.why);
    }
    for n in &v.notes {
        out = format!("{out}. {n}");
    }
    out
}
