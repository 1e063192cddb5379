//! `concur report --export-json FILE` and `--export-csv FILE`: every point of
//! the reported run as one row, for spreadsheets, notebooks and other tools,
//! as hyperfine exports its results. The columns are listed once (`row`) and
//! both formats take them in that order; spec/EXPORT.md is their contract,
//! and a test holds the two to the same order.

use super::model::PairDecision;
use crate::store::{Environment, ImplRecord, PointRecord, RunData};
use anyhow::{Context, Result};
use serde::Serialize;
use serde_json::{Value, json};
use std::path::Path;

/// `schema_version` of both formats; spec/EXPORT.md says what a change to it means.
pub const SCHEMA_VERSION: u32 = 1;

/// One point: (column, value) in the documented order.
type Row = Vec<(&'static str, Value)>;

/// Writes the exports asked for (`None`: not asked), naming each on stdout; the JSON one
/// with the block designs' pairwise `decisions`.
pub fn write(data: &RunData, decisions: &[PairDecision], json_to: Option<&Path>, csv_to: Option<&Path>) -> Result<()> {
    let save = |path: &Path, text: String| -> Result<()> {
        std::fs::write(path, text).with_context(|| format!("writing the export {}: check that its folder exists and is writable", path.display()))?;
        println!("points of run {}: {}", data.run.id, path.display());
        Ok(())
    };
    if let Some(path) = json_to {
        save(path, json(data, decisions))?;
    }
    if let Some(path) = csv_to {
        save(path, csv(data))?;
    }
    Ok(())
}

/// The JSON export: `{ "schema_version": 1, "run": {…}, "points": […], "decisions": […] }`.
pub fn json(data: &RunData, decisions: &[PairDecision]) -> String {
    let run = &data.run;
    let document = Document {
        schema_version: SCHEMA_VERSION,
        run: RunHeader {
            id: run.id,
            profile: &run.profile,
            description: run.plan.get("description").and_then(Value::as_str).unwrap_or_default(),
            status: run.status.as_str(),
            started_at: &run.started_at,
            finished_at: run.finished_at.as_deref(),
            plan_key: &run.plan_key,
            environment: &run.environment,
            notes: &run.notes,
        },
        points: rows(data).into_iter().map(Ordered).collect(),
        decisions,
    };
    serde_json::to_string_pretty(&document).expect("plain data serializes") + "\n"
}

/// The CSV export: a header row of the column names, then one row per point
/// (RFC 4180 quoting, `\n` line ends; an absent value is an empty field).
pub fn csv(data: &RunData) -> String {
    let mut out = line(columns().iter().map(|c| c.to_string()));
    for row in rows(data) {
        out += &line(row.into_iter().map(|(_, v)| text(v)));
    }
    out
}

/// The column names, in order.
pub fn columns() -> Vec<&'static str> {
    row(0, "", &PointRecord::default(), None).into_iter().map(|(name, _)| name).collect()
}

#[derive(Serialize)]
struct Document<'a> {
    schema_version: u32,
    run: RunHeader<'a>,
    points: Vec<Ordered>,
    decisions: &'a [PairDecision],
}

#[derive(Serialize)]
struct RunHeader<'a> {
    id: i64,
    profile: &'a str,
    description: &'a str,
    status: &'a str,
    started_at: &'a str,
    finished_at: Option<&'a str>,
    plan_key: &'a str,
    environment: &'a Environment,
    notes: &'a [String],
}

/// A row as a JSON object that keeps the columns' order.
struct Ordered(Row);

impl Serialize for Ordered {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(name, value)| (name, value)))
    }
}

fn rows(data: &RunData) -> Vec<Row> {
    let imp = |p: &PointRecord| data.implementations.iter().find(|i| i.name == p.implementation);
    data.points.iter().map(|p| row(data.run.id, &data.run.profile, p, imp(p))).collect()
}

