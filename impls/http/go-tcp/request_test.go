package main

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

func parse(head string) (*request, error) {
	r := bufio.NewReader(strings.NewReader(head))
	return readRequest(r, bufio.NewWriter(io.Discard))
}

func TestRequestHeadsThatParse(t *testing.T) {
	for _, c := range []struct {
		head      string
		method    string
		path      string
		minor     int
		keepAlive bool
		length    int64
		chunked   bool
	}{
		{"GET / HTTP/1.1\r\nHost: x\r\n\r\n", "GET", "/", 1, true, -1, false},
		{"GET /json?x=1&y HTTP/1.1\r\nHost: x\r\n\r\n", "GET", "/json", 1, true, -1, false},
		{"GET http://127.0.0.1:8080/user/get/a?q HTTP/1.1\r\nHost: x\r\n\r\n", "GET", "/user/get/a", 1, true, -1, false},
		{"GET HTTPS://example.com HTTP/1.1\r\nHost: x\r\n\r\n", "GET", "/", 1, true, -1, false},
		{"GET http://example.com?q HTTP/1.1\r\nHost: x\r\n\r\n", "GET", "/", 1, true, -1, false},
		{"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n", "OPTIONS", "*", 1, true, -1, false},
		{"GET /user/get/%41 HTTP/1.1\r\nHost: x\r\n\r\n", "GET", "/user/get/%41", 1, true, -1, false},
		{"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "GET", "/", 1, false, -1, false},
		{"GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, CLOSE\r\n\r\n", "GET", "/", 1, false, -1, false},
		{"GET / HTTP/1.0\r\n\r\n", "GET", "/", 0, false, -1, false},
		{"GET / HTTP/1.0\r\nconnection: Keep-Alive\r\n\r\n", "GET", "/", 0, true, -1, false},
		{"POST /user/set/a HTTP/1.1\r\nHOST: x\r\ncontent-LENGTH: 12\r\n\r\n", "POST", "/user/set/a", 1, true, 12, false},
		{"POST /user/set/a HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\nContent-Length: 7\r\n\r\n", "POST", "/user/set/a", 1, true, 7, false},
		{"POST /user/set/a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: Chunked\r\n\r\n", "POST", "/user/set/a", 1, true, -1, true},
		// Empty lines before the request line, bare LF line ends, and
		// spaces around a value are all allowed (RFC 9112 §2.2, §5.1).
		{"\r\n\nGET /page HTTP/1.1\nHost:   x  \n\n", "GET", "/page", 1, true, -1, false},
		{"PATCH /x HTTP/1.1\r\nHost: x\r\nX-Any: \t\xc3\xa9 value\r\n\r\n", "PATCH", "/x", 1, true, -1, false},
	} {
		req, err := parse(c.head)
		if err != nil {
			t.Errorf("%q: %v", c.head, err)
			continue
		}
		got := []any{req.method, req.path, req.minor, req.keepAlive, req.body.length, req.body.chunked}
		want := []any{c.method, c.path, c.minor, c.keepAlive, c.length, c.chunked}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%q: got %v, want %v", c.head, got, want)
				break
			}
		}
	}
}

func TestRequestHeadsThatAreRefused(t *testing.T) {
	long := strings.Repeat("a", maxHeadBytes)
	for _, c := range []struct {
		head   string
		status int
	}{
		{"GARBAGE\r\n\r\n", 400},
		{"GET / EXTRA JUNK HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"GET  / HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"GET / HTTP/1.1 \r\nHost: x\r\n\r\n", 400},
		{"G(T / HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"GET / HTTP/1.2.3\r\nHost: x\r\n\r\n", 400},
		{"GET / http/1.1\r\nHost: x\r\n\r\n", 400},
		{"GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505},
		{"GET user HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"GET /\x7f HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"GET / HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n", 400},
		{"GET / HTTP/1.1\r\nHost : x\r\n\r\n", 400},
		{"GET / HTTP/1.1\r\n: x\r\n\r\n", 400},
		{"GET / HTTP/1.1\r\nHost: x\r\nX: a\r\n folded\r\n\r\n", 400},
		{"GET / HTTP/1.1\r\nHost: x\r\nX: a\x00b\r\n\r\n", 400},
		{"GET / HTTP/1.1\r\nHost: x\r\nX: a\rb\r\n\r\n", 400},
		{"GET / HTTP/1.1\r\n\r\n", 400},
		{"GET / HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", 400},
		{"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 400},
		{"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1, 1\r\n\r\n", 400},
		{"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400},
		{"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n", 400},
		{"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400},
		{"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400},
		{"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501},
		{"POST / HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\n\r\n", 417},
		{"GET / HTTP/1.1\r\nHost: x\r\nX-Long: " + long + "\r\n\r\n", 431},
		{"GET /" + long + " HTTP/1.1\r\nHost: x\r\n\r\n", 431},
	} {
		_, err := parse(c.head)
		var bad *protocolError
		if !errors.As(err, &bad) || bad.status != c.status {
			t.Errorf("%q: got %v, want a %d", clip([]byte(c.head)), err, c.status)
		}
	}
}

func TestTruncatedHeadIsAConnectionErrorNotA400(t *testing.T) {
	for _, head := range []string{"", "GET / HTTP/1.1\r\nHost: x\r\n", "GET / HT"} {
		_, err := parse(head)
		var bad *protocolError
		if err == nil || errors.As(err, &bad) {
			t.Errorf("%q: got %v, want the reader's EOF", head, err)
		}
	}
}

func TestChunkedBodies(t *testing.T) {
	for _, c := range []struct {
		chunks string
		want   string
		status int // 0: read fine
	}{
		{"5\r\nhello\r\n0\r\n\r\n", "hello", 0},
		{"2;name=value\r\nab\r\nA \t;x\r\n0123456789\r\n0\r\nTrailer: t\r\n\r\n", "ab0123456789", 0},
		{"0\r\n\r\n", "", 0},
		{"ZZ\r\n{}\r\n0\r\n\r\n", "", 400},
		{"\r\n", "", 400},
		{"5\r\nhello!\r\n0\r\n\r\n", "", 400},
		{"5 x\r\nhello\r\n0\r\n\r\n", "", 400},
		{"5x\r\nhello\r\n0\r\n\r\n", "", 400},
		{"1000000000000000\r\n", "", 400},
		{"100001\r\n", "", 413},
	} {
		req, err := parse("POST /user/set/a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + c.chunks)
		if err != nil {
			t.Fatal(err)
		}
		got, refused := readBody(req)
		switch {
		case c.status == 0 && (refused != nil || string(got) != c.want):
			t.Errorf("%q: got %q, %v; want %q", c.chunks, got, refused, c.want)
		case c.status != 0 && (refused == nil || refused.status != c.status):
			t.Errorf("%q: got %q, %v; want a %d", c.chunks, got, refused, c.status)
		}
	}
}
