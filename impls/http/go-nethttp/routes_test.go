package main

import (
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// testConfig keeps bcrypt and the waits short so the suite stays fast.
var testConfig = config{
	bcryptCost:     bcryptTestCost,
	pageFile:       defaultPageFile,
	pageDelayEvery: 3,
	pageDelay:      150 * time.Millisecond,
	longPoll:       150 * time.Millisecond,
}

const bcryptTestCost = 4

// reply is one finished response, body read.
type reply struct {
	status int
	header http.Header
	body   string
}

func startServer(t *testing.T) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(newServer(testConfig, &database{absent: "no database in this test"}).handler())
	t.Cleanup(ts.Close)
	return ts
}

// send makes one request; body "" sends none, and a non-nil reader is sent
// chunked because its length is unknown.
func send(t *testing.T, ts *httptest.Server, method, path string, body io.Reader) reply {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return reply{resp.StatusCode, resp.Header, string(b)}
}

func get(t *testing.T, ts *httptest.Server, path string) reply {
	return send(t, ts, http.MethodGet, path, nil)
}

func post(t *testing.T, ts *httptest.Server, path, body string) reply {
	return send(t, ts, http.MethodPost, path, strings.NewReader(body))
}

// expect checks the status, the media type and, unless body is "*", the body.
func expect(t *testing.T, what string, got reply, status int, mediaType, body string) {
	t.Helper()
	if got.status != status {
		t.Errorf("%s: status %d, want %d (body %q)", what, got.status, status, got.body)
	}
	if ct := got.header.Get("Content-Type"); !strings.HasPrefix(ct, mediaType) {
		t.Errorf("%s: Content-Type %q, want %s", what, ct, mediaType)
	}
	if body != "*" && got.body != body {
		t.Errorf("%s: body %q, want %q", what, got.body, body)
	}
	if got.header.Get("Server") == "" || got.header.Get("Date") == "" {
		t.Errorf("%s: Server %q, Date %q: want both", what, got.header.Get("Server"), got.header.Get("Date"))
	}
}

func TestHelloRoutes(t *testing.T) {
	ts := startServer(t)
	expect(t, "GET /", get(t, ts, "/"), 200, "text/plain", "Hello, World!")
	expect(t, "GET /?x=1", get(t, ts, "/?x=1"), 200, "text/plain", "Hello, World!")
	expect(t, "GET /json", get(t, ts, "/json"), 200, "application/json", `{"message":"Hello, World!"}`)
}

func TestPageIsTheFileAndEveryNthIsDelayed(t *testing.T) {
	ts := startServer(t)
	want, err := os.ReadFile(defaultPageFile)
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(1); i <= 2*testConfig.pageDelayEvery; i++ {
		start := time.Now()
		got := get(t, ts, "/page")
		took := time.Since(start)
		expect(t, "GET /page", got, 200, "text/html; charset=utf-8", string(want))
		delayed := took >= testConfig.pageDelay
		if wantDelay := i%testConfig.pageDelayEvery == 0; delayed != wantDelay {
			t.Errorf("request %d took %v: delayed=%v, want %v", i, took, delayed, wantDelay)
		}
	}
}

func TestLongPollWaits(t *testing.T) {
	ts := startServer(t)
	start := time.Now()
	expect(t, "GET /longPoll", get(t, ts, "/longPoll"), 200, "text/plain", "OK")
	if took := time.Since(start); took < testConfig.longPoll {
		t.Errorf("long poll answered after %v, want at least %v", took, testConfig.longPoll)
	}
}

func TestPasswordSetAndVerify(t *testing.T) {
	ts := startServer(t)
	expect(t, "verify before set", post(t, ts, "/password/verify/alice", `{"password":"pw"}`), 404, "text/plain", "*")
	expect(t, "set", post(t, ts, "/password/set/alice", `{"password":"pw"}`), 200, "text/plain", "OK")
	expect(t, "verify right", post(t, ts, "/password/verify/alice", `{"password":"pw"}`), 200, "text/plain", "OK")
	expect(t, "verify wrong", post(t, ts, "/password/verify/alice", `{"password":"pW"}`), 403, "text/plain", "*")
	expect(t, "set again", post(t, ts, "/password/set/alice", `{"password":"new"}`), 200, "text/plain", "OK")
	expect(t, "old password", post(t, ts, "/password/verify/alice", `{"password":"pw"}`), 403, "text/plain", "*")
	expect(t, "other user", post(t, ts, "/password/verify/bob", `{"password":"new"}`), 404, "text/plain", "*")
	expect(t, "NUL in password", post(t, ts, "/password/set/carol", `{"password":"a\u0000b"}`), 400, "text/plain", "*")
	max := strings.Repeat("é", 36) // 72 bytes of UTF-8
	expect(t, "72-byte password", post(t, ts, "/password/set/carol", `{"password":"`+max+`"}`), 200, "text/plain", "OK")
	expect(t, "72-byte verify", post(t, ts, "/password/verify/carol", `{"password":"`+max+`"}`), 200, "text/plain", "OK")
}