/// Every column of spec/EXPORT.md, in its order.
fn row(run_id: i64, profile: &str, p: &PointRecord, imp: Option<&ImplRecord>) -> Row {
    let (l, s, g, d) = (&p.latency, &p.server, &p.generator, p.database.as_ref());
    vec![
        ("run_id", json!(run_id)),
        ("profile", json!(profile)),
        ("key", json!(p.key)),
        ("implementation", json!(p.implementation)),
        ("language", json!(imp.map(|i| &i.manifest.language))),
        ("model", json!(imp.map(|i| i.manifest.model.as_str()))),
        ("scenario", json!(p.scenario)),
        ("cores", json!(p.cores)),
        ("connections", json!(p.connections)),
        ("rate", json!(p.rate)),
        ("level", json!(p.level)),
        ("keepalive", json!(p.keepalive)),
        ("repeat", json!(p.repeat)),
        ("started_at", json!(p.started_at)),
        ("warmup_s", json!(p.warmup_s)),
        ("duration_s", json!(p.duration_s)),
        ("requests", json!(p.requests)),
        ("successes", json!(p.successes)),
        ("errors_total", json!(p.errors_total)),
        ("throughput_rps", json!(p.throughput())),
        ("latency_min_us", json!(l.min_us)),
        ("latency_mean_us", json!(l.mean_us)),
        ("latency_stdev_us", json!(l.stdev_us)),
        ("latency_p50_us", json!(l.p50_us)),
        ("latency_p75_us", json!(l.p75_us)),
        ("latency_p90_us", json!(l.p90_us)),
        ("latency_p99_us", json!(l.p99_us)),
        ("latency_p999_us", json!(l.p999_us)),
        ("latency_max_us", json!(l.max_us)),
        ("latency_lower_bounds", json!(l.lower_bounds.join(" "))),
        ("unfinished", json!(l.unfinished)),
        ("unfinished_oldest_us", json!(p.unfinished_age.max_us)),
        ("server_cpu_util", json!(s.cpu_util)),
        ("server_rss_peak_bytes", json!(s.rss_peak_bytes)),
        ("generator_cpu_util", json!(g.cpu_util)),
        ("generator_shared", json!(g.shared)),
        ("generator_saturated", json!(g.saturated)),
        ("error", json!(p.error)),
        ("known_failures", json!(imp.is_some_and(|i| !i.known_failures.is_empty()))),
        ("generator", json!(g.kind.as_str())),
        ("generator_version", json!(g.version)),
        ("database_cpu_s", json!(d.map(|d| d.cpu_seconds))),
        ("database_cpu_util", json!(d.map(|d| d.cpu_util))),
        ("database_mem_peak_bytes", json!(d.map(|d| d.mem_peak_bytes))),
        ("database_shared", json!(d.map(|d| d.shared))),
        ("database_limited", json!(d.map(|d| d.limited))),
        ("server_cpu_s", json!(s.cpu_seconds)),
        ("server_from", json!(p.server_from)),
    ]
}

/// A value as a CSV field's text: null is empty, a string is itself.
fn text(value: Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => s,
        other => other.to_string(),
    }
}

