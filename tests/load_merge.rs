//! `concur merge` of two `--json` results holds the same histogram as one
//! run recording every latency of both, and the sums of their counts.

use crate::load_support;

use concur::load::{LoadReport, merge};
use concur::stats::Latencies;
use load_support::{Behaviour, TestServer, plan, run};
use std::process::Command;
use std::time::Duration;

fn json_round_trip(report: &LoadReport) -> LoadReport {
    serde_json::from_str(&serde_json::to_string(report).unwrap()).unwrap()
}

#[test]
fn merged_histogram_equals_the_combined_one() {
    let server = TestServer::start(Behaviour::Delay(Duration::from_millis(2)));
    let a = run(&plan(&server, 3, 150));
    let b = run(&plan(&server, 5, 250));

    // One histogram recording both runs' latencies, value by value.
    let mut combined = Latencies::new();
    for report in [&a, &b] {
        for (value, count) in report.latency.latencies().unwrap().recorded() {
            for _ in 0..count {
                combined.record_us(value);
            }
        }
    }

    let merged = merge(&[json_round_trip(&a), json_round_trip(&b)]).unwrap();
    assert_eq!(merged.latency.latencies().unwrap(), combined);
    assert_eq!(merged.latency, combined.stats());
    assert_eq!((merged.requests, merged.errors, merged.sources), (400, 0, 2));
    assert_eq!(merged.steps[0].requests, 400);
    assert_eq!(merged.settings.connections, 8);
    assert_eq!(merged.settings.requests, Some(400));
    assert_eq!(merged.bytes_read, a.bytes_read + b.bytes_read);
    assert_eq!(merged.timeline.iter().map(|s| s.requests).sum::<u64>(), 400);
}

#[test]
fn merge_command_reads_and_writes_json() {
    let server = TestServer::start(Behaviour::Hello);
    let dir = tempfile::tempdir().unwrap();
    let (pa, pb, out) = (dir.path().join("a.json"), dir.path().join("b.json"), dir.path().join("ab.json"));
    let a = run(&plan(&server, 2, 100));
    let b = run(&plan(&server, 2, 60));
    std::fs::write(&pa, serde_json::to_string(&a).unwrap()).unwrap();
    std::fs::write(&pb, serde_json::to_string(&b).unwrap()).unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_concur"))
        .args(["merge", pa.to_str().unwrap(), pb.to_str().unwrap(), "--json", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
    assert!(String::from_utf8_lossy(&status.stdout).contains("Merged 2 results"));
    let merged: LoadReport = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let mut expected = a.latency.latencies().unwrap();
    expected.add(&b.latency.latencies().unwrap()).unwrap();
    assert_eq!(merged.latency.latencies().unwrap(), expected);
    assert_eq!(merged.requests, 160);

    std::fs::write(&pb, r#"{"schema":"other/9"}"#).unwrap();
    let refused = Command::new(env!("CARGO_BIN_EXE_concur")).args(["merge", pa.to_str().unwrap(), pb.to_str().unwrap()]).output().unwrap();
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("schema 'other/9', this concur reads 'concur-load/1'"));
}
