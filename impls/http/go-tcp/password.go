package main

// bcrypt login, as in the thesis' Listing 24: set stores a hash per user,
// verify compares against it. An unknown user still costs one hash at the
// configured cost, so the 404 takes as long as a real check and response
// times do not reveal which names exist. The hash runs on the connection's
// goroutine; at most GOMAXPROCS of them compute at once.

import (
	"errors"
	"strings"

	"golang.org/x/crypto/bcrypt"
)

// maxPasswordBytes is bcrypt's input limit. x/crypto refuses longer
// passwords; the contract refuses them for every runtime.
const maxPasswordBytes = 72

func (s *server) setPassword(req *request, user string) response {
	password, bad := readPassword(req)
	if bad != nil {
		return *bad
	}
	hash, err := bcrypt.GenerateFromPassword(password, s.cfg.bcryptCost)
	if err != nil {
		return errorResponse(500, "could not hash the password: "+err.Error())
	}
	s.passwords.Store(user, hash)
	return text(200, "OK")
}

func (s *server) verifyPassword(req *request, user string) response {
	password, bad := readPassword(req)
	if bad != nil {
		return *bad
	}
	hash, found := s.passwords.Load(user)
	if !found {
		_, _ = bcrypt.GenerateFromPassword(password, s.cfg.bcryptCost)
		return errorResponse(404, "no password is set for user "+user)
	}
	err := bcrypt.CompareHashAndPassword(hash.([]byte), password)
	switch {
	case errors.Is(err, bcrypt.ErrMismatchedHashAndPassword):
		return errorResponse(403, "wrong password for user "+user)
	case err != nil:
		return errorResponse(500, "could not check the password: "+err.Error())
	}
	return text(200, "OK")
}

// readPassword reads a {"password": "…"} body, or returns the 400 or 413.
func readPassword(req *request) ([]byte, *response) {
	body, bad := readBody(req)
	if bad != nil {
		return nil, bad
	}
	// Decoding into a map, not a struct, because encoding/json matches
	// struct fields case-insensitively and would accept {"PASSWORD": "…"}.
	value, bad := parseJSON(body)
	if bad != nil {
		return nil, bad
	}
	fields, isObject := value.(map[string]any)
	if !isObject {
		return nil, refuse(400, `request body must be a JSON object like {"password":"…"}`)
	}
	p, isString := fields["password"].(string)
	switch {
	case !isString:
		return nil, refuse(400, `request body must have a string member "password"`)
	case len(p) > maxPasswordBytes:
		return nil, refuse(400, "password is longer than bcrypt's limit of 72 bytes")
	case strings.ContainsRune(p, 0):
		// C implementations of bcrypt stop at a NUL; the contract refuses it.
		return nil, refuse(400, "password contains a NUL character")
	}
	return []byte(p), nil
}
