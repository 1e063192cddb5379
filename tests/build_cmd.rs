//! `concur build` end to end against fake implementations whose build
//! commands are shell snippets: builds that require a common command never
//! overlap, builds that share nothing run at the same time, a failed build
//! stops no other and names its log, a second build finds everything up to
//! date, and Ctrl-C stops the running build and starts no other.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A fake implementation: its kind and name, its required commands and its build command.
struct Fake<'a> {
    kind: &'a str,
    name: &'a str,
    requires: &'a [&'a str],
    build: &'a str,
}

/// A repository root holding `fakes`; each build's output is `built`, its source its manifest.
fn root(fakes: &[Fake]) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("spec")).unwrap();
    for fake in fakes {
        let dir = root.path().join("impls").join(fake.kind).join(fake.name);
        std::fs::create_dir_all(&dir).unwrap();
        let requires: Vec<String> = fake.requires.iter().map(|c| format!("\"{c}\"")).collect();
        let manifest = format!(
            "name = \"{}\"\nlanguage = \"Shell\"\nruntime = \"sh\"\nversion = \"echo 1\"\nframework = \"none\"\nmodel = \"os-threads\"\n\
             [requires]\ncommands = [{}]\n[build]\ncommand = '''{}'''\noutputs = [\"built\"]\nsources = [\"concur.toml\"]\n[start]\ncommand = \"true\"\n",
            fake.name,
            requires.join(", "),
            fake.build
        );
        std::fs::write(dir.join("concur.toml"), manifest).unwrap();
    }
    root
}

