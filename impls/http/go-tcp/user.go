package main

// Per-user JSON objects (the thesis' Listing 23). As a real service would,
// the body is parsed into Go's JSON value (map[string]any), that value is
// stored, and each get serializes it again (spec/SPEC.md §2). Numbers become
// float64, so integers are exact within ±2^53, the I-JSON range the contract
// compares.

import "encoding/json"

func (s *server) setUser(req *request, user string) response {
	body, bad := readBody(req)
	if bad != nil {
		return *bad
	}
	value, bad := parseJSON(body)
	if bad != nil {
		return *bad
	}
	object, isObject := value.(map[string]any)
	if !isObject {
		return errorResponse(400, "request body must be a JSON object")
	}
	s.users.Store(user, object)
	return text(200, "OK")
}

func (s *server) getUser(req *request, user string) response {
	object, found := s.users.Load(user)
	if !found {
		return errorResponse(404, "no object is stored for user "+user)
	}
	body, err := json.Marshal(object)
	if err != nil {
		return errorResponse(500, "could not serialize the stored object: "+err.Error())
	}
	return response{status: 200, contentType: "application/json", body: body}
}
