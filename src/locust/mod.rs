//! Locust as a second load generator of `concur run` (`--generator locust`):
//! the thesis' own tool, able to spread load over many machines. A point's
//! scenario becomes a generated locustfile (`locustfile`), a master and its
//! workers run it headless (`master`), and Locust's JSON and CSV statistics
//! become the point's numbers (`output`). `concur locust-worker` runs one
//! worker for a master on another machine. Locust itself lives in a virtual
//! environment that `make setup` builds from `tools/locust/requirements.txt`
//! (pinned with hashes). spec/LOCUST.md is the contract.

pub mod locustfile;
pub mod master;
pub mod output;

use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Duration;

/// The port a Locust master listens on for workers unless told otherwise (Locust's own default).
pub const MASTER_PORT: u16 = 5557;

/// Where setup puts Locust's virtual environment, under the repository.
pub const VENV: &str = "tools/locust/.venv";
/// Names a `locust` executable to use instead of the repository's virtual environment.
pub const LOCUST_VAR: &str = "CONCUR_LOCUST";

/// An installed Locust.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    pub locust: PathBuf,
    /// `locust.__version__`, e.g. `2.47.0`.
    pub version: String,
}

/// The repository's Locust (or `$CONCUR_LOCUST`); the error is one line saying why there is none and the fix.
pub fn find(root: Option<&Path>) -> std::result::Result<Tool, String> {
    let locust = match (std::env::var_os(LOCUST_VAR), root) {
        (Some(path), _) => PathBuf::from(path),
        (None, Some(root)) => root.join(VENV).join("bin/locust"),
        (None, None) => return Err(format!("no repository to find {VENV} in; set {LOCUST_VAR} to a locust executable")),
    };
    if !locust.is_file() {
        return Err(format!("Locust is not installed ({} is missing): `make setup` installs it from tools/locust/requirements.txt", locust.display()));
    }
    let python = locust.with_file_name("python");
    let out = Command::new(&python).args(["-c", "import locust; print(locust.__version__)"]).stderr(Stdio::null()).output();
    match out {
        Ok(o) if o.status.success() => Ok(Tool { locust, version: String::from_utf8_lossy(&o.stdout).trim().to_string() }),
        _ => Err(format!("{} cannot import locust: rebuild its environment with `make setup`", python.display())),
    }
}

/// `concur locust-worker --master HOST:PORT`: a Locust worker for a master
/// started by `concur run --generator locust --locust-master-bind ADDR` on
/// another machine. The worker takes the locustfile from its master, so it
/// needs no scenario; without `once` it connects again after each point's
/// master ends, so one worker serves a whole sweep. `report` receives the
/// worker's request counts of the measurement (JSON) when it quits.
pub fn worker_command(root: Option<&Path>, master: &str, report: Option<&Path>, once: bool) -> Result<ExitCode> {
    let root = crate::impls::find_root(root).ok();
    let tool = find(root.as_deref()).map_err(anyhow::Error::msg)?;
    let (host, port) = master
        .rsplit_once(':')
        .and_then(|(h, p)| Some((h.trim_matches(['[', ']']), p.parse::<u16>().ok()?)))
        .with_context(|| format!("--master '{master}': expected HOST:PORT, e.g. 10.0.0.1:{}", MASTER_PORT))?;
    crate::host::interrupt::on_signal(|_| std::process::exit(130));
    eprintln!("concur locust-worker: Locust {} connecting to {host}:{port}", tool.version);
    // The worker writes the locustfile it fetches to $TMPDIR/locustfile.py: a folder of its own, so that two workers on one machine never share it.
    let tmp = std::env::temp_dir().join(format!("concur-locust-worker-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
    loop {
        let mut cmd = Command::new(&tool.locust);
        cmd.args(master::worker_args(host, port)).stdin(Stdio::null()).env("TMPDIR", &tmp);
        // SAFETY (both blocks): between fork and exec, prctl only sets the child's parent-death
        // signal, so that the worker never outlives its wrapper.
        let die_with_parent = || match unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) } {
            0 => Ok(()),
            _ => Err(std::io::Error::last_os_error()),
        };
        unsafe { std::os::unix::process::CommandExt::pre_exec(&mut cmd, die_with_parent) };
        if let Some(path) = report {
            cmd.env("CONCUR_LOCUST_WORKER_REPORT", path);
        }
        let status = cmd.status().with_context(|| format!("starting {}", tool.locust.display()))?;
        if once {
            let _ = std::fs::remove_dir_all(&tmp);
            if !status.success() {
                bail!("the Locust worker exited with {status}");
            }
            return Ok(ExitCode::SUCCESS);
        }
        std::thread::sleep(Duration::from_secs(1));
    }
}
