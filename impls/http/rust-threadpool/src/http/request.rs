//! The request head: `httparse` splits it, and this file turns the headers
//! that decide framing and the connection's fate into plain fields, refusing
//! the combinations RFC 9112 calls invalid.

/// How the request's body is delimited (RFC 9112 §6.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    None,
    Length(u64),
    Chunked,
}

/// A parsed request head; the body stays on the connection.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    /// The request target as sent: origin form (`/a?b`) or absolute form (`http://h/a`).
    pub target: String,
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    pub minor_version: u8,
    /// Whether the connection may serve another request after this one.
    pub keep_alive: bool,
    pub framing: Framing,
    pub expect_continue: bool,
}

/// At most this many header lines; more is refused like a malformed head.
const MAX_HEADERS: usize = 64;

impl Request {
    /// Parses a head from the start of `bytes`: the request and the head's
    /// length, `None` while the head is incomplete, or the reason it is not HTTP/1.x.
    pub fn parse(bytes: &[u8]) -> Result<Option<(Request, usize)>, String> {
        let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
        let mut head = httparse::Request::new(&mut headers);
        let len = match head.parse(bytes) {
            Ok(httparse::Status::Complete(len)) => len,
            Ok(httparse::Status::Partial) => return Ok(None),
            Err(e) => return Err(format!("malformed request: {e}")),
        };
        let minor_version = head.version.expect("complete heads have a version");
        let mut request = Request {
            method: head.method.expect("complete heads have a method").to_string(),
            target: head.path.expect("complete heads have a target").to_string(),
            minor_version,
            keep_alive: minor_version == 1,
            framing: Framing::None,
            expect_continue: false,
        };
        let (mut has_host, mut length, mut chunked) = (false, None, false);
        for header in head.headers.iter() {
            let value = std::str::from_utf8(header.value).unwrap_or("");
            let name = header.name;
            if name.eq_ignore_ascii_case("host") {
                has_host = true;
            } else if name.eq_ignore_ascii_case("content-length") {
                let n = value.trim().parse::<u64>().ok().filter(|_| value.trim().bytes().all(|b| b.is_ascii_digit()));
                match (n, length) {
                    (None, _) => return Err(format!("invalid Content-Length {value:?}")),
                    (Some(n), Some(earlier)) if n != earlier => return Err("conflicting Content-Length headers".into()),
                    (Some(n), _) => length = Some(n),
                }
            } else if name.eq_ignore_ascii_case("transfer-encoding") {
                // No coding but chunked is supported (RFC 9112 §6.1 allows a 501; 400 is simpler to test).
                if !value.trim().eq_ignore_ascii_case("chunked") {
                    return Err(format!("unsupported Transfer-Encoding {value:?}: only chunked"));
                }
                chunked = true;
            } else if name.eq_ignore_ascii_case("connection") {
                for token in value.split(',').map(str::trim) {
                    if token.eq_ignore_ascii_case("close") {
                        request.keep_alive = false;
                    } else if token.eq_ignore_ascii_case("keep-alive") && minor_version == 0 {
                        request.keep_alive = true;
                    }
                }
            } else if name.eq_ignore_ascii_case("expect") {
                request.expect_continue = value.trim().eq_ignore_ascii_case("100-continue");
            }
        }
        if minor_version == 1 && !has_host {
            return Err("HTTP/1.1 request without a Host header".into());
        }
        request.framing = match (chunked, length) {
            (true, Some(_)) => {
                // Both framings: Transfer-Encoding wins, and the connection must
                // not be reused, since an intermediary may have read it the other way.
                request.keep_alive = false;
                Framing::Chunked
            }
            (true, None) => Framing::Chunked,
            (false, Some(n)) => Framing::Length(n),
            (false, None) => Framing::None,
        };
        // "100-continue" is only meaningful for an HTTP/1.1 request with a body.
        request.expect_continue &= minor_version == 1 && request.framing != Framing::None;
        Ok(Some((request, len)))
    }

    /// The target's path: the absolute form's authority and any query removed.
    pub fn path(&self) -> &str {
        let target = self.target.as_str();
        let origin = match target.split_once("://") {
            Some((_, rest)) if !target.starts_with('/') => rest.find('/').map_or("/", |i| &rest[i..]),
            _ => target,
        };
        origin.split_once('?').map_or(origin, |(path, _)| path)
    }

    /// What follows the target's first `?`, not decoded (an authority has none).
    pub fn query(&self) -> Option<&str> {
        self.target.split_once('?').map(|(_, query)| query)
    }

    pub fn is_head(&self) -> bool {
        self.method == "HEAD"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(raw: &str) -> Result<Request, String> {
        Request::parse(raw.as_bytes()).map(|r| r.expect("complete").0)
    }

    #[test]
    fn framing_and_keep_alive_come_from_the_headers_in_any_case() {
        let r = parse("POST /user/set/a HTTP/1.1\r\nhOsT: x\r\ncOnTeNt-LeNgTh: 12\r\nEXPECT: 100-Continue\r\n\r\n").unwrap();
        assert_eq!((r.framing, r.keep_alive, r.expect_continue), (Framing::Length(12), true, true));
        let r = parse("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n").unwrap();
        assert_eq!((r.framing, r.keep_alive), (Framing::Chunked, false));
        let r = parse("GET / HTTP/1.0\r\n\r\n").unwrap();
        assert!(!r.keep_alive, "HTTP/1.0 closes by default");
        assert!(parse("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n").unwrap().keep_alive);
    }

    #[test]
    fn a_partial_head_waits_for_more() {
        assert!(Request::parse(b"GET / HTTP/1.1\r\nHost: x\r\n").unwrap().is_none());
    }

    #[test]
    fn invalid_framing_is_refused() {
        for raw in [
            "GARBAGE\r\n\r\n",
            "GET / EXTRA JUNK HTTP/1.1\r\nHost: x\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n",
            "GET / HTTP/1.1\r\n\r\n",
            "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
            "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
            "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n",
        ] {
            assert!(parse(raw).is_err(), "{raw:?} was accepted");
        }
    }

    #[test]
    fn path_drops_the_query_and_the_absolute_form() {
        let with = |target: &str| Request { target: target.into(), ..parse("GET / HTTP/1.0\r\n\r\n").unwrap() };
        assert_eq!(with("/user/get/a?x=1").path(), "/user/get/a");
        assert_eq!(with("http://127.0.0.1:80/json?q").path(), "/json");
        assert_eq!(with("http://127.0.0.1:80").path(), "/");
        assert_eq!(with("/a?b=http://c/d").path(), "/a");
        assert_eq!(with("/queries?queries=3").query(), Some("queries=3"));
        assert_eq!(with("http://h?queries=3").query(), Some("queries=3"));
        assert_eq!(with("/db").query(), None);
    }
}
