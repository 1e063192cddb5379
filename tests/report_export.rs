//! `concur report --export-json/--export-csv` on the fixed database: every
//! point of the run, once in each format, beside the report.

use crate::results;

use std::path::Path;
use std::process::{Command, Output};

fn report(db: &Path, extra: &[&Path]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_concur"));
    cmd.args(["report", "--results"]).arg(db);
    for (flag, path) in ["-o", "--export-json", "--export-csv"].iter().zip(extra) {
        cmd.arg(flag).arg(path);
    }
    cmd.output().unwrap()
}

#[test]
fn both_exports_hold_every_point_of_the_run_beside_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("concur.db");
    let id = results::write_db(&db);
    let (out, json, csv) = (dir.path().join("report"), dir.path().join("points.json"), dir.path().join("points.csv"));
    let run = report(&db, &[&out, &json, &csv]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(out.join("index.html").is_file() && out.join("summary.md").is_file());
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(stdout.contains(&format!("points of run {id}: {}", csv.display())), "{stdout}");

    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!((doc["schema_version"].as_u64(), doc["run"]["id"].as_i64(), doc["run"]["profile"].as_str()), (Some(1), Some(id), Some("quick")));
    let points = doc["points"].as_array().unwrap();
    assert_eq!(points.len(), 27);
    let failed = points.iter().find(|p| p["key"] == "beta/page/cores=2/c=100/r3").unwrap();
    assert_eq!(failed["error"], "the server exited during the measurement");
    assert_eq!((failed["language"].as_str(), failed["known_failures"].as_bool(), failed["keepalive"].as_bool()), (Some("JavaScript"), Some(true), Some(true)));

    let text = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 28, "a header and 27 points");
    assert!(lines[0].starts_with("run_id,profile,key,implementation,language,model,scenario,cores,connections,rate,level,keepalive,"), "{}", lines[0]);
    let alpha = lines.iter().find(|l| l.contains(",alpha/hello/cores=1/c=50/r1,")).unwrap();
    assert!(alpha.starts_with(&format!("{id},quick,alpha/hello/cores=1/c=50/r1,alpha,Go,green-threads,hello,1,50,,c=50,true,1,")), "{alpha}");
}

#[test]
fn an_export_to_a_missing_folder_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("concur.db");
    results::write_db(&db);
    let bad = dir.path().join("no/such/folder/points.csv");
    let run = report(&db, &[&dir.path().join("report"), &dir.path().join("p.json"), &bad]);
    assert_eq!(run.status.code(), Some(2));
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(err.contains(&format!("writing the export {}", bad.display())), "{err}");
}
