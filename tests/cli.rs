//! End-to-end tests of the `concur` binary: bad input gets a sentence naming
//! the input and the fix, `serve` leaves no process behind on Ctrl-C, and
//! `verify --url` exits non-zero on a failing check.

use crate::support;
use crate::tools;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn concur() -> Command {
    Command::new(env!("CARGO_BIN_EXE_concur"))
}

/// A throw-away repository root with one HTTP implementation whose manifest is `manifest`.
fn fake_root(name: &str, manifest: &str) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("impls/http").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::create_dir_all(root.path().join("spec/static")).unwrap();
    std::fs::write(dir.join("concur.toml"), manifest).unwrap();
    root
}

const FAKE: &str = r#"
name = "fake"
language = "Python"
runtime = "CPython"
version = "python3 --version"
framework = "http.server"
model = "os-threads"
[requires]
commands = ["python3"]
[start]
command = "sh -c 'sleep 300.5 & exec python3 -m http.server {port} --bind 127.0.0.1'"
"#;

#[test]
fn a_manifest_without_start_names_file_field_and_fix() {
    let root = fake_root("fake", &FAKE.replace("[start]\n", "[other]\n"));
    let out = concur().args(["list", "--root"]).arg(root.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("impls/http/fake/concur.toml"), "{err}");
    assert!(err.contains("'start' is missing (e.g. [start]"), "{err}");
}

#[test]
fn list_shows_a_missing_toolchain_with_the_reason() {
    let root = fake_root("fake", &FAKE.replace(r#"commands = ["python3"]"#, "commands = [\"no-such-tool-xyz\"]\ninstall = \"apt: xyz\""));
    let out = concur().args(["list", "--root"]).arg(root.path()).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("fake") && text.contains("missing: no-such-tool-xyz not on PATH (install: apt: xyz)"), "{text}");
}

#[test]
fn verify_of_an_unknown_name_lists_the_known_ones() {
    let root = fake_root("fake", FAKE);
    let out = concur().args(["verify", "nosuch", "--root"]).arg(root.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no http implementation named 'nosuch'; known: fake"), "{err}");
}

#[test]
fn zero_cores_is_refused_with_an_example() {
    let out = concur().args(["verify", "--cores", "0", "--root", env!("CARGO_MANIFEST_DIR")]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--cores 0: core counts start at 1 (e.g. --cores 1,2)"));
}

fn processes_with_arg(arg: &str) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .filter(|c| String::from_utf8_lossy(c).split('\0').any(|a| a == arg))
        .count()
}

/// A running `concur serve`, given Ctrl-C (then SIGKILL after 5 s) when dropped
/// still running, so that a test failing before it stops serve leaves neither
/// serve nor its server behind.
struct Serve(std::process::Child);

impl Drop for Serve {
    fn drop(&mut self) {
        if !matches!(self.0.try_wait(), Ok(None)) {
            return;
        }
        // SAFETY: signalling our own child.
        unsafe { libc::kill(self.0.id() as i32, libc::SIGINT) };
        let deadline = Instant::now() + Duration::from_secs(5);
        while matches!(self.0.try_wait(), Ok(None)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `concur serve fake` of `root` on a free port, its standard error read up to
/// the line saying it serves there; the rest of that stream is handed back.
fn serve_until_ready(root: &Path) -> (Serve, u16, std::io::Lines<BufReader<std::process::ChildStderr>>) {
    let port = concur::server::free_port().unwrap();
    let mut child = Serve(
        concur()
            .args(["serve", "fake", "--port", &port.to_string(), "--root"])
            .arg(root)
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let mut lines = BufReader::new(child.0.stderr.take().unwrap()).lines();
    let mut said = Vec::new();
    let ready = lines.by_ref().map_while(Result::ok).inspect(|l| said.push(l.clone())).find(|l| l.contains("serving on"));
    assert!(ready.is_some_and(|l| l.contains(&format!("127.0.0.1:{port}"))), "concur serve on port {port} said:\n{}", said.join("\n"));
    (child, port, lines)
}

#[test]
fn serve_stops_the_whole_process_tree_on_ctrl_c() {
    if tools::require(&tools::PYTHON3).is_none() {
        return;
    }
    // A child's argument no other test's server has: tests run in parallel, and
    // another test's fake server also starts `sleep 300.5`.
    let root = fake_root("fake", &FAKE.replace("sleep 300.5", "sleep 300.61"));
    let (mut serve, port, _lines) = serve_until_ready(root.path());
    assert_eq!(processes_with_arg("300.61"), 1, "the server's child should be running");
    // SAFETY: signalling our own child.
    unsafe { libc::kill(serve.0.id() as i32, libc::SIGINT) };
    let status = serve.0.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let deadline = Instant::now() + Duration::from_secs(5);
    while processes_with_arg("300.61") > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(processes_with_arg("300.61"), 0, "a child of the server outlived Ctrl-C");
    assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_err(), "the server still listens");
}

/// Regression: the signal handler printed with `eprintln!`, which panics when
/// standard error is a pipe nobody reads; the panic ended the handler's
/// thread before it exited, and `concur serve` and `concur db` then ignored
/// every signal (seen with a script that had stopped reading their output).
#[test]
fn serve_stops_on_ctrl_c_after_its_stderr_reader_is_gone() {
    if tools::require(&tools::PYTHON3).is_none() {
        return;
    }
    let root = fake_root("fake", FAKE);
    let (mut serve, port, lines) = serve_until_ready(root.path());
    drop(lines);
    // SAFETY: signalling our own child.
    unsafe { libc::kill(serve.0.id() as i32, libc::SIGINT) };
    let deadline = Instant::now() + Duration::from_secs(8);
    let status = loop {
        if let Some(status) = serve.0.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            panic!("concur serve ignored SIGINT once nobody read its standard error");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(130));
    assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_err(), "the server still listens");
}

/// The soft and hard open-file limits of process `pid`, from /proc/PID/limits.
fn open_file_limits(pid: u32) -> (u64, u64) {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    let line = limits.lines().find(|l| l.starts_with("Max open files")).unwrap().to_string();
    let numbers: Vec<u64> = line.split_whitespace().filter_map(|w| w.parse().ok()).collect();
    (numbers[0], numbers[1])
}

#[test]
fn a_server_inherited_concurs_open_file_limit() {
    // The bug: a server got whatever limit concur was started with (a shell's 1,024, or this
    // machine's 20,000), below the 65,536 clients spec/POLICIES.md §1 asks it to hold.
    if tools::require(&tools::PYTHON3).is_none() {
        return;
    }
    let root = fake_root("fake", &FAKE.replace("sh -c 'sleep 300.5 & exec python3", "sh -c 'exec python3"));
    let port = concur::server::free_port().unwrap();
    let mut cmd = concur();
    cmd.args(["serve", "fake", "--port", &port.to_string(), "--root"]).arg(root.path()).stderr(Stdio::piped()).stdout(Stdio::null());
    // concur itself starts with a soft limit of 1,024 under the hard limit this test has.
    // SAFETY: getrlimit and setrlimit touch only the child.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut cmd, || {
            let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
            libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim);
            lim.rlim_cur = lim.rlim_cur.min(1024);
            libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
            Ok(())
        })
    };
    let mut serve = Serve(cmd.spawn().unwrap());
    let mut lines = BufReader::new(serve.0.stderr.take().unwrap()).lines();
    assert!(lines.by_ref().map_while(Result::ok).any(|l| l.contains("serving on")));
    let (concur_soft, hard) = open_file_limits(serve.0.id());
    // The server is the child of `concur serve` listening on the port (`python3 -m http.server PORT`).
    let server = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .find(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let args: Vec<String> = String::from_utf8_lossy(&cmdline).split('\0').map(String::from).collect();
            args.iter().any(|a| a == "http.server") && args.iter().any(|a| *a == port.to_string())
        })
        .expect("the server's process");
    let (soft, _) = open_file_limits(server);
    drop(serve);
    assert!(concur_soft <= 1024, "concur itself kept the 1,024 it was given ({concur_soft})");
    let floor = concur::host::limits::SERVER_NOFILE.min(hard);
    assert!(floor > 1024, "this test needs a hard open-file limit above 1,024 (it is {hard})");
    assert!(soft >= floor, "the server's open-file limit is {soft}: not raised to 65,536 or the hard limit {hard}");
}

