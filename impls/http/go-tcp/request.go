package main

// The request head (RFC 9112 §2-§3, §5-§6): the request line, the header
// fields and what they say about the body's framing and the connection.
// Only the fields the server acts on are kept (Host, Content-Length,
// Transfer-Encoding, Connection, Expect); the others are checked for syntax
// and dropped, so a request costs no header map.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// maxHeadBytes bounds the request line and header fields together.
// net/http allows 1 MB; 64 KiB is far more than any client of this service
// sends, and keeps what a connection can make the server hold small.
const maxHeadBytes = 64 << 10

// request is one parsed request head and its unread body.
type request struct {
	method    string
	path      string // the target's path as sent (not decoded), without the query
	query     string // what follows the target's "?", not decoded ("" when none)
	minor     int    // the 1 of HTTP/1.1, the 0 of HTTP/1.0
	keepAlive bool   // the connection may serve another request after this one
	body      body
}

// protocolError is a request that is not valid HTTP/1.x, or one this server
// cannot take (a transfer coding it does not know): answered with status,
// then the connection is closed.
type protocolError struct {
	status int
	reason string
}

func (e *protocolError) Error() string { return e.reason }

func badRequest(format string, args ...any) error {
	return &protocolError{400, fmt.Sprintf(format, args...)}
}

var errHeadTooLarge = &protocolError{431, fmt.Sprintf("request head too large: the limit is %d bytes", maxHeadBytes)}

// readRequest reads and checks one request head from r. w is where the body
// reader writes 100 Continue. Errors are a *protocolError to answer, or the
// connection's read error (io.EOF when the client closed between requests).
func readRequest(r *bufio.Reader, w *bufio.Writer) (*request, error) {
	budget := maxHeadBytes
	line, err := readLine(r, &budget)
	// RFC 9112 §2.2: a server SHOULD ignore empty lines before a request
	// line (some clients send a CRLF after a POST body).
	for empty := 0; err == nil && len(line) == 0 && empty < 4; empty++ {
		line, err = readLine(r, &budget)
	}
	if err != nil {
		return nil, err
	}
	req, err := parseRequestLine(line)
	if err != nil {
		return nil, err
	}
	h, err := readFields(r, &budget)
	if err != nil {
		return nil, err
	}
	if err := h.check(req.minor); err != nil {
		return nil, err
	}
	req.keepAlive = !h.close && (req.minor == 1 || h.keepAlive)
	req.body = body{r: r, w: w, length: h.contentLength, chunked: h.chunked,
		needsContinue: h.expectContinue && req.minor == 1}
	if !h.chunked && h.contentLength <= 0 {
		req.body.done = true
	}
	return req, nil
}

// parseRequestLine parses `method SP request-target SP HTTP-version`.
func parseRequestLine(line []byte) (*request, error) {
	method, rest, ok1 := bytes.Cut(line, []byte{' '})
	target, version, ok2 := bytes.Cut(rest, []byte{' '})
	if !ok1 || !ok2 || !isToken(method) || len(target) == 0 || bytes.IndexByte(version, ' ') >= 0 {
		return nil, badRequest("malformed request line %q: want METHOD TARGET HTTP/1.1", clip(line))
	}
	req := &request{method: methodString(method)}
	switch string(version) {
	case "HTTP/1.1":
		req.minor = 1
	case "HTTP/1.0":
		req.minor = 0
	default:
		if len(version) == 8 && bytes.HasPrefix(version, []byte("HTTP/")) && isDigit(version[5]) && version[6] == '.' && isDigit(version[7]) {
			return nil, &protocolError{505, fmt.Sprintf("HTTP version %s is not supported: use HTTP/1.1 or HTTP/1.0", version)}
		}
		return nil, badRequest("malformed HTTP version %q", clip(version))
	}
	path, query, ok := targetPath(target)
	if !ok {
		return nil, badRequest("malformed request target %q", clip(target))
	}
	req.path, req.query = string(path), string(query)
	return req, nil
}

// targetPath returns the path of an origin-form target (/p?q) or an
// absolute-form one (http://host/p?q, which RFC 9112 §3.2.2 says servers
// MUST accept), and its query apart. "*" (OPTIONS *) is its own path.
func targetPath(t []byte) (path, query []byte, ok bool) {
	for _, b := range t {
		if b <= ' ' || b == 0x7f {
			return nil, nil, false
		}
	}
	switch {
	case t[0] == '/':
	case hasPrefixFold(t, "http://") || hasPrefixFold(t, "https://"):
		rest := t[bytes.Index(t, []byte("//"))+2:]
		i := bytes.IndexAny(rest, "/?")
		if i < 0 {
			return []byte("/"), nil, true
		}
		if rest[i] == '?' {
			return []byte("/"), rest[i+1:], true
		}
		t = rest[i:]
	case len(t) == 1 && t[0] == '*':
		return t, nil, true
	default:
		return nil, nil, false
	}
	path, query, _ = bytes.Cut(t, []byte{'?'})
	return path, query, true
}

// fields is what the header section says that the server acts on.
type fields struct {
	hosts          int
	contentLength  int64 // -1: no Content-Length
	chunked        bool
	transferCoding []byte // the Transfer-Encoding value(s), if any
	close          bool   // Connection: close
	keepAlive      bool   // Connection: keep-alive (HTTP/1.0)
	expectContinue bool
}