/// One CSV record: a field holding a comma, a quote or a line break is quoted, its quotes doubled.
fn line(fields: impl Iterator<Item = String>) -> String {
    let quoted: Vec<String> = fields
        .map(|f| if f.contains([',', '"', '\n', '\r']) { format!("\"{}\"", f.replace('"', "\"\"")) } else { f })
        .collect();
    quoted.join(",") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{KnownFailure, RunInfo, RunStatus};

    fn data(points: Vec<PointRecord>) -> RunData {
        let run = RunInfo {
            id: 7,
            started_at: "2025-01-02T03:04:05Z".into(),
            finished_at: None,
            status: RunStatus::Finished,
            profile: "quick".into(),
            plan_key: "abc".into(),
            plan: json!({"description": "a test run"}),
            environment: Environment::default(),
            notes: vec![],
        };
        let text = "name = \"demo\"\nlanguage = \"Go\"\nruntime = \"Go\"\nversion = \"true\"\nframework = \"net/http\"\nmodel = \"green-threads\"\n[start]\ncommand = \"./s\"\n";
        let manifest = crate::impls::manifest::parse(Path::new("demo/concur.toml"), text, "demo").unwrap();
        let known = KnownFailure { check: "pipelining".into(), cores: 1, detail: "d".into(), reason: "r".into() };
        let imp = ImplRecord { name: "demo".into(), status: crate::store::ImplStatus::Verified, reason: None, version: "1".into(), manifest, known_failures: vec![known] };
        RunData { run, implementations: vec![imp], points }
    }

    fn point(error: Option<&str>) -> PointRecord {
        PointRecord {
            key: "demo/hello/cores=1/c=50/close/r1".into(),
            implementation: "demo".into(),
            scenario: "hello".into(),
            cores: 1,
            connections: 50,
            level: "c=50 close".into(),
            keepalive: false,
            repeat: 1,
            duration_s: 2.0,
            successes: 500,
            requests: 500,
            error: error.map(str::to_string),
            ..PointRecord::default()
        }
    }

    #[test]
    fn a_csv_field_with_a_comma_or_a_quote_is_quoted_with_its_quotes_doubled() {
        let csv = csv(&data(vec![point(Some("the server said \"no\", then closed"))]));
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 2, "{csv}");
        assert!(lines[1].starts_with("7,quick,demo/hello/cores=1/c=50/close/r1,demo,Go,green-threads,hello,1,50,,c=50 close,false,1,"), "{}", lines[1]);
        assert!(lines[1].contains(",false,false,\"the server said \"\"no\"\", then closed\",true,concur-load,,"), "{}", lines[1]);
        let fields = |l: &str| l.split(',').count();
        // The quoted comma is the only one that does not separate fields.
        assert_eq!(fields(lines[1]), fields(lines[0]) + 1);
    }

    #[test]
    fn a_field_with_a_line_break_stays_one_record() {
        let csv = csv(&data(vec![point(Some("first line\nsecond line"))]));
        assert!(csv.contains(",\"first line\nsecond line\","), "{csv}");
        assert!(csv.contains("\",true,concur-load,,"), "{csv}");
    }

    #[test]
    fn the_json_export_has_the_schema_version_the_run_and_the_points_in_column_order() {
        let text = json(&data(vec![point(None), PointRecord { keepalive: true, rate: Some(1000), ..point(None) }]), &[]);
        let doc: Value = serde_json::from_str(&text).unwrap();
        assert_eq!((doc["schema_version"].as_u64(), doc["run"]["id"].as_i64(), doc["run"]["description"].as_str()), (Some(1), Some(7), Some("a test run")));
        let points = doc["points"].as_array().unwrap();
        assert_eq!((points[0]["rate"].clone(), points[1]["rate"].clone()), (Value::Null, json!(1000)));
        assert_eq!((points[0]["keepalive"].clone(), points[0]["throughput_rps"].clone()), (json!(false), json!(250.0)));
        assert_eq!((points[0]["error"].clone(), points[0]["known_failures"].clone()), (Value::Null, json!(true)));
        let at = |column: &str| text.find(&format!("\"{column}\":")).unwrap();
        assert!(at("run_id") < at("key") && at("key") < at("latency_p50_us") && at("latency_p50_us") < at("latency_p90_us"), "{text}");
    }

    #[test]
    fn a_database_scenarios_point_exports_the_databases_usage_and_others_none() {
        let usage = crate::store::DatabaseUsage { cpu_seconds: 0.5, cpu_util: 0.25, mem_peak_bytes: 64 << 20, limited: true, ..Default::default() };
        let db = PointRecord { scenario: "db".into(), database: Some(usage), ..point(None) };
        let doc: Value = serde_json::from_str(&json(&data(vec![db, point(None)]), &[])).unwrap();
        let (with, without) = (&doc["points"][0], &doc["points"][1]);
        assert_eq!((with["database_cpu_s"].clone(), with["database_mem_peak_bytes"].clone(), with["database_limited"].clone()), (json!(0.5), json!(64 << 20), json!(true)));
        assert!(["database_cpu_s", "database_cpu_util", "database_mem_peak_bytes", "database_shared", "database_limited"].iter().all(|c| without[*c].is_null()), "{without}");
    }

    #[test]
    fn the_columns_are_those_of_spec_export_md_in_its_order() {
        let spec = include_str!("../../spec/EXPORT.md");
        let section = spec.split("## Point columns").nth(1).unwrap().split("\n## ").next().unwrap();
        let documented: Vec<&str> = section.lines().filter_map(|l| l.strip_prefix("| `")?.split('`').next()).collect();
        assert_eq!(columns(), documented);
        assert!(spec.contains(&format!("schema_version: {SCHEMA_VERSION}")), "spec/EXPORT.md names another schema version");
    }
}