fn build(root: &tempfile::TempDir, args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_concur")).arg("build").args(args).arg("--root").arg(root.path()).output().unwrap();
    eprintln!("stdout:\n{}\nstderr:\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    out
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A build that writes "start NAME" and "end NAME" to `file` around a pause.
fn bracketed(file: &Path, name: &str) -> String {
    let file = file.display();
    format!("echo start {name} >> {file}; sleep 0.5; echo end {name} >> {file}; touch built")
}

#[test]
fn builds_requiring_a_common_command_never_overlap() {
    let dir = tempfile::tempdir().unwrap();
    let order = dir.path().join("order");
    let (a, b, c) = (bracketed(&order, "a"), bracketed(&order, "b"), bracketed(&order, "c"));
    // a and c share nothing directly: each shares a command with b.
    let root = root(&[
        Fake { kind: "http", name: "a", requires: &["sh", "touch"], build: &a },
        Fake { kind: "http", name: "b", requires: &["touch", "env"], build: &b },
        Fake { kind: "micro", name: "c", requires: &["env"], build: &c },
    ]);
    let out = build(&root, &["--jobs", "3"]);
    assert!(out.status.success());
    assert!(stdout(&out).contains("in 1 lane(s), 1 at a time"), "{}", stdout(&out));
    let lines = std::fs::read_to_string(&order).unwrap();
    assert_eq!(lines, "start a\nend a\nstart b\nend b\nstart c\nend c\n", "one lane, in name order");
}

#[test]
fn builds_sharing_nothing_run_at_the_same_time() {
    // Each build waits (up to 20 s) for the other's file: both succeed only when they overlap.
    let wait_for = |mine: &str, theirs: &str| {
        format!("touch {mine}; i=0; while [ ! -e {theirs} ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i+1)); done; [ -e {theirs} ] && touch built")
    };
    let dir = tempfile::tempdir().unwrap();
    let (ready_a, ready_b) = (dir.path().join("a.ready").display().to_string(), dir.path().join("b.ready").display().to_string());
    let (a, b) = (wait_for(&ready_a, &ready_b), wait_for(&ready_b, &ready_a));
    let root = root(&[Fake { kind: "http", name: "a", requires: &["sh"], build: &a }, Fake { kind: "micro", name: "b", requires: &["env"], build: &b }]);
    let out = build(&root, &["--jobs", "2"]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("http/a: built in ") && text.contains("micro/b: built in "), "{text}");
    assert!(text.contains("built 2, up to date 0, failed 0, skipped 0 in "), "{text}");
}

#[test]
fn build_failure_stops_no_other_and_names_its_log() {
    let root = root(&[
        Fake { kind: "http", name: "bad", requires: &["sh"], build: "echo broken on purpose >&2; exit 3" },
        Fake { kind: "http", name: "good", requires: &["sh"], build: "touch built" },
        Fake { kind: "micro", name: "other", requires: &["env"], build: "touch built" },
    ]);
    let out = build(&root, &[]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let log = root.path().join("results/logs/build/http-bad.log");
    let bad = text.lines().find(|l| l.starts_with("http/bad: ")).unwrap();
    assert!(bad.starts_with("http/bad: build FAILED: ") && bad.ends_with(&format!("; see {}", log.display())), "{bad}");
    assert!(std::fs::read_to_string(&log).unwrap().contains("broken on purpose"));
    assert!(text.contains("http/good: built in ") && text.contains("micro/other: built in "), "{text}");
    assert!(text.contains("built 2, up to date 0, failed 1, skipped 0 in "), "{text}");
}

#[test]
fn build_again_finds_every_one_up_to_date() {
    let root = root(&[
        Fake { kind: "http", name: "elixir", requires: &["sh"], build: "touch built" },
        Fake { kind: "micro", name: "elixir", requires: &["sh"], build: "touch built" },
        Fake { kind: "http", name: "go", requires: &["env"], build: "touch built" },
        Fake { kind: "http", name: "absent", requires: &["no-such-tool-xyz"], build: "touch built" },
    ]);
    let first = build(&root, &[]);
    assert!(first.status.success());
    assert!(stdout(&first).contains("http/absent: skipped: no-such-tool-xyz not on PATH"), "{}", stdout(&first));
    assert!(stdout(&first).contains("built 3, up to date 0, failed 0, skipped 1 in "), "{}", stdout(&first));
    let again = build(&root, &["elixir", "go"]);
    let text = stdout(&again);
    assert!(again.status.success(), "{text}");
    for name in ["http/elixir", "micro/elixir", "http/go"] {
        assert!(text.contains(&format!("{name}: up to date\n")), "{text}");
    }
    assert!(text.contains("built 0, up to date 3, failed 0, skipped 0 in "), "{text}");
}

#[test]
fn build_of_an_unknown_name_lists_the_known_ones() {
    let root = root(&[Fake { kind: "http", name: "go", requires: &["sh"], build: "touch built" }, Fake { kind: "micro", name: "c", requires: &["sh"], build: "touch built" }]);
    let out = build(&root, &["nope"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no implementation named 'nope'; known: c, go"), "{err}");
}

#[test]
fn build_jobs_0_names_the_flag_and_the_fix() {
    let root = root(&[]);
    let out = build(&root, &["--jobs", "0"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--jobs") && err.contains("give --jobs 1 or more"), "{err}");
}

#[test]
fn build_ctrl_c_stops_the_running_build_and_starts_no_other() {
    let dir = tempfile::tempdir().unwrap();
    let (pid_file, started_b) = (dir.path().join("sleep.pid"), dir.path().join("b.started"));
    // The sleep is the shell's child, in its process group: only a group kill reaches it.
    let a = format!("sleep 60 & echo $! > {}; wait", pid_file.display());
    let b = format!("touch {}; touch built", started_b.display());
    let root = root(&[Fake { kind: "http", name: "a", requires: &["sh"], build: &a }, Fake { kind: "http", name: "b", requires: &["sh"], build: &b }]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_concur")).args(["build", "--root"]).arg(root.path()).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let sleep_pid = loop {
        if let Some(pid) = std::fs::read_to_string(&pid_file).ok().and_then(|t| t.trim().parse::<i32>().ok()) {
            break pid;
        }
        assert!(Instant::now() < deadline, "build a never started its sleep");
        std::thread::sleep(Duration::from_millis(50));
    };
    // SAFETY: signalling the child this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    assert_eq!(child.wait().unwrap().code(), Some(130));
    // Gone, or a zombie nobody reaps (a container's init may not).
    let gone = |pid: i32| std::fs::read_to_string(format!("/proc/{pid}/stat")).ok().is_none_or(|s| s.rsplit(") ").next().is_some_and(|rest| rest.starts_with('Z')));
    let deadline = Instant::now() + Duration::from_secs(5);
    while !gone(sleep_pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(gone(sleep_pid), "the build's sleep {sleep_pid} outlived Ctrl-C");
    assert!(!started_b.exists(), "a build started after Ctrl-C");
}
