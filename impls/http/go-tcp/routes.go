package main

// The route table and the rules of SPEC §3 that come before a handler: an
// unknown path is 404, a known one with another method 405 with Allow, a
// {user} outside [A-Za-z0-9_.-]{1,64} 400. Then the helpers the handlers
// share for the body: the 1 MiB limit (413) and JSON (400).

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"unicode/utf8"
)

// route is a path (or a prefix followed by {user}) and the one method it
// takes.
type route struct {
	method   string
	path     string
	withUser bool // path is a prefix; the rest of the request path is {user}
	handle   func(req *request, user string) response
}

func (s *server) routeTable() []route {
	table := []route{
		{"GET", "/", false, s.hello},
		{"GET", "/json", false, s.helloJSON},
		{"GET", "/page", false, s.page},
		{"GET", "/longPoll", false, s.longPoll},
		{"POST", "/password/set/", true, s.setPassword},
		{"POST", "/password/verify/", true, s.verifyPassword},
		{"POST", "/user/set/", true, s.setUser},
		{"GET", "/user/get/", true, s.getUser},
		{"GET", "/db", false, s.singleQuery},
		{"GET", "/queries", false, s.queries},
		{"GET", "/updates", false, s.updates},
		{"GET", "/fortunes", false, s.fortunes},
		{"GET", "/slowdb", false, s.slowQuery},
	}
	if s.cfg.faults {
		table = append(table, route{"GET", "/fault/panic", false, s.panicking}, route{"GET", "/fault/spin", false, s.spin})
	}
	return table
}

var validUser = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// route finds the request's route and runs it. The path is the raw one, so
// "%41" is not "A" and "a%2Fb" is not a name; a bare prefix ("/user/get")
// matches no route.
func (s *server) route(req *request) response {
	for _, rt := range s.routes {
		var user string
		if rt.withUser {
			if !strings.HasPrefix(req.path, rt.path) {
				continue
			}
			user = req.path[len(rt.path):]
		} else if req.path != rt.path {
			continue
		}
		if req.method != rt.method && !(req.method == "HEAD" && rt.method == "GET") {
			return methodNotAllowed(rt.method)
		}
		if rt.withUser && !validUser.MatchString(user) {
			return errorResponse(400, "invalid user name: must match [A-Za-z0-9_.-]{1,64}")
		}
		return rt.handle(req, user)
	}
	return errorResponse(404, "no route for "+req.path)
}

// methodNotAllowed is the 405 of a route that takes method. A GET route
// answers HEAD too, without the body.
func methodNotAllowed(method string) response {
	resp := errorResponse(405, "method not allowed: use "+method)
	resp.allow = method
	if method == "GET" {
		resp.allow = "GET, HEAD"
	}
	return resp
}

// readBody reads the request body up to the 1 MiB limit, or returns the
// 413 (too large) or 400 (bad chunk framing, a client that stopped sending)
// to answer instead.
func readBody(req *request) ([]byte, *response) {
	body, err := req.body.readAll(maxBodyBytes)
	if err != nil {
		if errors.Is(err, errBodyTooLarge) {
			return nil, refuse(413, err.Error())
		}
		return nil, refuse(400, "could not read the request body: "+err.Error())
	}
	return body, nil
}

// parseJSON parses a request body into Go's JSON value, or returns the 400.
//
// encoding/json replaces invalid UTF-8 with U+FFFD instead of failing, and
// the contract says such bytes are not JSON, so they are checked first.
func parseJSON(body []byte) (any, *response) {
	if !utf8.Valid(body) {
		return nil, refuse(400, "request body is not valid JSON: it is not UTF-8")
	}
	var value any
	if err := json.Unmarshal(body, &value); err != nil {
		return nil, refuse(400, "request body is not valid JSON")
	}
	return value, nil
}

// refuse is the error answer a helper returns in place of its result.
func refuse(status int, reason string) *response {
	resp := errorResponse(status, reason)
	return &resp
}
