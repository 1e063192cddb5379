//! `spec/findings.toml` read into claims (spec/FINDINGS.md): each claim's
//! source, its words, the studies' runtimes mapped to implementations, and
//! a predicate over stored results, or the reason this machine cannot test
//! it. Everything a predicate names is checked here, against the
//! repository's implementations, scenarios and micro-benchmarks, so that a
//! claim that would never be measured is refused with its line and the fix
//! instead of showing "not measured" forever.

use crate::host::profile::Folder;
use anyhow::{Result, bail};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use toml::Spanned;

/// The five source documents (seeds/INDEX.md), each with its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Study {
    Thesis,
    Paper,
    BlogNode,
    BlogGo,
    WrkRepo,
}

impl Study {
    pub const ALL: [Study; 5] = [Study::Thesis, Study::Paper, Study::BlogNode, Study::BlogGo, Study::WrkRepo];

    pub fn as_str(self) -> &'static str {
        match self {
            Study::Thesis => "thesis",
            Study::Paper => "paper",
            Study::BlogNode => "blog-node",
            Study::BlogGo => "blog-go",
            Study::WrkRepo => "wrk-repo",
        }
    }

    /// The seed file its claims cite.
    pub fn seed(self) -> &'static str {
        match self {
            Study::Thesis => "000_3aa513129a70facd.txt",
            Study::Paper => "001_53eb50883f2a7aa9.txt",
            Study::BlogNode => "002_7104d23bc99d674c.txt",
            Study::BlogGo => "004_b151bf737cc584f5.txt",
            Study::WrkRepo => "003_81a6dd00c088466d.txt",
        }
    }

    /// How the report names it.
    pub fn title(self) -> &'static str {
        match self {
            Study::Thesis => "The thesis: Go, Elixir and Node.js for web services",
            Study::Paper => "The SAC 2018 paper: Erlang, Go and Scala with Akka",
            Study::BlogNode => "The blog series, Node.js: single process and cluster",
            Study::BlogGo => "The blog series, Go: net/http and raw TCP",
            Study::WrkRepo => "The wrk repository: hello-world servers",
        }
    }
}

