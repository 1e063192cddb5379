package main

// Per-user JSON objects (the thesis' Listing 23). As a real service would,
// the body is parsed into Go's JSON value (map[string]any), that value is
// stored, and each get serializes it again (spec/SPEC.md §2). Numbers become
// float64, so integers are exact within ±2^53, the I-JSON range the contract
// compares.

import "net/http"

func (s *server) setUser(w http.ResponseWriter, r *http.Request) {
	user := userName(w, r, "/user/set/")
	if user == "" {
		return
	}
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	value, ok := parseJSON(w, body)
	if !ok {
		return
	}
	object, isObject := value.(map[string]any)
	if !isObject {
		http.Error(w, "request body must be a JSON object", http.StatusBadRequest)
		return
	}
	s.users.Store(user, object)
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
	writeJSON(w, object)
}