// readFields reads header lines up to the empty line that ends the head.
func readFields(r *bufio.Reader, budget *int) (*fields, error) {
	h := &fields{contentLength: -1}
	for {
		line, err := readLine(r, budget)
		if err != nil {
			return nil, err
		}
		if len(line) == 0 {
			return h, nil
		}
		name, value, err := splitField(line)
		if err != nil {
			return nil, err
		}
		if err := h.add(name, value); err != nil {
			return nil, err
		}
	}
}

// splitField checks one `name: value` line of a header or trailer section
// and returns its name and its value without surrounding spaces.
func splitField(line []byte) (name, value []byte, err error) {
	if line[0] == ' ' || line[0] == '\t' {
		return nil, nil, badRequest("obsolete line folding in the header section (RFC 9112 §5.2)")
	}
	name, value, ok := bytes.Cut(line, []byte{':'})
	if !ok {
		return nil, nil, badRequest("malformed header line %q: want Name: value", clip(line))
	}
	if !isToken(name) {
		return nil, nil, badRequest("malformed header name %q", clip(name))
	}
	value = bytes.Trim(value, " \t")
	if !isFieldValue(value) {
		return nil, nil, badRequest("header %s has a control character in its value", clip(name))
	}
	return name, value, nil
}

// add records one field; names compare in any letter case (RFC 9110 §5.1).
func (h *fields) add(name, value []byte) error {
	switch {
	case bytes.EqualFold(name, []byte("host")):
		h.hosts++
	case bytes.EqualFold(name, []byte("content-length")):
		n, ok := parseDecimal(value)
		if !ok || (h.contentLength >= 0 && n != h.contentLength) {
			return badRequest("malformed Content-Length %q", clip(value))
		}
		h.contentLength = n
	case bytes.EqualFold(name, []byte("transfer-encoding")):
		if len(h.transferCoding) > 0 {
			h.transferCoding = append(h.transferCoding, ',')
		}
		h.transferCoding = append(h.transferCoding, value...)
	case bytes.EqualFold(name, []byte("connection")):
		for _, option := range bytes.Split(value, []byte{','}) {
			option = bytes.Trim(option, " \t")
			h.close = h.close || bytes.EqualFold(option, []byte("close"))
			h.keepAlive = h.keepAlive || bytes.EqualFold(option, []byte("keep-alive"))
		}
	case bytes.EqualFold(name, []byte("expect")):
		if !bytes.EqualFold(value, []byte("100-continue")) {
			return &protocolError{417, fmt.Sprintf("expectation %q is not supported: only 100-continue is", clip(value))}
		}
		h.expectContinue = true
	}
	return nil
}

// check applies the rules that need the whole head (RFC 9112 §3.2, §6).
func (h *fields) check(minor int) error {
	switch {
	case h.hosts > 1:
		return badRequest("more than one Host header")
	case h.hosts == 0 && minor == 1:
		return badRequest("missing Host header (RFC 9112 §3.2)")
	case h.transferCoding == nil:
		return nil
	case minor == 0:
		return badRequest("Transfer-Encoding in an HTTP/1.0 request")
	case h.contentLength >= 0:
		return badRequest("both Transfer-Encoding and Content-Length: the body's length is ambiguous")
	case !bytes.EqualFold(bytes.Trim(h.transferCoding, " \t"), []byte("chunked")):
		return &protocolError{501, fmt.Sprintf("transfer coding %q is not supported: only chunked is", clip(h.transferCoding))}
	}
	h.chunked = true
	return nil
}

// readLine returns the next line without its CRLF (or bare LF, which RFC
// 9112 §2.2 lets a server accept), charging it to budget. The slice is valid
// until the next read from r.
func readLine(r *bufio.Reader, budget *int) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		long := append([]byte(nil), line...)
		for errors.Is(err, bufio.ErrBufferFull) && len(long) <= *budget {
			line, err = r.ReadSlice('\n')
			long = append(long, line...)
		}
		line = long
	}
	*budget -= len(line)
	if *budget < 0 {
		return nil, errHeadTooLarge
	}
	if err != nil {
		if errors.Is(err, io.EOF) && len(line) > 0 {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	line = line[:len(line)-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, nil
}

// methodString avoids allocating the methods every request uses.
func methodString(b []byte) string {
	switch string(b) {
	case "GET":
		return "GET"
	case "POST":
		return "POST"
	case "HEAD":
		return "HEAD"
	}
	return string(b)
}

// parseDecimal parses 1*DIGIT without sign, spaces or overflow.
func parseDecimal(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if !isDigit(c) {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// tchar of RFC 9110 §5.6.2: the characters of methods and header names.
var tchar = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for _, c := range "!#$%&'*+-.^_`|~" {
		t[c] = true
	}
	return t
}()

func isToken(b []byte) bool {
	for _, c := range b {
		if !tchar[c] {
			return false
		}
	}
	return len(b) > 0
}

// isFieldValue allows visible characters, obs-text, spaces and tabs
// (RFC 9110 §5.5): no NUL, CR, LF or other control character.
func isFieldValue(b []byte) bool {
	for _, c := range b {
		if (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func hasPrefixFold(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && bytes.EqualFold(b[:len(prefix)], []byte(prefix))
}

// clip shortens what an error message quotes from the request.
func clip(b []byte) []byte {
	if len(b) > 64 {
		return b[:64]
	}
	return b
}