func TestUserSetAndGet(t *testing.T) {
	ts := startServer(t)
	expect(t, "get before set", get(t, ts, "/user/get/u.1"), 404, "text/plain", "*")
	object := `{"name":"Ann","n":12345678901234567890,"tags":["a",{"b":null}]}`
	expect(t, "set", post(t, ts, "/user/set/u.1", object), 200, "text/plain", "OK")
	got := get(t, ts, "/user/get/u.1")
	expect(t, "get", got, 200, "application/json", "*")
	if !sameJSON(t, got.body, object) {
		t.Errorf("get returned %s, want %s", got.body, object)
	}
	// The value is parsed and serialized again, not echoed: spacing and the
	// spelling of numbers and escapes come back in Go's own form.
	expect(t, "set spelled oddly", post(t, ts, "/user/set/u.2", ` { "n" : 1.0E2, "s" : "\u0041" } `), 200, "text/plain", "OK")
	expect(t, "get reserialized", get(t, ts, "/user/get/u.2"), 200, "application/json", `{"n":100,"s":"A"}`)
	expect(t, "replace", post(t, ts, "/user/set/u.1", ` { "x" : 1 } `), 200, "text/plain", "OK")
	if got := get(t, ts, "/user/get/u.1"); !sameJSON(t, got.body, `{"x":1}`) {
		t.Errorf("after replace: %s", got.body)
	}
}

func sameJSON(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xs, _ := json.Marshal(x)
	ys, _ := json.Marshal(y)
	return string(xs) == string(ys)
}

func TestUnknownPathsAre404(t *testing.T) {
	ts := startServer(t)
	for _, path := range []string{"/nope", "/json/", "/jsonx", "/pages", "/user/", "/password/reset/a",
		"/user/get", "/user/set", "/password/set", "/password/verify"} {
		expect(t, "GET "+path, get(t, ts, path), 404, "text/plain", "*")
		expect(t, "POST "+path, post(t, ts, path, "{}"), 404, "text/plain", "*")
	}
}

func TestWrongMethodIs405WithAllow(t *testing.T) {
	ts := startServer(t)
	for _, c := range []struct{ method, path, allow string }{
		{"POST", "/", "GET"},
		{"DELETE", "/json", "GET"},
		{"PUT", "/page", "GET"},
		{"POST", "/longPoll", "GET"},
		{"GET", "/password/set/a", "POST"},
		{"GET", "/password/verify/a", "POST"},
		{"GET", "/user/set/a", "POST"},
		{"POST", "/user/get/a", "GET"},
		// Method comes before the name check (spec/SPEC.md §3 rule order).
		{"GET", "/user/set/%41", "POST"},
	} {
		got := send(t, ts, c.method, c.path, nil)
		expect(t, c.method+" "+c.path, got, 405, "text/plain", "*")
		if allow := got.header.Get("Allow"); !strings.Contains(allow, c.allow) {
			t.Errorf("%s %s: Allow %q, want it to name %s", c.method, c.path, allow, c.allow)
		}
	}
}

func TestBadUserNamesAre400(t *testing.T) {
	ts := startServer(t)
	for _, name := range []string{"", "%41", "a/b", "a%2Fb", "a%20b", "a+b", "ü", strings.Repeat("x", 65)} {
		expect(t, "get "+name, get(t, ts, "/user/get/"+name), 400, "text/plain", "*")
		expect(t, "set "+name, post(t, ts, "/user/set/"+name, `{}`), 400, "text/plain", "*")
		expect(t, "password "+name, post(t, ts, "/password/set/"+name, `{"password":"p"}`), 400, "text/plain", "*")
		expect(t, "verify "+name, post(t, ts, "/password/verify/"+name, `{"password":"p"}`), 400, "text/plain", "*")
	}
	longest := strings.Repeat("x", 64)
	expect(t, "64 characters", post(t, ts, "/user/set/"+longest, `{}`), 200, "text/plain", "OK")
	expect(t, "every allowed character", post(t, ts, "/user/set/Az09_.-", `{}`), 200, "text/plain", "OK")
}

