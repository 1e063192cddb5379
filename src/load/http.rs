//! The response parser of the hot path: incremental, allocation-free once
//! warm, and only as thorough as a load generator needs. It reads the status
//! code, the framing (`Content-Length`, chunked, or until close) and whether
//! the connection stays open; body bytes are counted, never copied. A header
//! line split across reads is the only thing kept between reads, in a buffer
//! that is reused.

use memchr::memchr;

/// Longest response head accepted.
const MAX_HEAD: usize = 64 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    StatusLine,
    Headers,
    Body(u64),
    ChunkData(u64),
    ChunkSize { size: u64, digits: bool, extension: bool },
    ChunkEnd,
    TrailerStart,
    Trailer,
    UntilClose,
    Done,
}

/// What a chunk of bytes did to the response being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feed {
    /// The response is not complete yet.
    More,
    /// The response is complete; `rest` bytes of the chunk came after it.
    Done { status: u16, keep_alive: bool, rest: usize },
    /// Not HTTP/1.x, or a framing error.
    Invalid,
}

#[derive(Debug)]
pub struct Parser {
    state: State,
    status: u16,
    http11: bool,
    keep_alive: Option<bool>,
    content_length: Option<u64>,
    chunked: bool,
    head_request: bool,
    head_len: usize,
    carry: Vec<u8>,
}

impl Default for Parser {
    fn default() -> Self {
        Parser {
            state: State::StatusLine,
            status: 0,
            http11: true,
            keep_alive: None,
            content_length: None,
            chunked: false,
            head_request: false,
            head_len: 0,
            carry: Vec::new(),
        }
    }
}

impl Parser {
    /// Prepares for the response to a new request; `head_request` when it was a HEAD.
    #[inline]
    pub fn start(&mut self, head_request: bool) {
        self.state = State::StatusLine;
        self.keep_alive = None;
        self.content_length = None;
        self.chunked = false;
        self.head_request = head_request;
        self.head_len = 0;
        self.carry.clear();
    }

    /// The body runs until the peer closes the connection (no length, not chunked).
    #[inline]
    pub fn until_close(&self) -> bool {
        self.state == State::UntilClose
    }

    /// The peer closed the connection: complete only when the body runs until close.
    pub fn eof(&mut self) -> Feed {
        if self.state == State::UntilClose {
            self.state = State::Done;
            return Feed::Done { status: self.status, keep_alive: false, rest: 0 };
        }
        Feed::Invalid
    }

    pub fn feed(&mut self, data: &[u8]) -> Feed {
        let mut pos = 0;
        while pos < data.len() {
            let ok = match self.state {
                State::StatusLine | State::Headers => self.feed_head(data, &mut pos),
                State::Body(left) | State::ChunkData(left) => {
                    let take = left.min((data.len() - pos) as u64);
                    pos += take as usize;
                    let chunk = matches!(self.state, State::ChunkData(_));
                    self.state = match (chunk, take == left) {
                        (false, true) => State::Done,
                        (false, false) => State::Body(left - take),
                        (true, true) => State::ChunkEnd,
                        (true, false) => State::ChunkData(left - take),
                    };
                    true
                }
                State::UntilClose => {
                    pos = data.len();
                    true
                }
                State::Done => break,
                _ => self.feed_chunked(data[pos], &mut pos),
            };
            if !ok {
                return Feed::Invalid;
            }
            if self.state == State::Done {
                break;
            }
        }
        if self.state == State::Done {
            let keep_alive = self.keep_alive.unwrap_or(self.http11);
            return Feed::Done { status: self.status, keep_alive, rest: data.len() - pos };
        }
        Feed::More
    }

    /// Consumes whole head lines from `data`, keeping a partial line for later.
    fn feed_head(&mut self, data: &[u8], pos: &mut usize) -> bool {
        let rest = &data[*pos..];
        let Some(nl) = memchr(b'\n', rest) else {
            self.head_len += rest.len();
            self.carry.extend_from_slice(rest);
            *pos = data.len();
            return self.head_len <= MAX_HEAD;
        };
        *pos += nl + 1;
        self.head_len += nl + 1;
        if self.head_len > MAX_HEAD {
            return false;
        }
        if self.carry.is_empty() {
            return self.line(&rest[..nl]);
        }
        let mut line = std::mem::take(&mut self.carry);
        line.extend_from_slice(&rest[..nl]);
        let ok = self.line(&line);
        line.clear();
        self.carry = line;
        ok
    }

    fn line(&mut self, line: &[u8]) -> bool {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if self.state == State::StatusLine {
            return self.status_line(line);
        }
        if line.is_empty() {
            self.end_of_head();
            return true;
        }
        self.header(line)
    }

