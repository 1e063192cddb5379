//! The scenarios' user data: the thesis' `users.csv` (a header line, then
//! `username;password` rows), read from a file or generated deterministically
//! so that every run, on every machine, uses the same users.

use crate::host::digest::splitmix64;
use anyhow::{Context, Result, bail};
use std::path::Path;

/// Usernames and passwords, in file order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Users(pub Vec<(String, String)>);

impl Users {
    /// `count` users: `user00001` … with passwords from a fixed pseudo-random sequence.
    pub fn generate(count: usize) -> Users {
        Users((0..count).map(|i| (format!("user{:05}", i + 1), password(i as u64))).collect())
    }

    /// Reads a `;`-separated CSV whose first line is a header (skipped, as the thesis' Locust script does).
    pub fn read(path: &Path) -> Result<Users> {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read users file {}", path.display()))?;
        let mut users = Vec::new();
        for (number, line) in text.lines().enumerate().skip(1) {
            let line = line.trim_end_matches('\r');
            if line.trim().is_empty() {
                continue;
            }
            let mut fields = line.split(';');
            match (fields.next(), fields.next()) {
                (Some(user), Some(password)) if !user.is_empty() => users.push((user.to_string(), password.to_string())),
                _ => bail!(
                    "{}:{}: expected 'username;password', found '{line}' (the first line is a header and is skipped)",
                    path.display(),
                    number + 1
                ),
            }
        }
        if users.is_empty() {
            bail!("{}: no users after the header line (expected rows of 'username;password')", path.display());
        }
        Ok(Users(users))
    }

    pub fn to_csv(&self) -> String {
        let mut out = String::from("username;password\n");
        for (user, password) in &self.0 {
            out.push_str(user);
            out.push(';');
            out.push_str(password);
            out.push('\n');
        }
        out
    }
}

/// 16 letters and digits, a pure function of the user's index.
fn password(index: u64) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
    let mut state = index.wrapping_add(0x2545_F491_4F6C_DD1D);
    (0..16)
        .map(|_| {
            state = splitmix64(state);
            ALPHABET[(state % ALPHABET.len() as u64) as usize] as char
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_is_deterministic_and_prefix_stable() {
        let a = Users::generate(3);
        assert_eq!(a, Users::generate(3));
        assert_eq!(a.0[..2], Users::generate(2).0[..]);
        assert_eq!(a.0[0].0, "user00001");
        assert_eq!(a.0[0].1.len(), 16);
        assert_ne!(a.0[0].1, a.0[1].1);
        // Pinned: every machine, and every version of concur, generates these users.
        assert_eq!(a.0[0].1, "cFXRzvD5gB2FDbdh");
        assert_eq!(a.0[2].1, "NqLdR4iq5fmZuerj");
    }

    #[test]
    fn csv_round_trips_and_errors_name_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("users.csv");
        let users = Users::generate(5);
        std::fs::write(&path, users.to_csv()).unwrap();
        assert_eq!(Users::read(&path).unwrap(), users);
        std::fs::write(&path, "username;password\nalice;pw\nbob\n").unwrap();
        let err = Users::read(&path).unwrap_err().to_string();
        assert!(err.ends_with("users.csv:3: expected 'username;password', found 'bob' (the first line is a header and is skipped)"), "{err}");
    }
}
