//! Building and running one implementation exactly as every command does:
//! `serve`, `verify` and `run` all start servers through [`Server::start`],
//! so what is verified is what is measured. A server runs in its own process
//! group, which is what gets signalled on stop, on Ctrl-C and on drop: cluster
//! workers, the BEAM's helpers and JVM children go with it. `concur test`
//! (`suite`) runs an implementation's own tests after the same build;
//! `concur build` (`build_all`) runs every build up front, several at a time
//! in lanes that never share a tool (`lanes`).

mod build;
mod build_all;
mod lanes;
mod suite;

pub use build::{BuildOutput, Built, build, run_shell};
pub use build_all::build_command;
pub use crate::host::groups::{install_interrupt_handler, stop_registered};
pub use crate::host::net::free_port;
pub use suite::test_command;

use crate::db::ServerDb;
use crate::host::groups;
use crate::impls::{self, Availability, Implementation};
use anyhow::{Context, Result, bail};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

/// How to start a server: everything that differs between two starts.
#[derive(Debug, Clone)]
pub struct Launch {
    pub port: u16,
    pub cores: u32,
    /// Extra environment (e.g. the verifier's shorter delays), applied after the manifest's.
    pub env: Vec<(String, String)>,
    /// The database the server is given (SPEC §8.2), its settings applied last: every command
    /// that starts a server hands it its CONCUR_DB_* this one way.
    pub db: Option<ServerDb>,
    /// Pin the process tree to these CPUs (`sched_setaffinity`), if given.
    pub cpus: Option<Vec<usize>>,
    /// Where the server's stdout and stderr go; `None` inherits the terminal.
    pub log: Option<PathBuf>,
    /// Start it in this network namespace (`ip netns exec`, which changes nothing else: the
    /// process, its group and its CPU use stay visible here).
    pub netns: Option<String>,
}

/// A started server; dropping it stops its whole process group.
#[derive(Debug)]
pub struct Server {
    child: Child,
    pub addr: SocketAddr,
    pub log: Option<PathBuf>,
}

/// The variable that switches on the fault routes of spec/SPEC.md §9.
pub const FAULTS_VAR: &str = "CONCUR_FAULTS";

/// The fault routes switched on, as a launch's environment carries it.
pub fn faults_on() -> (String, String) {
    (FAULTS_VAR.into(), "1".into())
}

/// Environment every implementation process gets, whatever the command.
pub fn spec_env(root: &Path) -> Vec<(String, String)> {
    let page = root.join("spec/static/hello.html");
    let page = page.canonicalize().unwrap_or(page);
    vec![("CONCUR_PAGE_FILE".into(), page.display().to_string())]
}

impl Server {
    /// Starts `imp` (already built) with `launch`, in a new process group.
    pub fn start(imp: &Implementation, root: &Path, launch: &Launch) -> Result<Server> {
        let m = &imp.manifest;
        let fill = |s: &str| s.replace("{port}", &launch.port.to_string()).replace("{cores}", &launch.cores.to_string());
        let mut cmd = match &launch.netns {
            Some(ns) => {
                let mut ip = Command::new("ip");
                ip.args(["netns", "exec", ns, "sh"]);
                ip
            }
            None => Command::new("sh"),
        };
        cmd.arg("-c").arg(format!("exec {}", fill(&m.start.command))).current_dir(&imp.dir);
        // Nothing of the caller's environment but the basics (spec/SPEC.md §1): not the fault
        // routes' switch (§9), which only a launch that asks for them sets, nor a runtime's knob.
        crate::host::inherit::only_the_basics(&mut cmd);
        cmd.env("PORT", launch.port.to_string()).env("CONCUR_CORES", launch.cores.to_string());
        for (k, v) in spec_env(root) {
            cmd.env(k, v);
        }
        for (k, v) in &m.cores.env {
            cmd.env(k, fill(v));
        }
        for (k, v) in &launch.env {
            cmd.env(k, v);
        }
        for (k, v) in launch.db.iter().flat_map(ServerDb::env) {
            cmd.env(k, v);
        }
        match &launch.log {
            Some(path) => {
                let file = std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
                cmd.stdout(file.try_clone()?).stderr(file);
            }
            None => {
                cmd.stdout(Stdio::inherit()).stderr(Stdio::inherit());
            }
        }
        cmd.stdin(Stdio::null()).process_group(0);
        // Whatever limit concur was started with: spec/POLICIES.md §1 asks no cap below 65,536 clients.
        // SAFETY: getrlimit and setrlimit are async-signal-safe and touch only this child.
        unsafe { cmd.pre_exec(crate::host::limits::raise_for_server) };
        if let Some(cpus) = launch.cpus.clone() {
            // SAFETY: sched_setaffinity is async-signal-safe and touches only this child.
            unsafe { cmd.pre_exec(move || crate::host::affinity::pin(&cpus)) };
        }
        // Refused once a signal has come, under the lock the Ctrl-C handler takes.
        let child = groups::spawn_registered(&mut cmd).with_context(|| format!("starting {}: {}", imp.name(), m.start.command))?;
        let addr = SocketAddr::from(([127, 0, 0, 1], launch.port));
        Ok(Server { child, addr, log: launch.log.clone() })
    }