func TestBadBodiesAre400(t *testing.T) {
	ts := startServer(t)
	for _, body := range []string{"", "{", `{"password":"p"} x`, "nope"} {
		expect(t, "user json "+body, post(t, ts, "/user/set/u", body), 400, "text/plain", "*")
		expect(t, "password json "+body, post(t, ts, "/password/set/u", body), 400, "text/plain", "*")
	}
	for _, body := range []string{"[]", `"s"`, "1", "null", "true"} {
		expect(t, "user non-object "+body, post(t, ts, "/user/set/u", body), 400, "text/plain", "*")
	}
	// Bytes that are not UTF-8 are not JSON, though encoding/json would
	// decode them as U+FFFD (spec/SPEC.md §3.6).
	for _, body := range []string{"{\"n\":\"\xff\"}", "{\"\xc0\x80\":1}", "{\"password\":\"\xed\xa0\x80\"}"} {
		expect(t, "user not UTF-8", post(t, ts, "/user/set/u", body), 400, "text/plain", "*")
		expect(t, "password not UTF-8", post(t, ts, "/password/set/u", body), 400, "text/plain", "*")
	}
	for _, body := range []string{"[]", "null", "{}", `{"password":1}`, `{"password":null}`, `{"PASSWORD":"p"}`,
		`{"password":"` + strings.Repeat("a", 73) + `"}`} {
		expect(t, "password "+body, post(t, ts, "/password/set/u", body), 400, "text/plain", "*")
		expect(t, "verify "+body, post(t, ts, "/password/verify/u", body), 400, "text/plain", "*")
	}
}

func TestBodyOver1MiBIs413(t *testing.T) {
	ts := startServer(t)
	over := `{"a":"` + strings.Repeat("x", maxBodyBytes) + `"}`
	// strings.Reader has a known length, so this one carries Content-Length.
	expect(t, "Content-Length", post(t, ts, "/user/set/u", over), 413, "text/plain", "*")
	chunked := send(t, ts, "POST", "/user/set/u", io.MultiReader(strings.NewReader(over)))
	expect(t, "chunked", chunked, 413, "text/plain", "*")
	expect(t, "password", post(t, ts, "/password/set/u", over), 413, "text/plain", "*")
	// Exactly at the limit is allowed.
	at := `{"a":"` + strings.Repeat("x", maxBodyBytes-8) + `"}`
	expect(t, "1 MiB", post(t, ts, "/user/set/u", at), 200, "text/plain", "OK")
}

func TestChunkedBodyIsRead(t *testing.T) {
	ts := startServer(t)
	body := io.MultiReader(strings.NewReader(`{"k":`), strings.NewReader(`"v"}`))
	expect(t, "chunked set", send(t, ts, "POST", "/user/set/c", body), 200, "text/plain", "OK")
	expect(t, "get", get(t, ts, "/user/get/c"), 200, "application/json", `{"k":"v"}`)
}

// SPEC §9: without CONCUR_FAULTS=1 the fault routes are unknown paths; with
// it a spin takes its time, a bad ms counts as 0, and a panic costs the
// faulting client its connection while the server serves on.
func TestFaultRoutes(t *testing.T) {
	ts := startServer(t)
	for _, path := range []string{"/fault/panic", "/fault/spin?ms=1"} {
		if got := get(t, ts, path); got.status != 404 {
			t.Errorf("GET %s without CONCUR_FAULTS=1: %d, want 404", path, got.status)
		}
	}
	cfg := testConfig
	cfg.faults = true
	on := httptest.NewServer(newServer(cfg, &database{absent: "no database in this test"}).handler())
	on.Config.ErrorLog = log.New(io.Discard, "", 0) // the panic's stack trace
	t.Cleanup(on.Close)
	start := time.Now()
	expect(t, "GET /fault/spin?ms=100", get(t, on, "/fault/spin?ms=100"), 200, "text/plain", "OK")
	if took := time.Since(start); took < 100*time.Millisecond {
		t.Errorf("a spin of 100 ms answered after %v", took)
	}
	for _, q := range []string{"", "?ms=", "?ms=x", "?ms=-5"} {
		expect(t, "GET /fault/spin"+q, get(t, on, "/fault/spin"+q), 200, "text/plain", "OK")
	}
	if _, err := on.Client().Get(on.URL + "/fault/panic"); err == nil {
		t.Error("GET /fault/panic answered; net/http closes the connection of a panicking handler")
	}
	expect(t, "GET / after the panic", get(t, on, "/"), 200, "text/plain", "Hello, World!")
}
