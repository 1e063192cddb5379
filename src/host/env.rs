//! What a run records about where it ran: the commit, the CPU, the kernel,
//! the memory and the toolchains' versions, so that a number in the report
//! can be traced to its machine and software; and the RFC 3339 timestamps
//! every record carries.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{SystemTime, UNIX_EPOCH};

/// The machine and software a run measured on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Environment {
    pub concur_version: String,
    pub git_commit: String,
    /// Uncommitted changes in the repository when the run started.
    pub git_dirty: bool,
    pub cpu_model: String,
    /// CPUs this process may run on.
    pub logical_cpus: u32,
    pub kernel: String,
    pub os: String,
    pub memory_bytes: u64,
    /// Implementation name → first line of its manifest's `version` command.
    pub toolchains: BTreeMap<String, String>,
    /// The CPUs' physical cores and NUMA nodes, and which went to the server and the generator
    /// at each core count (`concur run`'s; none for older runs and for `concur micro`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology: Option<super::topology::Record>,
}

/// Captures the environment; `toolchains` maps an implementation to its version line.
/// The topology is `run`'s to add: it knows where it placed what.
pub fn capture(root: &Path, toolchains: BTreeMap<String, String>, cpus: usize) -> Environment {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let os_release = std::fs::read_to_string("/etc/os-release").unwrap_or_default();
    Environment {
        concur_version: env!("CARGO_PKG_VERSION").to_string(),
        git_commit: first_line(&output(root, "git rev-parse HEAD")).to_string(),
        git_dirty: !output(root, "git status --porcelain --untracked-files=no").trim().is_empty(),
        cpu_model: field(&cpuinfo, "model name").unwrap_or("unknown").to_string(),
        logical_cpus: cpus as u32,
        kernel: kernel(),
        os: field(&os_release.replace('=', ":"), "PRETTY_NAME").unwrap_or("unknown").trim_matches('"').to_string(),
        memory_bytes: super::procstat::meminfo("MemTotal"),
        toolchains,
        topology: None,
    }
}

/// First line a `version` command prints in `dir` (some runtimes print it on stderr), or `unknown`.
pub fn version(dir: &Path, command: &str) -> String {
    let text = output(dir, command);
    let line = first_line(&text);
    if line.is_empty() { "unknown".to_string() } else { line.to_string() }
}

/// The current time as RFC 3339 UTC, to the second.
pub fn now_rfc3339() -> String {
    rfc3339(SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()))
}

/// Seconds since the epoch as `YYYY-MM-DDTHH:MM:SSZ` (Howard Hinnant's civil-from-days).
pub fn rfc3339(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// `YYYY-MM-DDTHH:MM:SSZ` (what [`rfc3339`] writes) back to seconds since
/// the epoch; `None` for any other shape (Howard Hinnant's days-from-civil).
pub fn parse_rfc3339(text: &str) -> Option<u64> {
    let b = text.as_bytes();
    if b.len() != 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' || b[16] != b':' || b[19] != b'Z' {
        return None;
    }
    let num = |from: usize, to: usize| text.get(from..to)?.parse::<i64>().ok();
    let (year, month, day) = (num(0, 4)?, num(5, 7)?, num(8, 10)?);
    let (y, m) = if month <= 2 { (year - 1, month + 9) } else { (year, month - 3) };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * m + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    u64::try_from(days * 86_400 + num(11, 13)? * 3600 + num(14, 16)? * 60 + num(17, 19)?).ok()
}

fn output(dir: &Path, command: &str) -> String {
    let out = Command::new("sh").arg("-c").arg(command).current_dir(dir).stdin(Stdio::null()).output();
    match out {
        Ok(o) => {
            let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
            if stdout.trim().is_empty() { String::from_utf8_lossy(&o.stderr).into_owned() } else { stdout }
        }
        Err(_) => String::new(),
    }
}

fn first_line(text: &str) -> &str {
    text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("")
}

/// The value of the first `key: value` line whose key is `key`.
fn field<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == key).then(|| v.trim())
    })
}

fn kernel() -> String {
    // SAFETY: uname fills the struct it is given.
    unsafe {
        let mut u: libc::utsname = std::mem::zeroed();
        if libc::uname(&mut u) != 0 {
            return "unknown".into();
        }
        let s = |f: &[libc::c_char]| std::ffi::CStr::from_ptr(f.as_ptr()).to_string_lossy().into_owned();
        format!("{} {}", s(&u.sysname), s(&u.release))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_utc_rfc3339() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_827_696), "2000-02-29T12:34:56Z");
        assert_eq!(rfc3339(1_735_787_045), "2025-01-02T03:04:05Z");
        for secs in [0, 951_827_696, 1_735_787_045, 1_796_000_000] {
            assert_eq!(parse_rfc3339(&rfc3339(secs)), Some(secs));
        }
        assert_eq!(parse_rfc3339("2025-01-02 03:04:05"), None);
    }

    #[test]
    fn this_machine_is_described() {
        let env = capture(Path::new(env!("CARGO_MANIFEST_DIR")), BTreeMap::new(), 2);
        assert!(env.memory_bytes > 0 && env.kernel.starts_with("Linux"), "{env:?}");
    }
}
