//! A response as data, and its bytes on the wire: every answer carries
//! Content-Length, Content-Type, Date and Server (SPEC §4), errors too.

use std::fmt::Display;
use std::time::SystemTime;

const SERVER: &str = "concur-rust-threadpool";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
    /// The methods a 405's path does take.
    pub allow: Option<&'static str>,
}

/// What the connection does after this response, as the `Connection` header says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Persistence {
    /// HTTP/1.1's default: no header.
    KeepAlive,
    /// An HTTP/1.0 client asked to keep the connection: say yes.
    KeepAlive10,
    Close,
}

impl Response {
    pub fn text(status: u16, body: impl Into<Vec<u8>>) -> Response {
        Response { status, content_type: "text/plain; charset=utf-8", body: body.into(), allow: None }
    }

    pub fn json(body: Vec<u8>) -> Response {
        Response { status: 200, content_type: "application/json", body, allow: None }
    }

    pub fn html(body: Vec<u8>) -> Response {
        Response { status: 200, content_type: "text/html; charset=utf-8", body, allow: None }
    }

    /// A `text/plain` error whose body is `reason` on one line.
    pub fn error(status: u16, reason: impl Display) -> Response {
        let line = reason.to_string().replace(['\r', '\n'], " ");
        Response::text(status, format!("{line}\n"))
    }

    /// The status line, headers and (unless answering HEAD) body.
    pub fn encode(&self, head_only: bool, persistence: Persistence) -> Vec<u8> {
        let date = httpdate::fmt_http_date(SystemTime::now());
        let mut head = format!(
            "HTTP/1.1 {} {}\r\nServer: {SERVER}\r\nDate: {date}\r\nContent-Type: {}\r\nContent-Length: {}\r\n",
            self.status,
            reason_phrase(self.status),
            self.content_type,
            self.body.len()
        );
        if let Some(allow) = self.allow {
            head.push_str(&format!("Allow: {allow}\r\n"));
        }
        match persistence {
            Persistence::KeepAlive => {}
            Persistence::KeepAlive10 => head.push_str("Connection: keep-alive\r\n"),
            Persistence::Close => head.push_str("Connection: close\r\n"),
        }
        head.push_str("\r\n");
        let mut bytes = head.into_bytes();
        if !head_only {
            bytes.extend_from_slice(&self.body);
        }
        bytes
    }
}

fn reason_phrase(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        413 => "Content Too Large",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_response_has_the_headers_of_spec_section_4() {
        let bytes = Response::error(405, "use POST").encode(false, Persistence::KeepAlive);
        let text = String::from_utf8(bytes).unwrap();
        assert!(text.starts_with("HTTP/1.1 405 Method Not Allowed\r\n"), "{text}");
        for header in ["Server: ", "Date: ", "Content-Type: text/plain", "Content-Length: 9\r\n"] {
            assert!(text.contains(header), "{header} missing in {text}");
        }
        assert!(text.ends_with("\r\n\r\nuse POST\n"));
    }

    #[test]
    fn head_keeps_the_length_and_drops_the_body() {
        let text = String::from_utf8(Response::text(200, "Hello").encode(true, Persistence::Close)).unwrap();
        assert!(text.contains("Content-Length: 5\r\n") && text.contains("Connection: close\r\n"));
        assert!(text.ends_with("\r\n\r\n"));
    }
}
