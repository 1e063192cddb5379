package main

// SPEC §4 over raw sockets: the framings net/http's client will not send
// (pipelining, HTTP/1.0, Expect, bad framing, one byte at a time). Answers
// are read with http.ReadResponse, the client side of net/http.

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rawConn is one client connection whose bytes the test writes itself.
type rawConn struct {
	t *testing.T
	c net.Conn
	r *bufio.Reader
}

func dial(t *testing.T, ts *testServer) *rawConn {
	t.Helper()
	c, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	return &rawConn{t, c, bufio.NewReader(c)}
}

func (rc *rawConn) send(s string) {
	rc.t.Helper()
	if _, err := io.WriteString(rc.c, s); err != nil {
		rc.t.Fatalf("send %q: %v", clip([]byte(s)), err)
	}
}

// read reads one answer to a request made with method.
func (rc *rawConn) read(method string) reply {
	rc.t.Helper()
	resp, err := http.ReadResponse(rc.r, &http.Request{Method: method})
	if err != nil {
		rc.t.Fatalf("reading the answer to %s: %v", method, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		rc.t.Fatal(err)
	}
	if len(resp.TransferEncoding) > 0 {
		rc.t.Errorf("answer to %s was %v; this server frames every body with Content-Length", method, resp.TransferEncoding)
	}
	return reply{resp.StatusCode, resp.Header, string(b), resp.Close}
}

// closed reports whether the server closes the connection (EOF) soon,
// with nothing more to read.
func (rc *rawConn) closed() bool {
	rc.c.SetReadDeadline(time.Now().Add(3 * time.Second))
	n, err := rc.r.Read(make([]byte, 1))
	return n == 0 && errors.Is(err, io.EOF)
}

func rawRequest(method, target, headers, body string) string {
	head := method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers
	if body != "" {
		head += "Content-Length: " + strconv.Itoa(len(body)) + "\r\n"
	}
	return head + "\r\n" + body
}

func TestPipelinedRequestsAreAnsweredInOrder(t *testing.T) {
	ts := startServer(t)
	rc := dial(t, ts)
	rc.send(rawRequest("GET", "/", "", "") +
		rawRequest("GET", "/json", "", "") +
		rawRequest("POST", "/user/set/pipe", "", `{"pipelined":true}`) +
		rawRequest("GET", "/user/get/pipe", "", "") +
		rawRequest("GET", "/nope", "", ""))
	expect(t, "1", rc.read("GET"), 200, "text/plain", "Hello, World!")
	expect(t, "2", rc.read("GET"), 200, "application/json", `{"message":"Hello, World!"}`)
	expect(t, "3", rc.read("POST"), 200, "text/plain", "OK")
	expect(t, "4 sees 3", rc.read("GET"), 200, "application/json", `{"pipelined":true}`)
	expect(t, "5", rc.read("GET"), 404, "text/plain", "*")
}

func TestKeepAliveServesManyRequests(t *testing.T) {
	ts := startServer(t)
	rc := dial(t, ts)
	for i := range 30 {
		body := `{"i":` + strconv.Itoa(i) + `}`
		rc.send(rawRequest("POST", "/user/set/ka", "", body))
		expect(t, "set", rc.read("POST"), 200, "text/plain", "OK")
		rc.send(rawRequest("GET", "/user/get/ka", "", ""))
		expect(t, "get", rc.read("GET"), 200, "application/json", body)
	}
}

func TestConnectionCloseClosesAfterTheAnswer(t *testing.T) {
	ts := startServer(t)
	rc := dial(t, ts)
	rc.send(rawRequest("GET", "/", "Connection: close\r\n", "") + rawRequest("GET", "/json", "", ""))
	got := rc.read("GET")
	expect(t, "GET / with Connection: close", got, 200, "text/plain", "Hello, World!")
	if !got.closing || !rc.closed() {
		t.Errorf("Connection: close: want it in the answer (got %v), and the connection closed", got.closing)
	}
}

func TestHTTP10(t *testing.T) {
	ts := startServer(t)
	rc := dial(t, ts)
	rc.send("GET / HTTP/1.0\r\n\r\n")
	expect(t, "GET / HTTP/1.0", rc.read("GET"), 200, "text/plain", "Hello, World!")
	if !rc.closed() {
		t.Error("HTTP/1.0 without keep-alive: the connection stayed open")
	}

	rc = dial(t, ts)
	rc.send("POST /user/set/h10 HTTP/1.0\r\nConnection: keep-alive\r\nContent-Length: 8\r\n\r\n{\"v\":10}")
	got := rc.read("POST")
	expect(t, "POST HTTP/1.0 keep-alive", got, 200, "text/plain", "OK")
	if got.header.Get("Connection") != "keep-alive" {
		t.Errorf("HTTP/1.0 keep-alive answered Connection %q", got.header.Get("Connection"))
	}
	rc.send("GET /user/get/h10 HTTP/1.0\r\n\r\n")
	expect(t, "second request on HTTP/1.0 keep-alive", rc.read("GET"), 200, "application/json", `{"v":10}`)
	if !rc.closed() {
		t.Error("HTTP/1.0 without keep-alive: the connection stayed open")
	}
}

func TestExpectContinue(t *testing.T) {
	ts := startServer(t)
	rc := dial(t, ts)
	body := `{"expect":"continue"}`
	rc.send("POST /user/set/e HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n")
	if got := rc.read("POST"); got.status != 100 {
		t.Fatalf("want 100 Continue before the body, got %d", got.status)
	}
	rc.send(body)
	expect(t, "POST after 100", rc.read("POST"), 200, "text/plain", "OK")
	rc.send(rawRequest("GET", "/user/get/e", "", ""))
	expect(t, "get", rc.read("GET"), 200, "application/json", body)
}

func TestExpectContinueRefusedGetsTheFinalAnswerAndNo100(t *testing.T) {
	ts := startServer(t)
	for _, c := range []struct {
		path   string
		length int
		status int
	}{
		{"/user/set/big", maxBodyBytes + 1, 413},
		{"/user/set/%41", 10, 400},
		{"/nope", 10, 404},
		{"/user/get/a", 10, 405},
	} {
		rc := dial(t, ts)
		rc.send("POST " + c.path + " HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: " + strconv.Itoa(c.length) + "\r\n\r\n")
		expect(t, "POST "+c.path+" with Expect", rc.read("POST"), c.status, "text/plain", "*")
		if !rc.closed() {
			t.Errorf("POST %s: the server kept a connection whose body it never asked for", c.path)
		}
	}
}

func TestContentLengthOverTheLimitIsAnsweredBeforeTheBody(t *testing.T) {
	ts := startServer(t)
	for _, path := range []string{"/user/set/u", "/password/set/u", "/password/verify/u"} {
		rc := dial(t, ts)
		rc.send("POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Length: 10485760\r\n\r\n{\"a\":")
		expect(t, path+" with 10 MiB announced", rc.read("POST"), 413, "text/plain", "*")
		if !rc.closed() {
			t.Errorf("%s: the connection stayed open after a 413", path)
		}
	}
}

func TestBadChunkFramingIs400AndTheServerGoesOn(t *testing.T) {
	ts := startServer(t)
	for _, chunks := range []string{"ZZ\r\n{}\r\n0\r\n\r\n", "2\r\n{}}\r\n0\r\n\r\n", "2\r\n{}\r\n0\r\nBad trailer\r\n\r\n"} {
		rc := dial(t, ts)
		rc.send("POST /user/set/c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks)
		expect(t, "chunks "+chunks, rc.read("POST"), 400, "text/plain", "*")
		if !rc.closed() {
			t.Errorf("%q: the connection stayed open after bad framing", chunks)
		}
	}
	expect(t, "after bad chunks", get(t, ts, "/"), 200, "text/plain", "Hello, World!")
}

func TestChunkedBodyWithExtensionsAndTrailers(t *testing.T) {
	ts := startServer(t)
	rc := dial(t, ts)
	rc.send("POST /user/set/ext HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" +
		"5;a=b\r\n{\"a\":\r\n3\r\n1}\n\r\n0\r\nX-Trailer: yes\r\n\r\n" + rawRequest("GET", "/user/get/ext", "", ""))
	expect(t, "chunked set", rc.read("POST"), 200, "text/plain", "OK")
	expect(t, "get on the same connection", rc.read("GET"), 200, "application/json", `{"a":1}`)
}

func TestMalformedRequestsAre400WithEveryHeader(t *testing.T) {
	ts := startServer(t)
	for _, c := range []struct{ what, bytes string }{
		{"a garbage request line", "GARBAGE\r\n\r\n"},
		{"a request line without a version", "GET / EXTRA JUNK HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"a header line without a colon", "GET / HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n"},
		{"no Host in HTTP/1.1", "GET / HTTP/1.1\r\n\r\n"},
		{"Content-Length and Transfer-Encoding", "POST /user/set/a HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}"},
	} {
		rc := dial(t, ts)
		rc.send(c.bytes)
		got := rc.read("GET")
		expect(t, c.what, got, 400, "text/plain", "*")
		if got.header.Get("Content-Length") == "" || !rc.closed() {
			t.Errorf("%s: want Content-Length and the connection closed", c.what)
		}
		expect(t, "after "+c.what, get(t, ts, "/"), 200, "text/plain", "Hello, World!")
	}
}

func TestHeadAnswersWithoutABody(t *testing.T) {
	ts := startServer(t)
	rc := dial(t, ts)
	rc.send(rawRequest("HEAD", "/", "", "") + rawRequest("GET", "/", "", ""))
	head := rc.read("HEAD")
	expect(t, "HEAD /", head, 200, "text/plain", "")
	if head.header.Get("Content-Length") != "13" {
		t.Errorf("HEAD /: Content-Length %q, want the GET body's 13", head.header.Get("Content-Length"))
	}
	expect(t, "GET / after HEAD", rc.read("GET"), 200, "text/plain", "Hello, World!")
}

func TestAbsoluteFormTargetIsRoutedByItsPath(t *testing.T) {
	ts := startServer(t)
	rc := dial(t, ts)
	rc.send(rawRequest("GET", "http://"+ts.addr+"/json?x=1", "", ""))
	expect(t, "absolute form", rc.read("GET"), 200, "application/json", `{"message":"Hello, World!"}`)
}

func TestHeaderNamesInAnyCase(t *testing.T) {
	ts := startServer(t)
	rc := dial(t, ts)
	body := `{"case":"mixed"}`
	rc.send("POST /user/set/case HTTP/1.1\r\nhOsT: x\r\ncOnTeNt-LeNgTh: " + strconv.Itoa(len(body)) + "\r\nCONNECTION: keep-alive\r\n\r\n" + body)
	expect(t, "mixed-case names", rc.read("POST"), 200, "text/plain", "OK")
	expect(t, "get", get(t, ts, "/user/get/case"), 200, "application/json", body)
}

func TestRequestSentOneByteAtATime(t *testing.T) {
	ts := startServer(t)
	rc := dial(t, ts)
	for _, b := range []byte(rawRequest("POST", "/user/set/slow", "X-Slow: yes\r\n", `{"slow":"client"}`)) {
		rc.send(string(b))
	}
	expect(t, "byte by byte", rc.read("POST"), 200, "text/plain", "OK")
	expect(t, "get", get(t, ts, "/user/get/slow"), 200, "application/json", `{"slow":"client"}`)
}

func TestBodySentToAGetRouteIsIgnored(t *testing.T) {
	ts := startServer(t)
	rc := dial(t, ts)
	rc.send(rawRequest("GET", "/", "", "GET /nope HTTP/1.1\r\n\r\n") +
		"GET /json HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n" +
		rawRequest("POST", "/nope", "", "{}") +
		rawRequest("GET", "/", "", ""))
	expect(t, "GET / with a body", rc.read("GET"), 200, "text/plain", "Hello, World!")
	expect(t, "GET /json with a chunked body", rc.read("GET"), 200, "application/json", `{"message":"Hello, World!"}`)
	expect(t, "POST /nope", rc.read("POST"), 404, "text/plain", "*")
	expect(t, "the next request", rc.read("GET"), 200, "text/plain", "Hello, World!")
}

func TestShutdownClosesKeptConnectionsAfterTheirAnswer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := newServer(testConfig, noDatabase)
	go s.serve(l)
	rc := dial(t, &testServer{addr: l.Addr().String()})
	rc.send(rawRequest("GET", "/longPoll", "", ""))
	time.Sleep(20 * time.Millisecond)
	start := time.Now()
	s.shutdown(l, time.Second)
	if took := time.Since(start); took >= time.Second {
		t.Errorf("shutdown took %v while one long poll was in flight", took)
	}
	got := rc.read("GET")
	expect(t, "long poll in flight at shutdown", got, 200, "text/plain", "OK")
	if !got.closing || !rc.closed() {
		t.Error("a connection answered during shutdown stayed open")
	}
	if _, err := net.DialTimeout("tcp", l.Addr().String(), time.Second); err == nil {
		t.Error("the server still accepts connections after shutdown")
	}
	if !strings.HasPrefix(got.header.Get("Server"), "concur-go-tcp") {
		t.Errorf("Server %q", got.header.Get("Server"))
	}
}
