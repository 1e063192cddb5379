//! The target URL: plain `http://` only, resolved once before the run.

use anyhow::{Context, Result, bail};
use std::net::{SocketAddr, ToSocketAddrs};

/// Where requests go and what their `Host` header says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The URL as given.
    pub url: String,
    pub addr: SocketAddr,
    /// `host:port` as written in the URL (port omitted when it is 80).
    pub host: String,
    /// Path and query of the URL, at least `/`.
    pub path: String,
}

impl Target {
    /// Parses `http://host[:port][/path]` (or `host:port/path`) and resolves the host.
    pub fn parse(url: &str) -> Result<Target> {
        let rest = match url.split_once("://") {
            Some((scheme, rest)) if scheme.eq_ignore_ascii_case("http") => rest,
            Some((scheme, _)) if scheme.eq_ignore_ascii_case("https") => {
                bail!("invalid URL '{url}': https is not supported, concur load speaks plain HTTP/1.1")
            }
            Some((scheme, _)) => bail!("invalid URL '{url}': unknown scheme '{scheme}', expected http://"),
            None => url,
        };
        let (authority, path) = match rest.find(['/', '?']) {
            Some(i) if rest[i..].starts_with('?') => (&rest[..i], format!("/{}", &rest[i..])),
            Some(i) => (&rest[..i], rest[i..].to_string()),
            None => (rest, "/".to_string()),
        };
        if authority.is_empty() || authority.contains('@') {
            bail!("invalid URL '{url}': expected http://host:port/path");
        }
        let (hostname, port) = split_port(authority).with_context(|| format!("invalid URL '{url}'"))?;
        let addr = (hostname.trim_start_matches('[').trim_end_matches(']'), port)
            .to_socket_addrs()
            .ok()
            .and_then(|addrs| pick(addrs.collect()))
            .with_context(|| format!("invalid URL '{url}': cannot resolve host '{hostname}'"))?;
        let host = if port == 80 { hostname.to_string() } else { format!("{hostname}:{port}") };
        Ok(Target { url: url.to_string(), addr, host, path })
    }
}

fn split_port(authority: &str) -> Result<(&str, u16)> {
    let colon = if authority.starts_with('[') {
        authority.find(']').map(|end| end + 1).filter(|&i| authority[i..].starts_with(':'))
    } else {
        authority.rfind(':')
    };
    match colon {
        None => Ok((authority, 80)),
        Some(i) => {
            let port = &authority[i + 1..];
            let port = port.parse().map_err(|_| anyhow::anyhow!("port '{port}' is not a number from 1 to 65535"))?;
            if port == 0 {
                bail!("port 0 is not a port to connect to");
            }
            Ok((&authority[..i], port))
        }
    }
}

/// Prefers IPv4, as `localhost` commonly resolves to both and servers often listen on one.
fn pick(addrs: Vec<SocketAddr>) -> Option<SocketAddr> {
    addrs.iter().find(|a| a.is_ipv4()).or(addrs.first()).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_usual_forms() {
        let t = Target::parse("http://127.0.0.1:8080/json?x=1").unwrap();
        assert_eq!(t.addr, "127.0.0.1:8080".parse().unwrap());
        assert_eq!((t.host.as_str(), t.path.as_str()), ("127.0.0.1:8080", "/json?x=1"));
        let t = Target::parse("127.0.0.1:9000").unwrap();
        assert_eq!((t.host.as_str(), t.path.as_str()), ("127.0.0.1:9000", "/"));
        let t = Target::parse("http://localhost/").unwrap();
        assert_eq!((t.addr.port(), t.host.as_str()), (80, "localhost"));
    }

    #[test]
    fn bad_urls_say_what_is_wrong() {
        let err = |u: &str| format!("{:#}", Target::parse(u).unwrap_err());
        assert!(err("https://127.0.0.1/").contains("https is not supported"));
        assert!(err("ftp://x/").contains("unknown scheme 'ftp'"));
        assert!(err("http://127.0.0.1:http/").contains("port 'http' is not a number"));
        assert!(err("http:///x").contains("expected http://host:port/path"));
        assert!(err("http://no-such-host.invalid:80/").contains("cannot resolve host"));
    }
}