    fn status_line(&mut self, line: &[u8]) -> bool {
        // HTTP/1.x SSS[ reason]
        if line.len() < 12 || !line.starts_with(b"HTTP/1.") || line[8] != b' ' || line.get(12).is_some_and(|&b| b != b' ') {
            return false;
        }
        let code = &line[9..12];
        if !code.iter().all(u8::is_ascii_digit) {
            return false;
        }
        self.status = code.iter().fold(0u16, |acc, d| acc * 10 + (d - b'0') as u16);
        self.http11 = line[7] != b'0';
        self.state = State::Headers;
        true
    }

    /// Reads the framing headers; false when a `Content-Length` is invalid (not
    /// digits, out of range, or two different values), which RFC 9112 §6.3 makes
    /// an unrecoverable framing error: the body's end cannot be known.
    fn header(&mut self, line: &[u8]) -> bool {
        // Only three headers matter; most lines are rejected on their first byte.
        match line[0] | 0x20 {
            b'c' => {
                if let Some(value) = value_of(line, b"content-length:") {
                    let Some(length) = parse_content_length(value) else { return false };
                    if self.content_length.is_some_and(|seen| seen != length) {
                        return false;
                    }
                    self.content_length = Some(length);
                } else if let Some(value) = value_of(line, b"connection:") {
                    for token in value.split(|&b| b == b',') {
                        let token = token.trim_ascii();
                        if token.eq_ignore_ascii_case(b"close") {
                            self.keep_alive = Some(false);
                        } else if token.eq_ignore_ascii_case(b"keep-alive") && self.keep_alive.is_none() {
                            self.keep_alive = Some(true);
                        }
                    }
                }
            }
            b't' => {
                if let Some(value) = value_of(line, b"transfer-encoding:") {
                    let last = value.rsplit(|&b| b == b',').next().unwrap_or(b"").trim_ascii();
                    self.chunked = last.eq_ignore_ascii_case(b"chunked");
                }
            }
            _ => {}
        }
        true
    }

    fn end_of_head(&mut self) {
        if (100..200).contains(&self.status) {
            // An interim response (100 Continue): the real one follows.
            self.state = State::StatusLine;
            self.keep_alive = None;
            self.content_length = None;
            self.chunked = false;
            return;
        }
        self.state = if self.head_request || self.status == 204 || self.status == 304 {
            State::Done
        } else if self.chunked {
            State::ChunkSize { size: 0, digits: false, extension: false }
        } else {
            match self.content_length {
                Some(0) => State::Done,
                Some(n) => State::Body(n),
                None => {
                    self.keep_alive = Some(false);
                    State::UntilClose
                }
            }
        };
    }

    /// One byte of chunked framing, or a run of chunk data.
    fn feed_chunked(&mut self, byte: u8, pos: &mut usize) -> bool {
        *pos += 1;
        match &mut self.state {
            State::ChunkSize { size, digits, extension } => match byte {
                b'\n' if *digits => {
                    self.state = if *size == 0 { State::TrailerStart } else { State::ChunkData(*size) };
                }
                b'\r' => {}
                _ if *extension => {}
                b';' | b' ' | b'\t' if *digits => *extension = true,
                _ => {
                    let Some(d) = (byte as char).to_digit(16) else { return false };
                    if *size > (u64::MAX >> 8) {
                        return false;
                    }
                    *size = *size * 16 + d as u64;
                    *digits = true;
                }
            },
            State::ChunkEnd => match byte {
                b'\r' => {}
                b'\n' => self.state = State::ChunkSize { size: 0, digits: false, extension: false },
                _ => return false,
            },
            State::TrailerStart => match byte {
                b'\r' => {}
                b'\n' => self.state = State::Done,
                _ => self.state = State::Trailer,
            },
            State::Trailer => {
                if byte == b'\n' {
                    self.state = State::TrailerStart;
                }
            }
            _ => unreachable!("feed_chunked called outside chunked framing"),
        }
        true
    }
}

/// The trimmed value when `line` is the header `name` (given lower-case, with its colon).
#[inline]
fn value_of<'a>(line: &'a [u8], name: &[u8]) -> Option<&'a [u8]> {
    if line.len() >= name.len() && line[..name.len()].eq_ignore_ascii_case(name) {
        Some(line[name.len()..].trim_ascii())
    } else {
        None
    }
}

