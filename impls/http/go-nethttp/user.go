package main

// Per-user JSON objects (the thesis' Listing 23). The object is stored as the
// bytes that were posted, after checking they are one JSON object, so a get
// returns exactly the value that was set (large numbers included) without
// decoding and re-encoding it on every request.

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
)

func (s *server) setUser(w http.ResponseWriter, r *http.Request) {
	user := userName(w, r, "/user/set/")
	if user == "" {
		return
	}
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	if !json.Valid(body) {
		http.Error(w, "request body is not valid JSON", http.StatusBadRequest)
		return
	}
	if !isObject(body) {
		http.Error(w, "request body must be a JSON object", http.StatusBadRequest)
		return
	}
	s.users.Store(user, json.RawMessage(body))
	writeText(w, "OK")
}

func (s *server) getUser(w http.ResponseWriter, r *http.Request) {
	user := userName(w, r, "/user/get/")
	if user == "" {
		return
	}
	object, found := s.users.Load(user)
	if !found {
		http.Error(w, "no object is stored for user "+user, http.StatusNotFound)
		return
	}
	body := object.(json.RawMessage)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
}

// isObject reports whether valid JSON is an object rather than another value.
func isObject(valid []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(valid, " \t\r\n"), []byte("{"))
}
