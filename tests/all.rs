//! Every integration test in one binary (`autotests = false` in Cargo.toml):
//! fourteen release-mode test crates took most of `cargo test --release`'s
//! five minutes of compiling; one crate links the library once. The files
//! stay one per subject; the helpers they share are declared here.

#[path = "support/database.rs"]
mod database;
#[path = "support/fake_repo.rs"]
mod fake_repo;
#[path = "load_support/mod.rs"]
mod load_support;
#[path = "support/results.rs"]
mod results;
#[path = "support/mod.rs"]
mod support;
#[path = "support/tools.rs"]
mod tools;

#[path = "build_cmd.rs"]
mod build_cmd;
#[path = "db_cluster.rs"]
mod db_cluster;
#[path = "cli.rs"]
mod cli;
#[path = "compare_cli.rs"]
mod compare_cli;
#[path = "compare_fake.rs"]
mod compare_fake;
#[path = "completions.rs"]
mod completions;
#[path = "load_cli.rs"]
mod load_cli;
#[path = "load_counts.rs"]
mod load_counts;
#[path = "load_errors.rs"]
mod load_errors;
#[path = "load_latency.rs"]
mod load_latency;
#[path = "load_merge.rs"]
mod load_merge;
#[path = "load_scenario.rs"]
mod load_scenario;
#[path = "load_warmup.rs"]
mod load_warmup;
#[path = "faults_fake.rs"]
mod faults_fake;
#[path = "micro_fake.rs"]
mod micro_fake;
#[path = "micro_go.rs"]
mod micro_go;
#[path = "placement.rs"]
mod placement;
#[path = "report_chromium.rs"]
mod report_chromium;
#[path = "report_export.rs"]
mod report_export;
#[path = "report_snapshot.rs"]
mod report_snapshot;
#[path = "run_database.rs"]
mod run_database;
#[path = "run_capacity.rs"]
mod run_capacity;
#[path = "run_held.rs"]
mod run_held;
#[path = "run_locust.rs"]
mod run_locust;
#[path = "run_sweep.rs"]
mod run_sweep;
#[path = "verify_catches_faults.rs"]
mod verify_catches_faults;
#[path = "verify_database.rs"]
mod verify_database;
#[path = "verify_known_failures.rs"]
mod verify_known_failures;
