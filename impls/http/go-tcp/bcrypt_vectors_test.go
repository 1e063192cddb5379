package main

import (
	"encoding/json"
	"os"
	"testing"

	"golang.org/x/crypto/bcrypt"
)

// The shared vectors (spec/SPEC.md §7) prove that hashes made by any runtime
// verify here, for both the $2a$ and the $2b$ prefix.
func TestSharedBcryptVectors(t *testing.T) {
	raw, err := os.ReadFile("../../../spec/bcrypt-vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Vectors []struct {
			Password string `json:"password"`
			Hash     string `json:"hash"`
			Matches  bool   `json:"matches"`
		} `json:"vectors"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Vectors) == 0 {
		t.Fatal("spec/bcrypt-vectors.json has no vectors")
	}
	prefixes := map[string]bool{}
	for _, v := range file.Vectors {
		prefixes[v.Hash[:4]] = true
		err := bcrypt.CompareHashAndPassword([]byte(v.Hash), []byte(v.Password))
		if got := err == nil; got != v.Matches {
			t.Errorf("password %q against %s: matches=%v (%v), want %v", v.Password, v.Hash, got, err, v.Matches)
		}
	}
	for _, p := range []string{"$2a$", "$2b$"} {
		if !prefixes[p] {
			t.Errorf("no %s vector was checked", p)
		}
	}
}