/// One conclusion of a study.
#[derive(Debug, Clone, PartialEq)]
pub struct Claim {
    pub id: String,
    pub study: Study,
    /// The seed file and the section, table or figure.
    pub source: String,
    /// The conclusion in Concur's words.
    pub claim: String,
    /// The study's name of a runtime → the implementation that stands for it.
    pub runtimes: BTreeMap<String, String>,
    /// Where an implementation only stands in for the study's runtime, and how it differs.
    pub stand_in: Option<String>,
    pub test: Test,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Test {
    /// This machine cannot test it; the reason.
    Untestable(String),
    Measure(Predicate),
}

/// What a claim asserts about stored results.
#[derive(Debug, Clone, PartialEq)]
pub struct Predicate {
    pub subject: Subject,
    pub metric: Metric,
    /// Core counts at which it must hold; empty: every core count measured.
    pub cores: Vec<u32>,
    pub a: Vec<Side>,
    pub b: Vec<Side>,
    pub compare: Compare,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Subject {
    /// A scenario of `concur run`, at one load level (`None`: the first level every side has).
    Http { scenario: String, level: Option<String> },
    /// A micro-benchmark of `concur micro` with some of its parameters fixed.
    Micro { bench: String, params: BTreeMap<String, u64> },
}

/// An implementation, at the predicate's core count or at its own (`impl@2`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Side {
    pub implementation: String,
    pub cores: Option<u32>,
}

impl Side {
    /// `go-nethttp` or `go-nethttp@2`.
    pub fn label(&self) -> String {
        match self.cores {
            Some(k) => format!("{}@{k}", self.implementation),
            None => self.implementation.clone(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// Successful requests per second.
    Throughput,
    /// Latency percentiles, ms.
    P50,
    P99,
    /// A micro-benchmark's time per operation (message exchange, spawn), ns.
    NsPerOp,
    /// Messages per second of the pairs benchmark.
    MessagesPerS,
    /// The largest number of processes a maximum-processes search reached.
    MaxProcs,
    /// Memory per process of spawn or idle, bytes.
    BytesPerProc,
}

impl Metric {
    pub const HTTP: [Metric; 3] = [Metric::Throughput, Metric::P50, Metric::P99];
    pub const MICRO: [Metric; 4] = [Metric::NsPerOp, Metric::MessagesPerS, Metric::MaxProcs, Metric::BytesPerProc];

    pub fn as_str(self) -> &'static str {
        match self {
            Metric::Throughput => "throughput",
            Metric::P50 => "p50",
            Metric::P99 => "p99",
            Metric::NsPerOp => "ns_per_op",
            Metric::MessagesPerS => "messages_per_s",
            Metric::MaxProcs => "max_procs",
            Metric::BytesPerProc => "bytes_per_proc",
        }
    }

    pub fn unit(self) -> &'static str {
        match self {
            Metric::Throughput => "req/s",
            Metric::P50 | Metric::P99 => "ms",
            Metric::NsPerOp => "ns",
            Metric::MessagesPerS => "msg/s",
            Metric::MaxProcs => "processes",
            Metric::BytesPerProc => "B",
        }
    }
}

/// The comparison a predicate makes, on the metric's raw values (a lower
/// latency is `less`).
#[derive(Debug, Clone, PartialEq)]
pub enum Compare {
    /// Every A above (below) every B.
    Greater,
    Less,
    /// Every A/B within ×(1 ± tolerance) of 1.
    About(f64),
    /// Every A/B within [lo, hi].
    Ratio(f64, f64),
    /// Every A's value within [lo, hi].
    Within(f64, f64),
    /// A's sides in descending order of the metric.
    Order,
    /// Every A's gain from the first core count to the second above every B's.
    ScalesBetter,
    /// Every A's highest value, over the swept parameter `over`, at `at`.
    Peak {
        over: String,
        at: PeakAt,
    },
}

impl Compare {
    pub const NAMES: [&'static str; 8] = ["greater", "less", "about", "ratio", "within", "order", "scales-better", "peak"];
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeakAt {
    /// Where the swept parameter equals the core count.
    Cores,
    Value(u64),
}

/// The micro-benchmarks of spec/MICRO.md §4 and the parameters they take.
pub const BENCHES: [(&str, &[&str]); 6] =
    [("pingping", &["size", "reps"]), ("pingpong", &["reps"]), ("spawn", &["procs"]), ("maxprocs", &[]), ("pairs", &["pairs"]), ("idle", &["procs"])];

/// What a claim may name: the repository's implementations and scenarios.
#[derive(Debug, Clone, Default)]
pub struct Known {
    pub http: Vec<String>,
    pub micro: Vec<String>,
    pub scenarios: Vec<String>,
}

impl Known {
    /// The implementations under `impls/http` and `impls/micro` (folders with
    /// a `concur.toml`) and the scenarios of `spec/scenarios`.
    pub fn from_root(root: &Path) -> Result<Known> {
        let names = |kind: &str| -> Vec<String> {
            let mut v: Vec<String> = std::fs::read_dir(root.join("impls").join(kind))
                .into_iter()
                .flatten()
                .filter_map(|e| e.ok())
                .filter(|e| e.path().join("concur.toml").is_file())
                .filter_map(|e| e.file_name().to_str().map(str::to_string))
                .collect();
            v.sort();
            v
        };
        let scenarios = Folder { path: "spec/scenarios", what: "scenarios" }.names(root);
        Ok(Known { http: names("http"), micro: names("micro"), scenarios })
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    claim: Vec<Spanned<RawClaim>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawClaim {
    id: String,
    study: Spanned<String>,
    source: Spanned<String>,
    claim: String,
    runtimes: Spanned<BTreeMap<String, String>>,
    stand_in: Option<String>,
    untestable: Option<String>,
    scenario: Option<Spanned<String>>,
    level: Option<String>,
    micro: Option<Spanned<String>>,
    params: Option<Spanned<BTreeMap<String, u64>>>,
    metric: Option<Spanned<String>>,
    cores: Option<Spanned<Vec<u32>>>,
    #[serde(default)]
    a: Vec<Spanned<String>>,
    #[serde(default)]
    b: Vec<Spanned<String>>,
    compare: Option<Spanned<String>>,
    tolerance: Option<Spanned<f64>>,
    range: Option<Spanned<Vec<f64>>>,
    over: Option<Spanned<String>>,
    peak_at: Option<Spanned<toml::Value>>,
}

/// Where an error points: the file, a line, the claim.
struct At<'a> {
    shown: &'a str,
    text: &'a str,
    id: &'a str,
}

impl At<'_> {
    fn line(&self, span: std::ops::Range<usize>) -> usize {
        self.text[..span.start.min(self.text.len())].matches('\n').count() + 1
    }

    /// `spec/findings.toml:12: claim X: {what}`.
    fn fail<T>(&self, span: std::ops::Range<usize>, what: impl std::fmt::Display) -> Result<T> {
        bail!("{}:{}: claim {}: {what}", self.shown, self.line(span), self.id)
    }
}

/// Parses a claims file; `shown` names it in errors, `known` is what a claim may name.
pub fn parse(shown: &str, text: &str, known: &Known) -> Result<Vec<Claim>> {
    let raw: RawFile = toml::from_str(text).map_err(|e| anyhow::anyhow!("{shown}: {}", e.to_string().trim_end()))?;
    let mut claims: Vec<Claim> = Vec::new();
    for spanned in raw.claim {
        let span = spanned.span();
        let at = At { shown, text, id: &spanned.get_ref().id };
        let claim = one(&at, span.clone(), spanned.get_ref(), known)?;
        if claims.iter().any(|c| c.id == claim.id) {
            return at.fail(span, "the id is used by an earlier claim; give each claim its own id");
        }
        claims.push(claim);
    }
    if claims.is_empty() {
        bail!("{shown}: no [[claim]]; each claim is a [[claim]] table (spec/FINDINGS.md)");
    }
    Ok(claims)
}

fn one(at: &At, span: std::ops::Range<usize>, raw: &RawClaim, known: &Known) -> Result<Claim> {
    if raw.id.is_empty() || !raw.id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-') {
        return at.fail(span, format!("id '{}' must be lowercase letters, digits and dashes (e.g. thesis-password-node-fewest)", raw.id));
    }
    let names: Vec<&str> = Study::ALL.iter().map(|s| s.as_str()).collect();
    let Some(study) = Study::ALL.into_iter().find(|s| s.as_str() == raw.study.get_ref()) else {
        return at.fail(raw.study.span(), format!("unknown study '{}'; expected one of {}", raw.study.get_ref(), names.join(", ")));
    };
    if !raw.source.get_ref().contains(study.seed()) {
        return at.fail(raw.source.span(), format!("source must name the {} study's seed file, e.g. \"{}: section 5.5, Figure 2\"", study.as_str(), study.seed()));
    }
    let all: Vec<&String> = known.http.iter().chain(&known.micro).collect();
    for implementation in raw.runtimes.get_ref().values() {
        if !all.contains(&implementation) {
            return at.fail(raw.runtimes.span(), unknown("implementation", implementation, &all));
        }
    }
    let test = match &raw.untestable {
        Some(reason) if raw.metric.is_some() || raw.compare.is_some() => {
            return at.fail(span, format!("says both untestable ({reason}) and how to test it; keep one"));
        }
        Some(reason) => Test::Untestable(reason.clone()),
        None => Test::Measure(predicate(at, span, raw, known)?),
    };
    Ok(Claim {
        id: raw.id.clone(),
        study,
        source: raw.source.get_ref().clone(),
        claim: raw.claim.clone(),
        runtimes: raw.runtimes.get_ref().clone(),
        stand_in: raw.stand_in.clone(),
        test,
    })
}

fn unknown(what: &str, name: &str, expected: &[impl AsRef<str>]) -> String {
    let list: Vec<&str> = expected.iter().map(|e| e.as_ref()).collect();
    format!("unknown {what} '{name}'; expected one of {}", list.join(", "))
}

fn predicate(at: &At, span: std::ops::Range<usize>, raw: &RawClaim, known: &Known) -> Result<Predicate> {
    let subject = subject(at, span.clone(), raw, known)?;
    let micro = matches!(subject, Subject::Micro { .. });
    let Some(metric_name) = &raw.metric else {
        return at.fail(span, "no metric; add e.g. metric = \"throughput\" (or untestable = \"the reason\")");
    };
    let allowed: &[Metric] = if micro { &Metric::MICRO } else { &Metric::HTTP };
    let Some(metric) = allowed.iter().copied().find(|m| m.as_str() == metric_name.get_ref()) else {
        let names: Vec<&str> = allowed.iter().map(|m| m.as_str()).collect();
        return at.fail(metric_name.span(), unknown("metric", metric_name.get_ref(), &names));
    };
    if (metric == Metric::MaxProcs) != matches!(&subject, Subject::Micro { bench, .. } if bench == "maxprocs") {
        return at.fail(metric_name.span(), "max_procs is the metric of micro = \"maxprocs\" and of it alone");
    }
    let cores = raw.cores.as_ref().map_or(Ok(Vec::new()), |c| {
        if c.get_ref().is_empty() || c.get_ref().contains(&0) {
            at.fail(c.span(), "cores must list core counts of at least 1, e.g. cores = [1, 2]")
        } else {
            Ok(c.get_ref().clone())
        }
    })?;
    let pool = if micro { &known.micro } else { &known.http };
    let a = sides(at, &raw.a, pool)?;
    let b = sides(at, &raw.b, pool)?;
    let compare = compare(at, span, raw, &subject, &cores, &a, &b)?;
    Ok(Predicate { subject, metric, cores, a, b, compare })
}

fn subject(at: &At, span: std::ops::Range<usize>, raw: &RawClaim, known: &Known) -> Result<Subject> {
    match (&raw.scenario, &raw.micro) {
        (Some(s), None) => {
            if !known.scenarios.contains(s.get_ref()) {
                return at.fail(s.span(), unknown("scenario", s.get_ref(), &known.scenarios));
            }
            if let Some(p) = &raw.params {
                return at.fail(p.span(), "params belong to micro-benchmarks; an HTTP claim picks its load with level = \"c=100\"");
            }
            Ok(Subject::Http { scenario: s.get_ref().clone(), level: raw.level.clone() })
        }
        (None, Some(m)) => {
            let Some((bench, takes)) = BENCHES.iter().find(|(b, _)| b == m.get_ref()) else {
                let names: Vec<&str> = BENCHES.iter().map(|(b, _)| *b).collect();
                return at.fail(m.span(), unknown("micro-benchmark", m.get_ref(), &names));
            };
            let params = raw.params.as_ref().map(|p| p.get_ref().clone()).unwrap_or_default();
            if let Some(bad) = params.keys().find(|k| !takes.contains(&k.as_str())) {
                return at.fail(raw.params.as_ref().expect("non-empty").span(), unknown(&format!("parameter of {bench}"), bad, takes));
            }
            if raw.level.is_some() {
                return at.fail(m.span(), "level belongs to HTTP scenarios; a micro claim fixes its parameters with params = { … }");
            }
            Ok(Subject::Micro { bench: bench.to_string(), params })
        }
        (Some(_), Some(_)) => at.fail(span, "names both a scenario and a micro-benchmark; a claim tests one"),
        (None, None) => at.fail(span, "says neither scenario = \"…\" nor micro = \"…\" (or untestable = \"the reason\")"),
    }
}

fn sides(at: &At, raw: &[Spanned<String>], pool: &[String]) -> Result<Vec<Side>> {
    raw.iter()
        .map(|s| {
            let (name, cores) = match s.get_ref().split_once('@') {
                Some((name, k)) => match k.parse::<u32>() {
                    Ok(k) if k > 0 => (name, Some(k)),
                    _ => {
                        return at.fail(s.span(), format!("'{}': after @ comes a core count, e.g. node-http@2", s.get_ref()));
                    }
                },
                None => (s.get_ref().as_str(), None),
            };
            if !pool.iter().any(|p| p == name) {
                return at.fail(s.span(), unknown("implementation", name, pool));
            }
            Ok(Side { implementation: name.to_string(), cores })
        })
        .collect()
}

/// The comparison and what it needs: the sides it compares, its tolerance,
/// range or peak, and for scaling two core counts.
fn compare(at: &At, span: std::ops::Range<usize>, raw: &RawClaim, subject: &Subject, cores: &[u32], a: &[Side], b: &[Side]) -> Result<Compare> {
    let Some(name) = &raw.compare else {
        return at.fail(span, format!("no compare; expected one of {}", Compare::NAMES.join(", ")));
    };
    let cs = name.span();
    let range = || -> Result<(f64, f64)> {
        match raw.range.as_ref().map(|r| (r.span(), r.get_ref().as_slice())) {
            Some((_, &[lo, hi])) if lo >= 0.0 && lo < hi => Ok((lo, hi)),
            Some((s, _)) => at.fail(s, "range must be two numbers, the lower first, e.g. range = [2.0, 5.0]"),
            None => at.fail(cs.clone(), format!("compare = \"{}\" needs range = [lo, hi]", name.get_ref())),
        }
    };
    let need = |a_min: usize, b_needed: bool| -> Result<()> {
        if a.len() < a_min {
            return at.fail(cs.clone(), format!("compare = \"{}\" needs at least {a_min} implementation(s) in a", name.get_ref()));
        }
        if b_needed == b.is_empty() {
            let fix = if b_needed { "needs the other side in b = [\"…\"]" } else { "compares a alone; remove b" };
            return at.fail(cs.clone(), format!("compare = \"{}\" {fix}", name.get_ref()));
        }
        Ok(())
    };
    let compare = match name.get_ref().as_str() {
        "greater" | "less" => {
            need(1, true)?;
            if name.get_ref() == "greater" { Compare::Greater } else { Compare::Less }
        }
        "about" => {
            need(1, true)?;
            match &raw.tolerance {
                Some(t) if *t.get_ref() > 0.0 && *t.get_ref() < 1.0 => Compare::About(*t.get_ref()),
                Some(t) => return at.fail(t.span(), "tolerance is a fraction between 0 and 1, e.g. tolerance = 0.05 for within 5%"),
                None => {
                    return at.fail(cs, "compare = \"about\" needs tolerance = 0.05 (within 5%)");
                }
            }
        }
        "ratio" => {
            need(1, true)?;
            let (lo, hi) = range()?;
            Compare::Ratio(lo, hi)
        }
        "within" => {
            need(1, false)?;
            let (lo, hi) = range()?;
            Compare::Within(lo, hi)
        }
        "order" => {
            need(2, false)?;
            Compare::Order
        }
        "scales-better" => {
            need(1, true)?;
            if cores.len() != 2 || cores[0] >= cores[1] || a.iter().chain(b).any(|s| s.cores.is_some()) {
                return at.fail(cs, "compare = \"scales-better\" needs cores = [from, to] (e.g. [1, 2]) and sides without @");
            }
            Compare::ScalesBetter
        }
        "peak" => {
            need(1, false)?;
            peak(at, cs, raw, subject)?
        }
        other => return at.fail(cs, unknown("comparison", other, &Compare::NAMES)),
    };
    Ok(compare)
}

fn peak(at: &At, cs: std::ops::Range<usize>, raw: &RawClaim, subject: &Subject) -> Result<Compare> {
    let Subject::Micro { bench, params } = subject else {
        return at.fail(cs, "compare = \"peak\" sweeps a micro-benchmark's parameter; use it with micro = \"…\"");
    };
    let takes = BENCHES.iter().find(|(b, _)| b == bench).map_or(&[][..], |(_, t)| *t);
    let Some(over) = &raw.over else {
        return at.fail(cs, format!("compare = \"peak\" needs over = the swept parameter, one of {}", takes.join(", ")));
    };
    if !takes.contains(&over.get_ref().as_str()) || params.contains_key(over.get_ref()) {
        return at.fail(over.span(), format!("over = \"{}\" must be a parameter of {bench} that params does not fix ({})", over.get_ref(), takes.join(", ")));
    }
    let at_value = match raw.peak_at.as_ref().map(|p| (p.span(), p.get_ref())) {
        Some((_, toml::Value::String(s))) if s == "cores" => PeakAt::Cores,
        Some((_, toml::Value::Integer(n))) if *n > 0 => PeakAt::Value(*n as u64),
        Some((s, _)) => {
            return at.fail(s, "peak_at is \"cores\" or a value of the swept parameter, e.g. peak_at = 64");
        }
        None => {
            return at.fail(cs, "compare = \"peak\" needs peak_at = \"cores\" or a value, e.g. peak_at = 64");
        }
    };
    Ok(Compare::Peak { over: over.get_ref().clone(), at: at_value })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known() -> Known {
        Known {
            http: ["elixir", "go-nethttp", "node-express-ts", "node-http"].map(String::from).to_vec(),
            micro: ["erlang", "go", "scala-akka"].map(String::from).to_vec(),
            scenarios: ["hello", "page", "password"].map(String::from).to_vec(),
        }
    }

    const GOOD: &str = r#"
[[claim]]
id = "thesis-password-node"
study = "thesis"
source = "000_3aa513129a70facd.txt: section 5.5, Figure 2"
claim = "Node.js completes the fewest."
runtimes = { "Node.js" = "node-express-ts", "Go" = "go-nethttp" }
scenario = "password"
metric = "throughput"
a = ["node-express-ts"]
compare = "less"
b = ["go-nethttp", "elixir@2"]

[[claim]]
id = "paper-peak"
study = "paper"
source = "001_53eb50883f2a7aa9.txt: Figure 5"
claim = "Peaks at the core count."
runtimes = { "Go" = "go" }
micro = "pairs"
metric = "messages_per_s"
cores = [1, 2]
a = ["go"]
compare = "peak"
over = "pairs"
peak_at = "cores"

[[claim]]
id = "paper-64"
study = "paper"
source = "001_53eb50883f2a7aa9.txt: Figure 5"
claim = "Needs a big machine."
runtimes = { "Go" = "go" }
untestable = "needs 32 cores"
"#;

    fn error(text: &str) -> String {
        parse("spec/findings.toml", text, &known()).unwrap_err().to_string()
    }

    #[test]
    fn a_good_file_reads_into_claims() {
        let claims = parse("spec/findings.toml", GOOD, &known()).unwrap();
        assert_eq!(claims.len(), 3);
        let Test::Measure(p) = &claims[0].test else { panic!("{:?}", claims[0].test) };
        assert_eq!((p.metric, &p.compare), (Metric::Throughput, &Compare::Less));
        assert_eq!(p.b[1], Side { implementation: "elixir".into(), cores: Some(2) });
        let Test::Measure(p) = &claims[1].test else { panic!() };
        assert_eq!(p.compare, Compare::Peak { over: "pairs".into(), at: PeakAt::Cores });
        assert_eq!(claims[2].test, Test::Untestable("needs 32 cores".into()));
    }

    #[test]
    fn an_unknown_metric_is_refused_with_its_line_and_the_choices() {
        let e = error(&GOOD.replace("metric = \"throughput\"", "metric = \"rps\""));
        assert_eq!(e, "spec/findings.toml:9: claim thesis-password-node: unknown metric 'rps'; expected one of throughput, p50, p99");
    }

    #[test]
    fn unknown_names_are_refused_with_the_fix() {
        for (from, to, expected) in [
            (
                "b = [\"go-nethttp\", \"elixir@2\"]",
                "b = [\"go-nethtp\"]",
                ":12: claim thesis-password-node: unknown implementation 'go-nethtp'; expected one of elixir, go-nethttp",
            ),
            ("scenario = \"password\"", "scenario = \"login\"", ":8: claim thesis-password-node: unknown scenario 'login'; expected one of hello, page, password"),
            ("compare = \"less\"", "compare = \"fewer\"", ":11: claim thesis-password-node: unknown comparison 'fewer'; expected one of greater, less, about"),
            ("micro = \"pairs\"", "micro = \"pair\"", ":20: claim paper-peak: unknown micro-benchmark 'pair'; expected one of pingping"),
            ("\"Go\" = \"go\" }\nmicro", "\"Go\" = \"golang\" }\nmicro", ":19: claim paper-peak: unknown implementation 'golang'"),
            (
                "study = \"paper\"\nsource = \"001_53eb50883f2a7aa9.txt: Figure 5\"\nclaim = \"Needs",
                "study = \"sac\"\nsource = \"001_53eb50883f2a7aa9.txt: Figure 5\"\nclaim = \"Needs",
                ":30: claim paper-64: unknown study 'sac'; expected one of thesis, paper",
            ),
        ] {
            let e = error(&GOOD.replace(from, to));
            assert!(e.starts_with("spec/findings.toml") && e.contains(expected), "{from} → {to}: {e}");
        }
    }

    #[test]
    fn a_predicate_missing_what_its_comparison_needs_is_refused() {
        for (from, to, expected) in [
            ("compare = \"less\"", "compare = \"about\"", "compare = \"about\" needs tolerance = 0.05 (within 5%)"),
            ("compare = \"less\"", "compare = \"ratio\"\nrange = [5.0, 2.0]", "range must be two numbers, the lower first"),
            ("compare = \"less\"", "compare = \"order\"", "compare = \"order\" needs at least 2 implementation(s) in a"),
            ("compare = \"less\"", "compare = \"scales-better\"", "needs cores = [from, to]"),
            ("peak_at = \"cores\"", "peak_at = \"all\"", "peak_at is \"cores\" or a value"),
            ("over = \"pairs\"", "over = \"size\"", "over = \"size\" must be a parameter of pairs"),
            ("metric = \"messages_per_s\"", "metric = \"throughput\"", "unknown metric 'throughput'; expected one of ns_per_op, messages_per_s, max_procs, bytes_per_proc"),
            ("source = \"000_3aa513129a70facd.txt: section 5.5, Figure 2\"", "source = \"the thesis\"", "source must name the thesis study's seed file"),
            ("untestable = \"needs 32 cores\"", "untestable = \"x\"\nmetric = \"ns_per_op\"", "says both untestable (x) and how to test it"),
            ("id = \"paper-64\"", "id = \"paper-peak\"", "the id is used by an earlier claim"),
        ] {
            let e = error(&GOOD.replace(from, to));
            assert!(e.contains(expected), "{from} → {to}: {e}");
        }
        assert!(error("[[claim]]\nid = \"x\"\nstudy = \"thesis\"\nsouce = \"y\"").contains("unknown field `souce`"));
    }

    #[test]
    fn the_repositorys_claims_file_reads_and_covers_every_study() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let claims = crate::findings::load(root).unwrap();
        assert!(claims.len() >= 20, "{} claims", claims.len());
        for study in Study::ALL {
            assert!(claims.iter().any(|c| c.study == study && matches!(c.test, Test::Measure(_))), "no testable claim of {}", study.as_str());
        }
    }
}
