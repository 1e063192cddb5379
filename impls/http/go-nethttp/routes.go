package main

// The route table and what every route shares: the Server header, text/plain
// errors, the {user} rule and the 1 MiB body limit (spec/SPEC.md §2-§3, §8).
//
// ServeMux's method patterns do the first rules of §3 on their own: an
// unknown path gets 404, a known one with another method gets 405 with an
// Allow header, and a GET pattern also answers HEAD.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

const (
	serverName   = "concur-go-nethttp"
	maxBodyBytes = 1 << 20
	textPlain    = "text/plain; charset=utf-8"
)

var validUser = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// server holds the in-memory state and the database pool; the handlers are
// its methods.
type server struct {
	cfg       config
	db        *database
	passwords sync.Map     // user name → bcrypt hash ([]byte)
	users     sync.Map     // user name → JSON object (json.RawMessage)
	pageCount atomic.Int64 // /page requests so far, for the every-Nth delay
}

func newServer(cfg config, db *database) *server {
	return &server{cfg: cfg, db: db}
}

// handler is the whole HTTP surface of the server.
func (s *server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.hello)
	mux.HandleFunc("GET /json", s.helloJSON)
	mux.HandleFunc("GET /page", s.page)
	mux.HandleFunc("GET /longPoll", s.longPoll)
	mux.HandleFunc("POST /password/set/{user...}", s.setPassword)
	mux.HandleFunc("POST /password/verify/{user...}", s.verifyPassword)
	mux.HandleFunc("POST /user/set/{user...}", s.setUser)
	mux.HandleFunc("GET /user/get/{user...}", s.getUser)
	mux.HandleFunc("GET /db", s.singleQuery)
	mux.HandleFunc("GET /queries", s.queries)
	mux.HandleFunc("GET /updates", s.updates)
	mux.HandleFunc("GET /fortunes", s.fortunes)
	mux.HandleFunc("GET /slowdb", s.slowQuery)
	if s.cfg.faults {
		mux.HandleFunc("GET /fault/panic", s.panicking)
		mux.HandleFunc("GET /fault/spin", s.spin)
	}
	// A bare prefix is not a route. Without these, ServeMux would answer
	// "/user/get" with a redirect to "/user/get/" instead of 404.
	for _, prefix := range []string{"/password/set", "/password/verify", "/user/set", "/user/get"} {
		mux.Handle(prefix, http.NotFoundHandler())
	}
	return withServerHeader(mux)
}

// withServerHeader names the server on every response that goes through a
// handler, the mux's own 404 and 405 included. Date comes from net/http.
func withServerHeader(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Server", serverName)
		next.ServeHTTP(w, r)
	})
}

// userName returns {user} as it was sent, or "" after answering 400.
//
// It reads the escaped path rather than r.PathValue, which is decoded: the
// contract checks the raw name, so "%41" is not "A" and "a%2Fb" is not valid.
func userName(w http.ResponseWriter, r *http.Request, prefix string) string {
	name := strings.TrimPrefix(r.URL.EscapedPath(), prefix)
	if !validUser.MatchString(name) {
		http.Error(w, "invalid user name: must match [A-Za-z0-9_.-]{1,64}", http.StatusBadRequest)
		return ""
	}
	return name
}

// readBody reads the request body up to the 1 MiB limit, or answers 413 (too
// large) or 400 (unreadable, e.g. bad chunk framing) and returns ok=false.
func readBody(w http.ResponseWriter, r *http.Request) (body []byte, ok bool) {
	if r.ContentLength > maxBodyBytes {
		// Answer on the Content-Length alone; net/http then closes the
		// connection instead of reading the body it was not sent a 100 for.
		http.Error(w, tooLarge(), http.StatusRequestEntityTooLarge)
		return nil, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		http.Error(w, tooLarge(), http.StatusRequestEntityTooLarge)
		return nil, false
	case err != nil:
		http.Error(w, "could not read request body: "+err.Error(), http.StatusBadRequest)
		return nil, false
	}
	return body, true
}

// parseJSON parses a request body into Go's JSON value, or answers 400.
//
// encoding/json replaces invalid UTF-8 with U+FFFD instead of failing, and
// the contract says such bytes are not JSON, so they are checked first.
func parseJSON(w http.ResponseWriter, body []byte) (value any, ok bool) {
	if !utf8.Valid(body) {
		http.Error(w, "request body is not valid JSON: it is not UTF-8", http.StatusBadRequest)
		return nil, false
	}
	if err := json.Unmarshal(body, &value); err != nil {
		http.Error(w, "request body is not valid JSON", http.StatusBadRequest)
		return nil, false
	}
	return value, true
}

func tooLarge() string {
	return fmt.Sprintf("request body too large: the limit is %d bytes", maxBodyBytes)
}

// writeText answers 200 with a text/plain body.
func writeText(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", textPlain)
	io.WriteString(w, body)
}

// writeJSON answers 200 with v serialized, its length given so that a
// large array is not sent chunked.
func writeJSON(w http.ResponseWriter, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "could not encode JSON: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
}
