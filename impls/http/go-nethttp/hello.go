package main

// The routes without a body: the wrk hello worlds (/ and /json), the blog
// series' file with a delay on every Nth request (/page) and the thesis'
// long poll. The waits park the goroutine on a timer; no thread is held.

import (
	"context"
	"net/http"
	"os"
	"strconv"
	"time"
)

type message struct {
	Message string `json:"message"`
}

func (s *server) hello(w http.ResponseWriter, r *http.Request) {
	writeText(w, "Hello, World!")
}

func (s *server) helloJSON(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, message{Message: "Hello, World!"})
}

func (s *server) page(w http.ResponseWriter, r *http.Request) {
	if s.pageCount.Add(1)%s.cfg.pageDelayEvery == 0 && !sleep(r.Context(), s.cfg.pageDelay) {
		return
	}
	body, err := os.ReadFile(s.cfg.pageFile)
	if err != nil {
		http.Error(w, "could not read the page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
}

func (s *server) longPoll(w http.ResponseWriter, r *http.Request) {
	if sleep(r.Context(), s.cfg.longPoll) {
		writeText(w, "OK")
	}
}

// sleep waits for d, or returns false as soon as ctx is done (the client went
// away), so an abandoned request does not keep its timer.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
