//! Who a child runs as. PostgreSQL refuses to run as root, and concur often
//! does (CI, containers): a program that must not run as root is started as
//! an unprivileged system user instead ([`unprivileged`]), and the files it
//! owns are handed to that user ([`give`]).

use std::ffi::CString;
use std::path::Path;

/// A system user's ids, for `Command::uid`/`gid` and `chown`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ids {
    pub uid: u32,
    pub gid: u32,
}

/// Whether this process runs as root.
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// The ids of user `name` when this process runs as root (the user a child
/// must be switched to), `Ok(None)` when it does not (children run as
/// ourselves), and an error naming the user when root has no such user.
pub fn unprivileged(name: &str) -> Result<Option<Ids>, String> {
    if !is_root() {
        return Ok(None);
    }
    lookup(name).map(Some).ok_or_else(|| format!("concur runs as root and there is no user '{name}' to run it as"))
}

/// `name`'s ids from the user database.
pub fn lookup(name: &str) -> Option<Ids> {
    let name = CString::new(name).ok()?;
    // SAFETY: getpwnam returns a pointer to static storage or null; it is
    // read at once, before any other call could overwrite it.
    unsafe {
        let entry = libc::getpwnam(name.as_ptr());
        if entry.is_null() {
            return None;
        }
        Some(Ids { uid: (*entry).pw_uid, gid: (*entry).pw_gid })
    }
}

/// Hands `path` and everything under it to `ids` (without following links).
pub fn give(path: &Path, ids: Ids) -> std::io::Result<()> {
    std::os::unix::fs::lchown(path, Some(ids.uid), Some(ids.gid))?;
    if path.symlink_metadata()?.is_dir() {
        for entry in std::fs::read_dir(path)? {
            give(&entry?.path(), ids)?;
        }
    }
    Ok(())
}