#[test]
fn verify_url_exits_non_zero_and_names_the_failing_check() {
    let page = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("spec/static/hello.html")).unwrap();
    let addr = support::refserver::start(&[support::refserver::Fault::NoDate], page, 2000, 600);
    let out = concur()
        .args(["verify", "--url", &format!("http://{addr}"), "--only", "root,json,headers", "--root", env!("CARGO_MANIFEST_DIR")])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("pass  root") && text.contains("pass  json"), "{text}");
    assert!(text.contains("FAIL  headers") && text.contains("no Date"), "{text}");
}

#[test]
fn verify_url_with_a_path_is_refused() {
    let out = concur().args(["verify", "--url", "http://127.0.0.1:1/x", "--root", env!("CARGO_MANIFEST_DIR")]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("give the server's base URL, e.g. http://127.0.0.1:8080"));
}

#[test]
fn test_picks_one_kind_with_kind_slash_name() {
    let root = fake_root("fake", &format!("{FAKE}\n[test]\ncommand = \"echo tested-http\"\n"));
    let micro = root.path().join("impls/micro/fake");
    std::fs::create_dir_all(&micro).unwrap();
    std::fs::write(micro.join("concur.toml"), format!("{FAKE}\n[test]\ncommand = \"echo tested-micro\"\n")).unwrap();
    let out = concur().args(["test", "micro/fake", "--root"]).arg(root.path()).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("tested-micro") && !text.contains("tested-http"), "{text}");
    assert!(text.contains("micro/fake: passed in ") && text.contains("tests of 1 implementation(s) passed in "), "each suite and the whole say how long they took: {text}");
    let both = concur().args(["test", "fake", "--root"]).arg(root.path()).output().unwrap();
    let text = String::from_utf8_lossy(&both.stdout);
    assert!(text.contains("tested-micro") && text.contains("tested-http"), "{text}");
    assert!(text.contains("tests of 2 implementation(s) passed in "), "{text}");
}

#[test]
fn a_failing_suite_is_named_with_its_time_and_the_command_fails() {
    let root = fake_root("fake", &format!("{FAKE}\n[test]\ncommand = \"exit 3\"\n"));
    let out = concur().args(["test", "fake", "--root"]).arg(root.path()).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{text}");
    assert!(text.contains("http/fake: FAILED in ") && text.contains("implementation tests failed: fake (1 of 1 in "), "{text}");
}