/// A `Content-Length` value: decimal digits (a list of one repeated value is
/// allowed, RFC 9110 §8.6), at most 18 of them so that it cannot overflow.
fn parse_content_length(value: &[u8]) -> Option<u64> {
    let mut length = None;
    for item in value.split(|&b| b == b',') {
        let digits = item.trim_ascii();
        if digits.is_empty() || digits.len() > 18 || !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let n = digits.iter().fold(0u64, |acc, d| acc * 10 + (d - b'0') as u64);
        if length.is_some_and(|l| l != n) {
            return None;
        }
        length = Some(n);
    }
    length
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_in_pieces(response: &[u8], piece: usize) -> Feed {
        let mut p = Parser::default();
        p.start(false);
        let mut last = Feed::More;
        for part in response.chunks(piece) {
            last = p.feed(part);
            if last != Feed::More {
                break;
            }
        }
        last
    }

    /// Every response parses the same whether it arrives whole or byte by byte.
    fn check(response: &[u8], expected: Feed) {
        for piece in 1..=response.len() {
            assert_eq!(parse_in_pieces(response, piece), expected, "in pieces of {piece}: {:?}", String::from_utf8_lossy(response));
        }
    }

    #[test]
    fn content_length_keep_alive() {
        let r = b"HTTP/1.1 200 OK\r\nServer: x\r\nContent-Length: 13\r\n\r\nHello, World!";
        check(r, Feed::Done { status: 200, keep_alive: true, rest: 0 });
    }

    #[test]
    fn connection_close_and_http10() {
        check(b"HTTP/1.1 404 Not Found\r\nconnection: Close\r\ncontent-length: 0\r\n\r\n", Feed::Done { status: 404, keep_alive: false, rest: 0 });
        check(b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", Feed::Done { status: 200, keep_alive: false, rest: 0 });
        check(b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok", Feed::Done { status: 200, keep_alive: true, rest: 0 });
    }

    #[test]
    fn chunked_with_extensions_and_trailers() {
        let r = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nHello\r\nA\r\n, World!!!\r\n0\r\nTrailer: t\r\n\r\n";
        check(r, Feed::Done { status: 200, keep_alive: true, rest: 0 });
    }

    #[test]
    fn body_until_close() {
        let mut p = Parser::default();
        p.start(false);
        assert_eq!(p.feed(b"HTTP/1.1 200 OK\r\n\r\nsome body"), Feed::More);
        assert_eq!(p.eof(), Feed::Done { status: 200, keep_alive: false, rest: 0 });
    }

    #[test]
    fn interim_responses_are_skipped() {
        check(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 1\r\n\r\nx", Feed::Done { status: 201, keep_alive: true, rest: 0 });
    }

    #[test]
    fn head_and_no_content_have_no_body() {
        let mut p = Parser::default();
        p.start(true);
        assert_eq!(p.feed(b"HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\n"), Feed::Done { status: 200, keep_alive: true, rest: 0 });
        check(b"HTTP/1.1 204 No Content\r\n\r\n", Feed::Done { status: 204, keep_alive: true, rest: 0 });
    }

    #[test]
    fn bytes_after_the_response_are_reported() {
        let mut p = Parser::default();
        p.start(false);
        assert_eq!(p.feed(b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nxyz"), Feed::Done { status: 200, keep_alive: true, rest: 2 });
    }

    #[test]
    fn garbage_is_invalid() {
        assert_eq!(parse_in_pieces(b"SSH-2.0-OpenSSH_9.2\r\n", 100), Feed::Invalid);
        assert_eq!(parse_in_pieces(b"HTTP/1.1 2x0 OK\r\n\r\n", 100), Feed::Invalid);
        assert_eq!(parse_in_pieces(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 100), Feed::Invalid);
        let mut p = Parser::default();
        p.start(false);
        assert_eq!(p.feed(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab"), Feed::More);
        assert_eq!(p.eof(), Feed::Invalid);
    }

    /// `Content-Length: -5` and a length past 64 bits made the generator wait for a
    /// body until the run ended: the head is invalid at once.
    #[test]
    fn an_invalid_content_length_is_a_parse_error_at_once() {
        for length in ["-5", "99999999999999999999999", "12a", "", "+3", "3, 4"] {
            let response = format!("HTTP/1.1 200 OK\r\nContent-Length: {length}\r\n\r\n");
            assert_eq!(parse_in_pieces(response.as_bytes(), 1000), Feed::Invalid, "Content-Length: {length}");
        }
        let twice = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc";
        assert_eq!(parse_in_pieces(twice, 1000), Feed::Invalid);
        check(b"HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\nok", Feed::Done { status: 200, keep_alive: true, rest: 0 });
    }

    #[test]
    fn oversized_heads_are_invalid() {
        let mut p = Parser::default();
        p.start(false);
        assert_eq!(p.feed(b"HTTP/1.1 200 OK\r\nX: "), Feed::More);
        assert_eq!(p.feed(&vec![b'a'; MAX_HEAD]), Feed::Invalid);
    }
}