    /// The process group id (the leader's pid).
    pub fn pgid(&self) -> i32 {
        self.child.id() as i32
    }

    /// Waits until `GET /` answers 200, the process dies, or `timeout` passes.
    pub fn wait_ready(&mut self, timeout: Duration) -> Result<()> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait()? {
                bail!("the server exited during start-up ({status}){}", self.log_tail());
            }
            if probe_root(self.addr) {
                return Ok(());
            }
            if Instant::now() > deadline {
                bail!("the server did not answer GET / on {} within {:?}{}", self.addr, timeout, self.log_tail());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Whether the leader process is still running.
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// An error naming `phase` and the log's last lines when the server has exited.
    pub fn still_running(&mut self, phase: &str) -> anyhow::Result<()> {
        if self.is_running() {
            return Ok(());
        }
        anyhow::bail!("the server exited during the {phase}{}", self.log_tail())
    }

    /// Stops the process group: SIGTERM, then SIGKILL after `grace`.
    pub fn stop(&mut self, grace: Duration) {
        crate::host::groups::stop(self.pgid(), grace);
        let _ = self.child.wait();
        groups::unregister(self.pgid());
    }

    /// The last lines of the server's log, for error messages.
    pub fn log_tail(&self) -> String {
        let Some(path) = &self.log else { return String::new() };
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let tail = lines[lines.len().saturating_sub(15)..].join("\n    ");
        if tail.is_empty() { String::new() } else { format!("; its last output ({}):\n    {tail}", path.display()) }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.is_running() || groups::is_registered(self.pgid()) {
            self.stop(Duration::from_secs(3));
        }
    }
}

fn probe_root(addr: SocketAddr) -> bool {
    answers_root(addr, Duration::from_millis(200), Duration::from_secs(2))
}

/// Whether `GET /` on a new connection to `addr` is answered 200, connecting within `connect` and
/// answering within `answer`.
pub fn answers_root(addr: SocketAddr, connect: Duration, answer: Duration) -> bool {
    let Ok(mut s) = TcpStream::connect_timeout(&addr, connect) else { return false };
    let _ = s.set_read_timeout(Some(answer));
    if s.write_all(b"GET / HTTP/1.1\r\nHost: concur\r\nConnection: close\r\n\r\n").is_err() {
        return false;
    }
    let mut head = [0u8; 12];
    s.read_exact(&mut head).is_ok() && head.starts_with(b"HTTP/1.") && &head[9..12] == b"200"
}

/// `concur serve`: implementation `name` on `port` with `CONCUR_CORES=cores`, in the foreground.
pub fn serve_command(root: Option<&Path>, name: &str, port: u16, cores: u32, faults: bool) -> Result<ExitCode> {
    let root = impls::find_root(root)?;
    let all = impls::discover(&root)?;
    let imp = all.iter().find(|i| i.name() == name).with_context(|| format!("no implementation named '{name}' (see `concur list`)"))?;
    if let Availability::Missing(why) = imp.availability() {
        bail!("{} cannot run here: {why}", imp.name());
    }
    install_interrupt_handler();
    build(imp, &BuildOutput::Inherit)?;
    // Kept until the server ends; a CONCUR_DB_URL of the caller's is passed on as it is.
    let mut database = crate::db::OnDemand::new(crate::db::Options::for_repository(&root));
    let mut db = None;
    if std::env::var_os("CONCUR_DB_URL").is_none() {
        let cluster = database.get().map_err(anyhow::Error::msg)?;
        db = Some(ServerDb::for_cores(cluster.url(), crate::db::DEFAULT_POOL, crate::db::DEFAULT_SLOW_MS, cores));
        eprintln!("concur: {} gets CONCUR_DB_URL={}", imp.name(), cluster.url());
    }
    let env = if faults { vec![faults_on()] } else { vec![] };
    let launch = Launch { port, cores, env, db, cpus: None, log: None, netns: None };
    let mut server = Server::start(imp, &root, &launch)?;
    server.wait_ready(Duration::from_secs(60))?;
    // One write: the server shares this standard error, and eprintln! writes a line in pieces that
    // the server's own output could land between (a script waiting for this line would miss it).
    let with = if faults { " and CONCUR_FAULTS=1" } else { "" };
    let ready = format!("concur: {} serving on http://{} with CONCUR_CORES={}{with} (Ctrl-C stops it)\n", imp.name(), server.addr, cores);
    let _ = std::io::Write::write_all(&mut std::io::stderr(), ready.as_bytes());
    let status = server.child.wait();
    // A server dying while the handler stops its group is not a failure: the
    // handler exits 130 itself. Its stopping also reaps the leader, so this
    // wait may have failed (ECHILD) and must not be reported before it.
    if crate::host::interrupt::stopping() {
        std::thread::sleep(Duration::from_secs(10));
    }
    let status = status?;
    crate::host::groups::stop(server.pgid(), Duration::from_secs(3));
    groups::unregister(server.pgid());
    eprintln!("concur: {} exited ({status})", imp.name());
    Ok(if status.success() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
