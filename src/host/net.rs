//! Loopback ports: every server, database and load test listens on one the
//! OS chose, so that nothing collides with what else runs on the machine.

use anyhow::{Context, Result};

/// Asks the OS for a free loopback port.
pub fn free_port() -> Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").context("binding a loopback port")?;
    Ok(listener.local_addr()?.port())
}
