package main

// The routes without a body: the wrk hello worlds (/ and /json), the blog
// series' file with a delay on every Nth request (/page) and the thesis'
// long poll. The waits are time.Sleep, as in the blog's server: it parks the
// connection's goroutine on a runtime timer and holds no OS thread.

import (
	"encoding/json"
	"os"
	"time"
)

type message struct {
	Message string `json:"message"`
}

func (s *server) hello(req *request, _ string) response {
	return text(200, "Hello, World!")
}

func (s *server) helloJSON(req *request, _ string) response {
	body, err := json.Marshal(message{Message: "Hello, World!"})
	if err != nil {
		return errorResponse(500, "could not encode JSON: "+err.Error())
	}
	return response{status: 200, contentType: "application/json", body: body}
}

func (s *server) page(req *request, _ string) response {
	if s.pageCount.Add(1)%s.cfg.pageDelayEvery == 0 {
		time.Sleep(s.cfg.pageDelay)
	}
	body, err := os.ReadFile(s.cfg.pageFile)
	if err != nil {
		return errorResponse(500, "could not read the page: "+err.Error())
	}
	return response{status: 200, contentType: "text/html; charset=utf-8", body: body}
}

func (s *server) longPoll(req *request, _ string) response {
	time.Sleep(s.cfg.longPoll)
	return text(200, "OK")
}
