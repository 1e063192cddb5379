package main

// bcrypt login, as in the thesis' Listing 24: set stores a hash per user,
// verify compares against it. An unknown user still costs one hash at the
// configured cost, so the 404 takes as long as a real check and response
// times do not reveal which names exist.

import (
	"errors"
	"net/http"
	"strings"

	"golang.org/x/crypto/bcrypt"
)

// maxPasswordBytes is bcrypt's input limit. x/crypto refuses longer
// passwords; the contract refuses them for every runtime.
const maxPasswordBytes = 72

func (s *server) setPassword(w http.ResponseWriter, r *http.Request) {
	user := userName(w, r, "/password/set/")
	if user == "" {
		return
	}
	password, ok := readPassword(w, r)
	if !ok {
		return
	}
	hash, err := bcrypt.GenerateFromPassword(password, s.cfg.bcryptCost)
	if err != nil {
		http.Error(w, "could not hash the password: "+err.Error(), http.StatusInternalServerError)
		return
	}
	s.passwords.Store(user, hash)
	writeText(w, "OK")
}

func (s *server) verifyPassword(w http.ResponseWriter, r *http.Request) {
	user := userName(w, r, "/password/verify/")
	if user == "" {
		return
	}
	password, ok := readPassword(w, r)
	if !ok {
		return
	}
	hash, found := s.passwords.Load(user)
	if !found {
		_, _ = bcrypt.GenerateFromPassword(password, s.cfg.bcryptCost)
		http.Error(w, "no password is set for user "+user, http.StatusNotFound)
		return
	}
	err := bcrypt.CompareHashAndPassword(hash.([]byte), password)
	switch {
	case errors.Is(err, bcrypt.ErrMismatchedHashAndPassword):
		http.Error(w, "wrong password for user "+user, http.StatusForbidden)
	case err != nil:
		http.Error(w, "could not check the password: "+err.Error(), http.StatusInternalServerError)
	default:
		writeText(w, "OK")
	}
}

// readPassword reads a {"password": "…"} body, or answers 400 or 413.
func readPassword(w http.ResponseWriter, r *http.Request) (password []byte, ok bool) {
	body, ok := readBody(w, r)
	if !ok {
		return nil, false
	}
	// Decoding into a map, not a struct, because encoding/json matches
	// struct fields case-insensitively and would accept {"PASSWORD": "…"}.
	value, ok := parseJSON(w, body)
	if !ok {
		return nil, false
	}
	fields, isObject := value.(map[string]any)
	if !isObject {
		http.Error(w, `request body must be a JSON object like {"password":"…"}`, http.StatusBadRequest)
		return nil, false
	}
	p, isString := fields["password"].(string)
	switch {
	case !isString:
		http.Error(w, `request body must have a string member "password"`, http.StatusBadRequest)
		return nil, false
	case len(p) > maxPasswordBytes:
		http.Error(w, "password is longer than bcrypt's limit of 72 bytes", http.StatusBadRequest)
		return nil, false
	case strings.ContainsRune(p, 0):
		// C implementations of bcrypt stop at a NUL; the contract refuses it.
		http.Error(w, "password contains a NUL character", http.StatusBadRequest)
		return nil, false
	}
	return []byte(p), true
}
